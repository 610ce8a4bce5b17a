import { ArchiveIcon, DownloadCloudIcon, DownloadIcon } from "lucide-react";
import * as React from "react";
import type { TFunction } from "i18next";
import { Trans, useTranslation } from "react-i18next";

import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Field, Input } from "@/components/ui/input";
import { NativeSelect } from "@/components/ui/native-select";
import { Switch } from "@/components/ui/switch";
import { useToast } from "@/components/ui/toast";
import { api, ApiError } from "@/lib/api";
import { errorText } from "@/lib/errors";
import { formatBytes, formatDateTime } from "@/lib/format";

interface Schedule {
  enabled: boolean;
  interval_hours: number;
  keep: number;
  target_dir: string | null;
  default_target_dir: string;
  passphrase_set: boolean;
  passphrase_unreadable: boolean;
  passphrase_min_length: number;
}

/** What the passphrase field says of the saved passphrase. */
function passphraseState(schedule: Schedule | undefined, t: TFunction): string {
  if (schedule?.passphrase_unreadable) return t("backups.passphraseUnreadable");
  return schedule?.passphrase_set ? t("backups.passphraseSet") : t("backups.passphraseUnset");
}

interface BackupRun {
  id: number;
  trigger: "scheduled" | "manual";
  status: "running" | "done" | "failed";
  started_at: number;
  finished_at: number | null;
  size: number | null;
  error_code: string | null;
  present: boolean;
}

interface Backups {
  schedule: Schedule;
  runs: BackupRun[];
}

const INTERVALS: [number, string][] = [
  [6, "backups.every6"],
  [12, "backups.every12"],
  [24, "backups.daily"],
  [168, "backups.weekly"],
];
const REFRESH_MS = 1500;
/** The errors of a refused save shown on a field rather than in a toast. */
const FIELD_OF_CODE: Record<string, "passphrase" | "folder"> = {
  backup_passphrase_short: "passphrase",
  backup_target_invalid: "folder",
  backup_target_missing: "folder",
  backup_target_not_folder: "folder",
  backup_target_read_only: "folder",
  backup_permission_denied: "folder",
  backup_no_space: "folder",
  backup_target_unusable: "folder",
};
const SCHEDULED_REFRESH_MS = 5000;

/** Settings → Backups: the schedule of automatic backups (off by default; a passphrase
 * first), "back up now", and the recent backups with their size. */
