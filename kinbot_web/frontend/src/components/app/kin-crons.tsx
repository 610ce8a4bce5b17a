import { CalendarClockIcon, CheckIcon, PauseIcon, PencilIcon, PlayIcon, PlusIcon, Trash2Icon, XIcon } from "lucide-react";
import * as React from "react";
import { useTranslation } from "react-i18next";
import { Link } from "react-router";

import { languageModels, type ModelChoice } from "@/components/app/create-kin-dialog";
import { Badge } from "@/components/ui/badge";
import { ConfirmDelete, nextInList } from "@/components/app/confirm-delete";
import { SchedulePicker } from "@/components/app/schedule-picker";
import { Button } from "@/components/ui/button";
import { Dialog, DialogClose, DialogContent, DialogDescription, DialogFooter, DialogHeader, DialogTitle } from "@/components/ui/dialog";
import { Field, Input } from "@/components/ui/input";
import { NativeSelect } from "@/components/ui/native-select";
import { Textarea } from "@/components/ui/textarea";
import { useToast } from "@/components/ui/toast";
import i18n from "@/i18n";
import { api } from "@/lib/api";
import { errorText as describeError } from "@/lib/errors";
import { browserZone, cronActions, cronBody, cronsReducer, draftOf, formatWhen, initialCrons, needsReload, newDraft, type Cron, type CronDraft, type CronEvent, zoneLabel } from "@/lib/crons";
import { scheduleInWords } from "@/lib/schedule-words";
import type { EventStream } from "@/lib/events";
import type { Kin } from "@/lib/types";

function errorText(error: unknown): string {
  return describeError(i18n.t, error);
}

/** The dialog that creates a cron for a Kin or edits one; the API's refusal shows in it. */
function CronDialog({ kin, cron, open, onOpenChange, onSaved }: { kin: Kin; cron: Cron | null; open: boolean; onOpenChange: (open: boolean) => void; onSaved: (cron: Cron) => void }) {
  const { t } = useTranslation();
  const { toast } = useToast();
  const [draft, setDraft] = React.useState<CronDraft>(newDraft);
  const [models, setModels] = React.useState<ModelChoice[]>([]);
  const [error, setError] = React.useState<string | null>(null);
  const [busy, setBusy] = React.useState(false);

  React.useEffect(() => {
    if (!open) return;
    setDraft(cron ? draftOf(cron) : newDraft());
    setError(null);
    languageModels()
      .then(setModels)
      .catch(() => setModels([]));
  }, [open, cron]);

  const choices = draft.model && !models.some((model) => model.value === draft.model) ? [{ value: draft.model, label: draft.model }, ...models] : models;
  const set = (key: keyof CronDraft) => (event: React.ChangeEvent<HTMLInputElement | HTMLTextAreaElement | HTMLSelectElement>) => setDraft((value) => ({ ...value, [key]: event.target.value }));

  async function submit(event: React.FormEvent) {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const body = cronBody(draft, kin.id, cron ?? undefined);
      let saved = cron;
      if (!cron) saved = (await api<{ cron: Cron }>("/api/crons", { method: "POST", body })).cron;
      else if (Object.keys(body).length > 0) saved = (await api<{ cron: Cron }>(`/api/crons/${cron.id}`, { method: "PATCH", body })).cron;
      toast({ title: t("kinSettings.cronSaved"), tone: "success" });
      if (saved) onSaved(saved);
      onOpenChange(false);
    } catch (failure) {
      setError(errorText(failure));
    } finally {
      setBusy(false);
    }
  }

  return (
    <Dialog open={open} onOpenChange={onOpenChange}>
      <DialogContent closeLabel={t("common.close")}>
        <form onSubmit={(event) => void submit(event)} className="flex flex-col gap-4">
          <DialogHeader>
            <DialogTitle>{cron ? t("kinSettings.editCron") : t("kinSettings.newCron")}</DialogTitle>
            <DialogDescription>{kin.name}</DialogDescription>
          </DialogHeader>
          <Field label={t("kinSettings.cronName")} htmlFor="cron-name">
            <Input id="cron-name" value={draft.name} onChange={set("name")} required maxLength={200} />
          </Field>
          <SchedulePicker value={draft.schedule} onChange={(schedule) => setDraft((value) => ({ ...value, schedule }))} timezone={draft.timezone} onTimezoneChange={(timezone) => setDraft((value) => ({ ...value, timezone }))} />
          <Field label={t("kinSettings.taskDescription")} htmlFor="cron-task">
            <Textarea id="cron-task" value={draft.task_description} onChange={set("task_description")} required rows={3} />
          </Field>
          <Field label={t("kinSettings.cronModel")} htmlFor="cron-model">
            <NativeSelect id="cron-model" value={draft.model} onChange={set("model")}>
              <option value="">{t("kinSettings.defaultModel")}</option>
              {choices.map((model) => (
                <option key={model.value} value={model.value}>
                  {model.label}
                </option>
              ))}
            </NativeSelect>
          </Field>
          {error ? (
            <p role="alert" className="rounded-xl bg-destructive/10 px-3 py-2 text-sm text-destructive">
              {error}
            </p>
          ) : null}
          <DialogFooter>
            <DialogClose asChild>
              <Button type="button" variant="ghost">
                {t("common.cancel")}
              </Button>
            </DialogClose>
            <Button type="submit" disabled={busy}>
              {t("common.save")}
            </Button>
          </DialogFooter>
        </form>
      </DialogContent>
    </Dialog>
  );
}

