/**
 * Cron schedules as people set and read them: the picker's presets (every day, every weekday,
 * every week on a day, every few hours, every month on a day, or a custom expression) written
 * as the cron expression the server accepts (kinbot_core/crons/schedule.py: five fields, or six
 * with seconds first), read back from one, and any expression said in words in the user's
 * language ("every weekday at 07:30", "tous les jours de semaine à 07:30"). Day and month names
 * and lists come from Intl in the UI language; the sentences from the `crons.words` strings.
 */

export type ScheduleKind = "daily" | "weekdays" | "weekly" | "hourly" | "monthly" | "custom";

/** What the picker holds. `time` is "HH:MM" (24 h); `weekday` 0 is Sunday, as in cron. */
export type Schedule =
  | { kind: "daily" | "weekdays"; time: string }
  | { kind: "weekly"; weekday: number; time: string }
  | { kind: "hourly"; every: number; minute: number }
  | { kind: "monthly"; day: number; time: string }
  | { kind: "custom"; expression: string };

export const SCHEDULE_KINDS: readonly ScheduleKind[] = ["daily", "weekdays", "weekly", "hourly", "monthly", "custom"];

/** The picker's starting schedule for a new cron. */
export const DEFAULT_SCHEDULE: Schedule = { kind: "daily", time: "08:00" };

/** A translation function (i18next's `t`) for the `crons.words.*` sentences. */
export type Translate = (key: string, values?: Record<string, string | number>) => string;

function clock(time: string): [number, number] {
  const [hours, minutes] = time.split(":").map(Number);
  return [hours || 0, minutes || 0];
}

/** The cron expression (five fields) of a schedule; a custom one as typed, spaces tidied. */
export function scheduleToCron(schedule: Schedule): string {
  if (schedule.kind === "custom") return schedule.expression.trim().replace(/\s+/g, " ");
  if (schedule.kind === "hourly") return `${schedule.minute} ${schedule.every <= 1 ? "*" : `*/${schedule.every}`} * * *`;
  const [hours, minutes] = clock(schedule.time);
  const days = schedule.kind === "weekly" ? `* * ${schedule.weekday}` : schedule.kind === "monthly" ? `${schedule.day} * *` : schedule.kind === "weekdays" ? "* * 1-5" : "* * *";
  return `${minutes} ${hours} ${days}`;
}

function whole(field: string, low: number, high: number): number | null {
  if (!/^\d{1,2}$/.test(field)) return null;
  const value = Number(field);
  return value >= low && value <= high ? value : null;
}

const pad = (value: number) => String(value).padStart(2, "0");

/** "HH:MM" of a time. */
export function timeOf(hours: number, minutes: number): string {
  return `${pad(hours)}:${pad(minutes)}`;
}

/**
 * The picker's schedule for an expression: a preset when the expression is exactly what that
 * preset writes (whatever its spacing), else `custom` with the expression as it is.
 */
export function cronToSchedule(expression: string): Schedule {
  const custom: Schedule = { kind: "custom", expression };
  const fields = expression.trim().split(/\s+/);
  if (fields.length !== 5) return custom;
  const [minuteField, hourField, dayField, monthField, weekdayField] = fields;
  const minute = whole(minuteField, 0, 59);
  if (minute === null || monthField !== "*") return custom;
  const step = /^\*\/(\d{1,2})$/.exec(hourField);
  if (dayField === "*" && weekdayField === "*" && (hourField === "*" || step)) {
    const every = step ? Number(step[1]) : 1;
    return every >= 1 && every <= 23 ? { kind: "hourly", every, minute } : custom;
  }
  const hour = whole(hourField, 0, 23);
  if (hour === null) return custom;
  const time = timeOf(hour, minute);
  if (dayField === "*") {
    if (weekdayField === "*") return { kind: "daily", time };
    if (weekdayField === "1-5") return { kind: "weekdays", time };
    const weekday = whole(weekdayField, 0, 7);
    return weekday === null ? custom : { kind: "weekly", weekday: weekday % 7, time };
  }
  const day = whole(dayField, 1, 31);
  return day !== null && weekdayField === "*" ? { kind: "monthly", day, time } : custom;
}

// -- words -------------------------------------------------------------------------------------

const WEEKDAY_NAMES = ["SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT"];
const MONTH_NAMES = ["JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"];

/** The values a simple cron field lists (numbers, names, ranges, comma lists), or `null`. */
function listed(field: string, low: number, high: number, names: readonly string[] = [], nameBase = 0): number[] | null {
  const value = (part: string): number | null => {
    const named = names.indexOf(part.toUpperCase());
    if (named >= 0) return named + nameBase;
    return whole(part, low, high);
  };
  const found: number[] = [];
  for (const part of field.split(",")) {
    const range = part.split("-");
    if (range.length > 2) return null;
    const start = value(range[0]);
    const end = range.length === 2 ? value(range[1]) : start;
    if (start === null || end === null || end < start) return null;
    for (let n = start; n <= end; n += 1) found.push(n);
  }
  return [...new Set(found)].sort((a, b) => a - b);
}

