import * as React from "react";
import { useTranslation } from "react-i18next";

import { Field, Input } from "@/components/ui/input";
import { NativeSelect } from "@/components/ui/native-select";
import { zoneLabel } from "@/lib/crons";
import { cronToSchedule, SCHEDULE_KINDS, scheduleInWords, scheduleToCron, type Schedule, type ScheduleKind } from "@/lib/schedule-words";

/** Monday first, as calendars in both languages show the week (cron's numbers: 0 is Sunday). */
const WEEK = [1, 2, 3, 4, 5, 6, 0];

function weekdayLabel(day: number, language: string): string {
  return new Intl.DateTimeFormat(language, { weekday: "long", timeZone: "UTC" }).format(new Date(Date.UTC(2023, 0, 1 + day)));
}

/** The time zones the browser knows, with `current` among them, each with its label in
 * `language` (`zoneLabel`), in the order of their labels. */
function zones(current: string, language: string): { zone: string; label: string }[] {
  const known = typeof Intl.supportedValuesOf === "function" ? Intl.supportedValuesOf("timeZone") : [];
  const named = [...new Set([...known, "UTC", ...(current ? [current] : [])])].map((zone) => ({ zone, label: zoneLabel(zone, language) }));
  return named.sort((a, b) => a.label.localeCompare(b.label, language));
}

/** A schedule of `kind`, keeping what carries over from `from` (its time). */
function switched(kind: ScheduleKind, from: Schedule): Schedule {
  const time = "time" in from ? from.time : "08:00";
  switch (kind) {
    case "daily":
    case "weekdays":
      return { kind, time };
    case "weekly":
      return { kind, weekday: 1, time };
    case "monthly":
      return { kind, day: 1, time };
    case "hourly":
      return { kind, every: 2, minute: 0 };
    case "custom":
      return { kind, expression: scheduleToCron(from) };
  }
}

function clamp(text: string, low: number, high: number): number {
  const value = Math.trunc(Number(text));
  return Number.isFinite(value) ? Math.min(high, Math.max(low, value)) : low;
}

/**
 * How often a cron runs, picked in plain words (every day, every weekday, every week on a
 * day, every few hours, every month on a day) or typed as a cron expression, with its time
 * zone; `value` and `onChange` are the cron expression. The schedule is said back in words
 * as it is picked (a polite live region for screen readers).
 */
export function SchedulePicker({ value, onChange, timezone, onTimezoneChange }: { value: string; onChange: (expression: string) => void; timezone: string; onTimezoneChange: (zone: string) => void }) {
  const { t, i18n } = useTranslation();
  const [schedule, setSchedule] = React.useState<Schedule>(() => cronToSchedule(value));
  const written = React.useRef(value);

  // An expression set from outside (the dialog opening on a cron) is read back into the picker.
  React.useEffect(() => {
    if (value !== written.current) {
      written.current = value;
      setSchedule(cronToSchedule(value));
    }
  }, [value]);

  function pick(next: Schedule) {
    setSchedule(next);
    written.current = scheduleToCron(next);
    onChange(written.current);
  }

  const words = scheduleInWords(scheduleToCron(schedule), (key, values) => t(key, values), i18n.language);
  const zoneOptions = React.useMemo(() => zones(timezone, i18n.language), [timezone, i18n.language]);
  const timeField =
    "time" in schedule ? (
      <Field label={t("crons.time")} htmlFor="cron-time">
        <Input id="cron-time" type="time" required value={schedule.time} onChange={(event) => event.target.value && pick({ ...schedule, time: event.target.value })} className="w-36" />
      </Field>
    ) : null;

  return (
    <fieldset className="flex min-w-0 flex-col gap-3 rounded-xl border border-border/70 p-3">
      <legend className="px-1 text-sm font-medium">{t("kinSettings.schedule")}</legend>
      <Field label={t("crons.repeats")} htmlFor="cron-repeats">
        <NativeSelect id="cron-repeats" value={schedule.kind} onChange={(event) => pick(switched(event.target.value as ScheduleKind, schedule))}>
          {SCHEDULE_KINDS.map((kind) => (
            <option key={kind} value={kind}>
              {t(`crons.kinds.${kind}`)}
            </option>
          ))}
        </NativeSelect>
      </Field>
      <div className="flex flex-wrap gap-3">
        {schedule.kind === "weekly" ? (
          <Field label={t("crons.weekday")} htmlFor="cron-weekday">
            <NativeSelect id="cron-weekday" value={schedule.weekday} onChange={(event) => pick({ ...schedule, weekday: Number(event.target.value) })}>
              {WEEK.map((day) => (
                <option key={day} value={day}>
                  {weekdayLabel(day, i18n.language)}
                </option>
              ))}
            </NativeSelect>
          </Field>
        ) : null}
        {schedule.kind === "monthly" ? (
          <Field label={t("crons.dayOfMonth")} htmlFor="cron-day">
            <Input id="cron-day" type="number" inputMode="numeric" min={1} max={31} required value={schedule.day} onChange={(event) => pick({ ...schedule, day: clamp(event.target.value, 1, 31) })} className="w-24" />
          </Field>
        ) : null}
        {schedule.kind === "hourly" ? (
          <>
            <Field label={t("crons.everyHours")} htmlFor="cron-every">
              <Input id="cron-every" type="number" inputMode="numeric" min={1} max={23} required value={schedule.every} onChange={(event) => pick({ ...schedule, every: clamp(event.target.value, 1, 23) })} className="w-24" />
            </Field>
            <Field label={t("crons.minute")} htmlFor="cron-minute">
              <Input id="cron-minute" type="number" inputMode="numeric" min={0} max={59} required value={schedule.minute} onChange={(event) => pick({ ...schedule, minute: clamp(event.target.value, 0, 59) })} className="w-24" />
            </Field>
          </>
        ) : null}
        {timeField}
      </div>
      {schedule.kind === "custom" ? (
        <Field label={t("crons.expression")} htmlFor="cron-schedule" hint={t("crons.expressionHint")}>
          <Input id="cron-schedule" value={schedule.expression} onChange={(event) => pick({ kind: "custom", expression: event.target.value })} required placeholder="30 7 * * 1-5" className="font-mono" spellCheck={false} autoCapitalize="off" autoComplete="off" />
        </Field>
      ) : null}
      <Field label={t("crons.timezone")} htmlFor="cron-timezone">
        <NativeSelect id="cron-timezone" value={timezone} onChange={(event) => onTimezoneChange(event.target.value)}>
          <option value="">{t("crons.timezoneDefault")}</option>
          {zoneOptions.map(({ zone, label }) => (
            <option key={zone} value={zone}>
              {label}
            </option>
          ))}
        </NativeSelect>
      </Field>
      <p className="text-sm" aria-live="polite" data-schedule-preview>
        {t("crons.preview", { words })} <code className="ml-1 rounded-md bg-muted px-1.5 py-0.5 text-xs whitespace-nowrap text-muted-foreground">{scheduleToCron(schedule) || "—"}</code>
      </p>
    </fieldset>
  );
}