/** A cron's schedule in words in the user's language, with its time zone when it is not the browser's. */
function ScheduleWords({ cron }: { cron: Cron }) {
  const { t, i18n } = useTranslation();
  const words = scheduleInWords(cron.schedule, (key, values) => t(key, values), i18n.language);
  const zone = cron.timezone && cron.timezone !== browserZone() ? cron.timezone : null;
  return (
    <p className="mt-0.5 flex flex-wrap items-center gap-x-2 gap-y-0.5 text-sm">
      <span className="inline-block font-medium first-letter:uppercase" data-schedule-words>
        {zone ? t("crons.inZone", { words, zone: zoneLabel(zone, i18n.language) }) : words}
      </span>
      <code className="rounded-md bg-muted px-1.5 py-0.5 text-xs text-muted-foreground">{cron.schedule}</code>
    </p>
  );
}

function StateBadge({ cron }: { cron: Cron }) {
  const { t } = useTranslation();
  if (cron.state === "awaiting_confirmation") return <Badge variant="warning">{t("kinSettings.awaitingConfirmation")}</Badge>;
  if (cron.state === "inactive") return <Badge variant="outline">{t("kinSettings.paused")}</Badge>;
  return <Badge variant="success">{t("kinSettings.running")}</Badge>;
}

/** When a cron ran last and how, and when it runs next, in the user's language. */
function CronTimes({ cron }: { cron: Cron }) {
  const { t, i18n } = useTranslation();
  const lastAt = formatWhen(cron.last_run_at, i18n.language);
  const nextAt = formatWhen(cron.next_run_at, i18n.language);
  const status = cron.last_run_status ? t(`kinSettings.runStatus.${cron.last_run_status}`, { defaultValue: cron.last_run_status }) : null;
  const lastRun = status ? t("kinSettings.lastRun", { status }) + (lastAt ? ` · ${lastAt}` : "") : null;
  return (
    <p className="mt-1 flex flex-wrap gap-x-3 gap-y-0.5 text-xs text-muted-foreground">
      {cron.model ? <span>{cron.model}</span> : null}
      {lastRun ? (
        cron.last_task_id ? (
          <Link to={`/tasks/${cron.last_task_id}`} className="rounded-sm underline underline-offset-2 focus-visible:ring-2 focus-visible:ring-ring focus-visible:outline-none" data-last-run={cron.last_run_status}>
            {lastRun}
          </Link>
        ) : (
          <span data-last-run={cron.last_run_status}>{lastRun}</span>
        )
      ) : (
        <span>{t("kinSettings.neverRun")}</span>
      )}
      {nextAt ? <span data-next-run>{t("kinSettings.nextRun", { when: nextAt })}</span> : null}
      {cron.last_skip_reason ? (
        <span>
          {t("kinSettings.lastSkip", { reason: cron.last_skip_reason })}
          {cron.last_skip_at ? ` · ${formatWhen(cron.last_skip_at, i18n.language)}` : ""}
        </span>
      ) : null}
    </p>
  );
}