export function BackupsAdmin() {
  const { t, i18n } = useTranslation();
  const { toast } = useToast();
  const [data, setData] = React.useState<Backups | null>(null);
  const [enabled, setEnabled] = React.useState(false);
  const [interval, setIntervalHours] = React.useState("24");
  const [keep, setKeep] = React.useState("7");
  const [folder, setFolder] = React.useState("");
  const [passphrase, setPassphrase] = React.useState("");
  const [confirmation, setConfirmation] = React.useState("");
  const [fieldErrors, setFieldErrors] = React.useState<{ passphrase?: string; folder?: string }>({});
  const [busy, setBusy] = React.useState(false);
  const fail = React.useCallback((caught: unknown) => toast({ title: t("errors.generic"), description: errorText(t, caught), tone: "error" }), [toast, t]);

  const show = React.useCallback((found: Backups) => {
    setData(found);
    setEnabled(found.schedule.enabled);
    setIntervalHours(String(found.schedule.interval_hours));
    setKeep(String(found.schedule.keep));
    setFolder(found.schedule.target_dir ?? "");
  }, []);
  const load = React.useCallback(() => {
    api<Backups>("/api/backups").then(show).catch(fail);
  }, [show, fail]);
  React.useEffect(load, [load]);

  const running = data?.runs.some((run) => run.status === "running") ?? false;
  const scheduled = data?.schedule.enabled ?? false;
  React.useEffect(() => {
    // The list follows a running backup closely, and the schedule's next ones loosely.
    if (!running && !scheduled) return undefined;
    const timer = window.setInterval(
      () => {
        api<Backups>("/api/backups").then((found) => setData(found)).catch(() => undefined);
      },
      running ? REFRESH_MS : SCHEDULED_REFRESH_MS,
    );
    return () => window.clearInterval(timer);
  }, [running, scheduled]);

  const minLength = data?.schedule.passphrase_min_length ?? 8;
  const mismatch = passphrase !== "" && confirmation !== "" && confirmation !== passphrase;
  const unconfirmed = passphrase !== "" && confirmation !== passphrase;

  async function save(event: React.FormEvent) {
    event.preventDefault();
    if (unconfirmed) return; // Save is disabled meanwhile; Enter in a field lands here
    if (passphrase && passphrase.length < minLength) {
      setFieldErrors({ passphrase: t("apiErrors.codes.backup_passphrase_short", { min_length: minLength }) });
      return;
    }
    setBusy(true);
    setFieldErrors({});
    try {
      const body: Record<string, unknown> = { enabled, interval_hours: Number(interval), keep: Number(keep), target_dir: folder.trim() };
      if (passphrase) body.passphrase = passphrase;
      show(await api<Backups>("/api/backups/schedule", { method: "PUT", body }));
      setPassphrase("");
      setConfirmation("");
      toast({ title: t("backups.saved"), tone: "success" });
    } catch (caught) {
      const field = caught instanceof ApiError ? FIELD_OF_CODE[caught.code] : undefined;
      if (field) setFieldErrors({ [field]: errorText(t, caught) });
      else fail(caught);
    } finally {
      setBusy(false);
    }
  }

  async function backUpNow() {
    try {
      await api("/api/backups", { method: "POST" });
      toast({ title: t("backups.started"), tone: "success" });
    } catch (caught) {
      fail(caught);
    }
    load();
  }

  const schedule = data?.schedule;
  return (
    <div className="flex flex-col gap-6">
      <div className="flex max-w-prose flex-col gap-2 text-sm text-muted-foreground">
        <p>
          <Trans i18nKey="backups.intro" components={{ code: <code className="rounded bg-muted px-1 font-mono text-xs" /> }} />
        </p>
        <p>{t("backups.keyNote")}</p>
      </div>
      <form onSubmit={(event) => void save(event)} className="flex max-w-xl flex-col gap-4 rounded-xl border border-border/70 bg-card p-4" aria-label={t("backups.scheduleTitle")}>
        <h3 className="font-semibold">{t("backups.scheduleTitle")}</h3>
        <label className="flex items-center gap-3 text-sm">
          <Switch checked={enabled} onCheckedChange={setEnabled} aria-label={t("backups.enabled")} />
          {t("backups.enabled")}
        </label>
        <Field label={t("backups.interval")} htmlFor="backup-interval">
          <NativeSelect id="backup-interval" value={interval} onChange={(event) => setIntervalHours(event.target.value)}>
            {INTERVALS.map(([hours, key]) => (
              <option key={hours} value={String(hours)}>
                {t(key)}
              </option>
            ))}
            {INTERVALS.some(([hours]) => String(hours) === interval) ? null : <option value={interval}>{interval} h</option>}
          </NativeSelect>
        </Field>
        <Field label={t("backups.keep")} htmlFor="backup-keep" hint={t("backups.keepHint")}>
          <Input id="backup-keep" type="number" inputMode="numeric" min={1} max={365} value={keep} onChange={(event) => setKeep(event.target.value)} />
        </Field>
        <Field label={t("backups.folder")} htmlFor="backup-folder" hint={schedule ? t("backups.folderHint", { folder: schedule.default_target_dir }) : undefined} error={fieldErrors.folder}>
          <Input
            id="backup-folder"
            value={folder}
            aria-invalid={fieldErrors.folder ? true : undefined}
            onChange={(event) => {
              setFolder(event.target.value);
              setFieldErrors((errors) => ({ ...errors, folder: undefined }));
            }}
            placeholder={schedule?.default_target_dir}
          />
        </Field>
        <Field
          label={t("backups.passphrase")}
          htmlFor="backup-passphrase"
          hint={`${passphraseState(schedule, t)} ${t("backups.passphraseMin", { count: minLength })}`}
          error={fieldErrors.passphrase}
        >
          <Input
            id="backup-passphrase"
            type="password"
            autoComplete="new-password"
            value={passphrase}
            aria-invalid={fieldErrors.passphrase ? true : undefined}
            onChange={(event) => {
              setPassphrase(event.target.value);
              setFieldErrors((errors) => ({ ...errors, passphrase: undefined }));
            }}
          />
        </Field>
        {passphrase !== "" ? (
          <Field label={t("backups.passphraseAgain")} htmlFor="backup-passphrase-again" hint={t("backups.passphraseAgainHint")} error={mismatch ? t("backups.passphraseMismatch") : undefined}>
            <Input id="backup-passphrase-again" type="password" autoComplete="new-password" value={confirmation} aria-invalid={mismatch ? true : undefined} onChange={(event) => setConfirmation(event.target.value)} />
          </Field>
        ) : null}
        <div className="flex flex-wrap gap-2">
          <Button type="submit" disabled={busy || data === null || unconfirmed}>
            {t("backups.save")}
          </Button>
          <Button type="button" variant="outline" onClick={() => void backUpNow()} disabled={running || !schedule?.passphrase_set} aria-describedby={schedule && !schedule.passphrase_set ? "backup-now-needs" : undefined}>
            <DownloadCloudIcon /> {t("backups.now")}
          </Button>
        </div>
        {schedule && !schedule.passphrase_set ? (
          <p id="backup-now-needs" className="text-xs text-muted-foreground">
            {t("backups.nowNeedsPassphrase")}
          </p>
        ) : null}
      </form>
      <section className="flex flex-col gap-2">
        <h3 className="font-semibold">{t("backups.recentTitle")}</h3>
        {data?.runs.length === 0 ? <p className="text-sm text-muted-foreground">{t("backups.none")}</p> : null}
        <ul className="flex flex-col gap-2" aria-label={t("backups.listLabel")}>
          {data?.runs.map((run) => (
            <li key={run.id} className="flex flex-wrap items-center gap-3 rounded-xl border border-border/70 bg-card px-4 py-3" data-backup={run.status}>
              <ArchiveIcon className="size-4 shrink-0 text-muted-foreground" aria-hidden />
              <div className="min-w-0 flex-1">
                <p className="flex flex-wrap items-center gap-2">
                  <span className="font-medium">{formatDateTime(run.started_at, i18n.language)}</span>
                  <Badge variant="outline">{t(run.trigger === "scheduled" ? "backups.scheduled" : "backups.manual")}</Badge>
                  <Badge variant={run.status === "done" ? "success" : run.status === "failed" ? "destructive" : "outline"}>{t(`backups.${run.status}`)}</Badge>
                </p>
                <p className="mt-0.5 text-xs text-muted-foreground">
                  {run.size !== null ? formatBytes(run.size, i18n.language) : null}
                  {run.status === "done" && !run.present ? ` · ${t(run.size === null ? "backups.elsewhere" : "backups.removed")}` : null}
                  {run.error_code ? t(`apiErrors.codes.${run.error_code}`) : null}
                </p>
              </div>
              {run.status === "done" && run.present ? (
                <Button asChild variant="outline" size="sm">
                  <a href={`/api/backups/${run.id}/file`} download>
                    <DownloadIcon /> {t("backups.download")}
                  </a>
                </Button>
              ) : null}
            </li>
          ))}
        </ul>
      </section>
    </div>
  );
}
