import { CalendarClockIcon, CheckIcon, PauseIcon, PencilIcon, PlayIcon, PlusIcon, Trash2Icon } from "lucide-react";
import * as React from "react";
import { useTranslation } from "react-i18next";
import { Link } from "react-router";

import { languageModels, type ModelChoice } from "@/components/app/create-kin-dialog";
import { Badge } from "@/components/ui/badge";
import { ConfirmDelete } from "@/components/app/confirm-delete";
import { Button } from "@/components/ui/button";
import { Dialog, DialogClose, DialogContent, DialogDescription, DialogFooter, DialogHeader, DialogTitle } from "@/components/ui/dialog";
import { Field, Input } from "@/components/ui/input";
import { NativeSelect } from "@/components/ui/native-select";
import { Textarea } from "@/components/ui/textarea";
import { useToast } from "@/components/ui/toast";
import { api } from "@/lib/api";
import { cronActions, cronBody, draftOf, emptyDraft, type Cron, type CronDraft } from "@/lib/crons";
import type { Kin } from "@/lib/types";

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The dialog that creates a cron for a Kin or edits one; the API's refusal shows in it. */
function CronDialog({ kin, cron, open, onOpenChange, onSaved }: { kin: Kin; cron: Cron | null; open: boolean; onOpenChange: (open: boolean) => void; onSaved: () => void }) {
  const { t } = useTranslation();
  const { toast } = useToast();
  const [draft, setDraft] = React.useState<CronDraft>(emptyDraft);
  const [models, setModels] = React.useState<ModelChoice[]>([]);
  const [error, setError] = React.useState<string | null>(null);
  const [busy, setBusy] = React.useState(false);

  React.useEffect(() => {
    if (!open) return;
    setDraft(cron ? draftOf(cron) : emptyDraft);
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
      if (cron) {
        if (Object.keys(body).length > 0) await api(`/api/crons/${cron.id}`, { method: "PATCH", body });
      } else {
        await api("/api/crons", { method: "POST", body });
      }
      toast({ title: t("kinSettings.cronSaved"), tone: "success" });
      onSaved();
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
          <Field label={t("kinSettings.schedule")} htmlFor="cron-schedule" hint={t("kinSettings.scheduleHint")}>
            <Input id="cron-schedule" value={draft.schedule} onChange={set("schedule")} required placeholder="0 8 * * 1-5" className="font-mono" spellCheck={false} />
          </Field>
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

function StateBadge({ cron }: { cron: Cron }) {
  const { t } = useTranslation();
  if (cron.state === "awaiting_confirmation") return <Badge variant="warning">{t("kinSettings.awaitingConfirmation")}</Badge>;
  if (cron.state === "inactive") return <Badge variant="outline">{t("kinSettings.paused")}</Badge>;
  return <Badge variant="success">{t("kinSettings.running")}</Badge>;
}

/** A Kin's crons: list, create, edit, pause and resume, confirm a Kin's proposal, delete. */
export function KinCrons({ kin }: { kin: Kin }) {
  const { t } = useTranslation();
  const { toast } = useToast();
  const [crons, setCrons] = React.useState<Cron[] | null>(null);
  const [editing, setEditing] = React.useState<Cron | null>(null);
  const [dialogOpen, setDialogOpen] = React.useState(false);
  const [deleting, setDeleting] = React.useState<Cron | null>(null);

  const fail = React.useCallback((error: unknown) => toast({ title: t("errors.generic"), description: errorText(error), tone: "error" }), [toast, t]);
  const load = React.useCallback(() => {
    api<{ crons: Cron[] }>(`/api/crons?kin_id=${encodeURIComponent(kin.id)}`)
      .then(({ crons: found }) => setCrons(found))
      .catch(fail);
  }, [kin.id, fail]);
  React.useEffect(load, [load]);

  async function act(request: () => Promise<unknown>) {
    try {
      await request();
    } catch (error) {
      fail(error);
    }
    load();
  }

  function open(cron: Cron | null) {
    setEditing(cron);
    setDialogOpen(true);
  }

  return (
    <div className="flex flex-col gap-4">
      <div>
        <Button onClick={() => open(null)}>
          <PlusIcon /> {t("kinSettings.newCron")}
        </Button>
      </div>
      {crons?.length === 0 ? <p className="text-sm text-muted-foreground">{t("kinSettings.noCrons")}</p> : null}
      <ul className="flex flex-col gap-2" aria-label={t("kinSettings.crons")}>
        {crons?.map((cron) => {
          const actions = cronActions(cron);
          return (
            <li key={cron.id} className="flex flex-col gap-2 rounded-xl border border-border/70 bg-card px-4 py-3 sm:flex-row sm:items-start" data-cron={cron.id} aria-label={cron.name}>
              <span className="hidden size-9 shrink-0 items-center justify-center rounded-xl bg-bubble-cron text-bubble-cron-accent sm:flex">
                <CalendarClockIcon className="size-4.5" aria-hidden />
              </span>
              <div className="min-w-0 flex-1">
                <p className="flex flex-wrap items-center gap-2">
                  <span className="font-semibold">{cron.name}</span>
                  <code className="rounded-md bg-muted px-1.5 py-0.5 text-xs">{cron.schedule}</code>
                  <StateBadge cron={cron} />
                  {cron.created_by_kin_id ? <Badge variant="kin">{t("kinSettings.proposedBy", { name: kin.name })}</Badge> : null}
                </p>
                <p className="mt-1 text-sm text-muted-foreground">{cron.task_description}</p>
                <p className="mt-1 flex flex-wrap gap-x-3 text-xs text-muted-foreground">
                  {cron.model ? <span>{cron.model}</span> : null}
                  {cron.last_run_status ? (
                    cron.last_task_id ? (
                      <Link to={`/tasks/${cron.last_task_id}`} className="underline underline-offset-2">
                        {t("kinSettings.lastRun", { status: cron.last_run_status })}
                      </Link>
                    ) : (
                      <span>{t("kinSettings.lastRun", { status: cron.last_run_status })}</span>
                    )
                  ) : null}
                  {cron.last_skip_reason ? <span>{t("kinSettings.lastSkip", { reason: cron.last_skip_reason })}</span> : null}
                </p>
              </div>
              <div className="flex flex-wrap gap-1">
                {actions.confirm ? (
                  <Button size="sm" onClick={() => void act(() => api(`/api/crons/${cron.id}/confirm`, { method: "POST" }))}>
                    <CheckIcon /> {t("kinSettings.confirm")}
                  </Button>
                ) : null}
                {actions.pause ? (
                  <Button size="sm" variant="outline" onClick={() => void act(() => api(`/api/crons/${cron.id}`, { method: "PATCH", body: { active: false } }))}>
                    <PauseIcon /> {t("kinSettings.pause")}
                  </Button>
                ) : null}
                {actions.resume ? (
                  <Button size="sm" variant="outline" onClick={() => void act(() => api(`/api/crons/${cron.id}`, { method: "PATCH", body: { active: true } }))}>
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
      <CronDialog kin={kin} cron={editing} open={dialogOpen} onOpenChange={setDialogOpen} onSaved={load} />
      <ConfirmDelete
        target={deleting}
        title={t("kinSettings.deleteCron", { name: deleting?.name ?? "" })}
        description={t("kinSettings.deleteCronConfirm", { name: deleting?.name ?? "" })}
        onClose={() => setDeleting(null)}
        onConfirm={(target) => void act(() => api(`/api/crons/${target.id}`, { method: "DELETE" }))}
      />
    </div>
  );
}