function list(items: string[], language: string): string {
  return new Intl.ListFormat(language, { style: "long", type: "conjunction" }).format(items);
}

function weekdayName(day: number, language: string): string {
  // 2023-01-01 was a Sunday (cron's day 0).
  return new Intl.DateTimeFormat(language, { weekday: "long", timeZone: "UTC" }).format(new Date(Date.UTC(2023, 0, 1 + (day % 7))));
}

function monthName(month: number, language: string): string {
  return new Intl.DateTimeFormat(language, { month: "long", timeZone: "UTC" }).format(new Date(Date.UTC(2023, month - 1, 1)));
}

/**
 * Which days a cron runs, in words (`everyDay` when it is every day), or `null` when the
 * fields say something the words cannot.
 */
function daysInWords(dayField: string, weekdayField: string, t: Translate, language: string): { words: string; everyDay: boolean } | null {
  const everyDay = { words: t("crons.words.everyDay"), everyDay: true };
  if (dayField === "*" && weekdayField === "*") return everyDay;
  if (dayField === "*") {
    const days = listed(weekdayField, 0, 7, WEEKDAY_NAMES);
    if (!days) return null;
    const unique = [...new Set(days.map((day) => day % 7))].sort((a, b) => ((a + 6) % 7) - ((b + 6) % 7)); // Monday first
    if (unique.length === 7) return everyDay;
    if (unique.join() === "1,2,3,4,5") return { words: t("crons.words.everyWeekday"), everyDay: false };
    return { words: t("crons.words.everyDays", { days: list(unique.map((day) => weekdayName(day, language)), language) }), everyDay: false };
  }
  if (weekdayField !== "*") return null;
  const days = listed(dayField, 1, 31);
  const named = days?.map((day) => (day === 1 ? t("crons.words.firstDay") : String(day)));
  return named ? { words: t("crons.words.monthDays", { days: list(named, language) }), everyDay: false } : null;
}

/** How often within a day a cron runs, in words, or `null`. */
function timesInWords(minuteField: string, hourField: string, t: Translate, language: string): { at: string } | { at?: undefined; frequency: string } | null {
  const minutes = listed(minuteField, 0, 59);
  const minuteStep = /^\*\/(\d{1,2})$/.exec(minuteField);
  const hourStep = /^\*\/(\d{1,2})$/.exec(hourField);
  if (hourField === "*" && (minuteField === "*" || minuteStep)) {
    const every = minuteStep ? Number(minuteStep[1]) : 1;
    return { frequency: every === 1 ? t("crons.words.everyMinute") : t("crons.words.everyMinutes", { count: every }) };
  }
  if (!minutes) return null;
  if (hourField === "*" || hourStep) {
    const every = hourStep ? Number(hourStep[1]) : 1;
    const frequency = every === 1 ? t("crons.words.everyHour") : t("crons.words.everyHours", { count: every });
    if (minutes.join() === "0") return { frequency };
    return { frequency: t("crons.words.pastTheHour", { frequency, minutes: list(minutes.map(String), language) }) };
  }
  const hours = listed(hourField, 0, 23);
  if (!hours || hours.length * minutes.length > 6) return null;
  return { at: list(hours.flatMap((hour) => minutes.map((minute) => timeOf(hour, minute))), language) };
}

/**
 * A cron expression in words in `language` ("every weekday at 07:30"), lower case as a
 * sentence's middle: the expression itself, quoted in a sentence, when it says more than
 * the words can (a seconds field, a day of the month and of the week together, steps in days).
 */
export function scheduleInWords(expression: string, t: Translate, language: string): string {
  const custom = t("crons.words.custom", { expression: expression.trim() });
  let fields = expression.trim().split(/\s+/);
  if (fields.length === 6 && fields[0] === "0") fields = fields.slice(1);
  if (fields.length !== 5) return custom;
  const [minuteField, hourField, dayField, monthField, weekdayField] = fields;
  const days = daysInWords(dayField, weekdayField, t, language);
  const times = timesInWords(minuteField, hourField, t, language);
  const months = monthField === "*" ? [] : listed(monthField, 1, 12, MONTH_NAMES, 1);
  if (days === null || times === null || months === null) return custom;
  let words: string;
  if (times.at !== undefined) words = t("crons.words.at", { days: days.words, times: times.at });
  else words = days.everyDay ? times.frequency : t("crons.words.on", { frequency: times.frequency, days: days.words });
  if (months.length > 0 && months.length < 12) words = t("crons.words.inMonths", { schedule: words, months: list(months.map((month) => monthName(month, language)), language) });
  return words;
}