/**
 * A Kin's crons: list, create, edit, pause and resume, confirm a Kin's proposal, delete. The
 * list follows the live `cron.*` events (a Kin's proposal, another person's change, a run),
 * and is reloaded when the stream lost some.
 */
export function KinCrons({ kin, stream }: { kin: Kin; stream: EventStream }) {
  const { t } = useTranslation();
  const { toast } = useToast();
  const [state, dispatch] = React.useReducer(cronsReducer, kin.id, initialCrons);
  const crons = state.crons;
  const [editing, setEditing] = React.useState<Cron | null>(null);
  const [dialogOpen, setDialogOpen] = React.useState(false);
  const [deleting, setDeleting] = React.useState<Cron | null>(null);
  const newCron = React.useRef<HTMLButtonElement>(null);
  const list = React.useRef<HTMLUListElement>(null);
  /** Where the keyboard goes once a change is drawn: the cron's first action (its button was
   * replaced, Confirm by Pause…). A cron gone takes the keyboard to the next one (`nextInList`). */
  const [focusNext, setFocusNext] = React.useState<{ cronId: string } | null>(null);
  React.useEffect(() => {
    if (focusNext === null) return;
    const action = list.current?.querySelector<HTMLElement>(`[data-cron="${CSS.escape(focusNext.cronId)}"] [data-cron-actions] button`);
    (action ?? newCron.current)?.focus();
  }, [focusNext]);

  const fail = React.useCallback((error: unknown) => toast({ title: t("errors.generic"), description: errorText(error), tone: "error" }), [toast, t]);
  const load = React.useCallback(() => {
    dispatch({ type: "load" });
    api<{ crons: Cron[] }>(`/api/crons?kin_id=${encodeURIComponent(kin.id)}`)
      .then(({ crons: found }) => dispatch({ type: "loaded", crons: found }))
      .catch((error: unknown) => {
        dispatch({ type: "failed" });
        fail(error);
      });
  }, [kin.id, fail]);

  React.useEffect(() => {
    const event = (value: CronEvent) => dispatch({ type: "event", event: value });
    const off = [
      stream.on("cron.created", ({ cron }) => event({ type: "cron.created", cron })),
      stream.on("cron.updated", ({ cron }) => event({ type: "cron.updated", cron })),
      stream.on("cron.deleted", ({ cron_id, kin_id }) => event({ type: "cron.deleted", cron_id, kin_id })),
      stream.onResync(load),
      // What changed before the stream was open is only in a load made after.
      stream.onState((connection) => connection === "open" && load()),
    ];
    load();
    return () => off.forEach((unsubscribe) => unsubscribe());
  }, [stream, load]);

  const reload = needsReload(state);
  React.useEffect(() => {
    if (reload) load();
  }, [reload, load]);

  /** Run one of the person's changes; the answer updates the list at once (its event follows). */
  async function act(request: () => Promise<CronEvent>) {
    try {
      const event = await request();
      dispatch({ type: "changed", event });
      if (event.type !== "cron.deleted") setFocusNext({ cronId: event.cron.id }); // drawn with it
    } catch (error) {
      fail(error);
      load();
    }
  }
  const decline = (cron: Cron, button: HTMLElement) =>
    act(async () => {
      const next = nextInList(button) ?? newCron.current;
      await api(`/api/crons/${cron.id}`, { method: "DELETE" });
      next?.focus();
      toast({ title: t("kinSettings.declined", { name: cron.name }), tone: "success" });
      return { type: "cron.deleted", cron_id: cron.id, kin_id: cron.kin_id };
    });
  const change = (cron: Cron, path: string, body?: Record<string, unknown>) =>
    act(async () => ({ type: "cron.updated", cron: (await api<{ cron: Cron }>(`/api/crons/${cron.id}${path}`, { method: path ? "POST" : "PATCH", body })).cron }));

  function open(cron: Cron | null) {
    setEditing(cron);
    setDialogOpen(true);
  }

  return (
    <div className="flex flex-col gap-4">
      <p className="text-sm text-muted-foreground" data-crons-intro>
        {t("kinSettings.cronsIntro", { name: kin.name })}
      </p>
      <div>
        <Button ref={newCron} onClick={() => open(null)}>
          <PlusIcon /> {t("kinSettings.newCron")}
        </Button>
      </div>
      {crons?.length === 0 ? <p className="text-sm text-muted-foreground">{t("kinSettings.noCrons")}</p> : null}
      <ul ref={list} className="flex flex-col gap-2" aria-label={t("kinSettings.crons")} aria-live="polite" aria-relevant="additions removals">
        {crons?.map((cron) => {
          const actions = cronActions(cron);
          return (
            <li key={cron.id} className="flex flex-col gap-2 rounded-xl border border-border/70 bg-card px-4 py-3 sm:flex-row sm:items-start" data-cron={cron.id} aria-label={cron.name}>
              <span className="hidden size-9 shrink-0 items-center justify-center rounded-xl bg-bubble-cron text-bubble-cron-accent sm:flex">
                <CalendarClockIcon className="size-4.5" aria-hidden />
              </span>
              <div className="min-w-0 flex-1">
                <p className="flex flex-wrap items-center gap-2">
                  <span className="font-semibold break-words">{cron.name}</span>
                  <StateBadge cron={cron} />
                  {cron.created_by_kin_id ? <Badge variant="kin">{t("kinSettings.proposedBy", { name: kin.name })}</Badge> : null}
                </p>
                <ScheduleWords cron={cron} />
                <p className="mt-1 text-sm break-words text-muted-foreground">{cron.task_description}</p>
                <CronTimes cron={cron} />
              </div>
              <div className="flex flex-wrap gap-1" data-cron-actions>
                {actions.confirm ? (
                  <Button size="sm" onClick={() => void change(cron, "/confirm")}>
                    <CheckIcon /> {t("kinSettings.confirm")}
                  </Button>
                ) : null}
                {actions.decline ? (
                  <Button size="sm" variant="outline" onClick={(event) => void decline(cron, event.currentTarget)}>
                    <XIcon /> {t("kinSettings.decline")}
                  </Button>
                ) : null}
                {actions.pause ? (
                  <Button size="sm" variant="outline" onClick={() => void change(cron, "", { active: false })}>
                    <PauseIcon /> {t("kinSettings.pause")}
                  </Button>
                ) : null}
                {actions.resume ? (
                  <Button size="sm" variant="outline" onClick={() => void change(cron, "", { active: true })}>
                    <PlayIcon /> {t("kinSettings.resume")}
                  </Button>
                ) : null}
                <Button size="icon-sm" variant="ghost" aria-label={`${t("common.edit")} ${cron.name}`} onClick={() => open(cron)}>
                  <PencilIcon />
                </Button>
                <Button size="icon-sm" variant="ghost" aria-label={t("kinSettings.deleteCron", { name: cron.name })} onClick={() => setDeleting(cron)}>
                  <Trash2Icon />
                </Button>
              </div>
            </li>
          );
        })}
      </ul>
      <CronDialog kin={kin} cron={editing} open={dialogOpen} onOpenChange={setDialogOpen} onSaved={(saved) => dispatch({ type: "changed", event: { type: "cron.updated", cron: saved } })} />
      <ConfirmDelete
        target={deleting}
        title={t("kinSettings.deleteCron", { name: deleting?.name ?? "" })}
        description={t("kinSettings.deleteCronConfirm")}
        onClose={() => setDeleting(null)}
        focusAfterDelete={newCron}
        onConfirm={(target) =>
          void act(async () => {
            await api(`/api/crons/${target.id}`, { method: "DELETE" });
            return { type: "cron.deleted", cron_id: target.id, kin_id: target.kin_id };
          })
        }
      />
    </div>
  );
}
