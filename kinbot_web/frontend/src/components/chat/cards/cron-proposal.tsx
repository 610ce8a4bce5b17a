/** Under a Kin's `create_cron` call: its proposal waits for a person, who confirms or declines
 * it here or in the Kin's settings (Crons tab). Asked once when shown, so that a proposal
 * confirmed or declined since no longer says it waits. */

import { CalendarClockIcon, CheckIcon, XIcon } from "lucide-react";
import * as React from "react";
import { useTranslation } from "react-i18next";
import { Link, useInRouterContext } from "react-router";

import { Button } from "@/components/ui/button";
import { useToast } from "@/components/ui/toast";
import { api } from "@/lib/api";
import { errorText } from "@/lib/errors";
import type { Message } from "@/lib/types";

/** The proposed cron's id, when `result` (the call's stored result) says it awaits confirmation. */
export function proposedCronId(result: Message | undefined): string | null {
  if (!result || result.is_error) return null;
  try {
    const value: unknown = JSON.parse(result.content);
    if (typeof value !== "object" || value === null) return null;
    const { cron_id: id, state } = value as { cron_id?: unknown; state?: unknown };
    return typeof id === "string" && state === "awaiting_confirmation" ? id : null;
  } catch {
    return null;
  }
}

interface ProposedCron {
  name: string;
  state: string;
}

export function CronProposalLine({ cronId, kinId, kinName }: { cronId: string; kinId: string; kinName: string }) {
  const { t } = useTranslation();
  const { toast } = useToast();
  const inRouter = useInRouterContext();
  const [waiting, setWaiting] = React.useState<ProposedCron | null>(null);
  const [busy, setBusy] = React.useState(false);
  const path = `/api/crons/${encodeURIComponent(cronId)}`;
  React.useEffect(() => {
    api<{ cron: ProposedCron }>(path)
      .then(({ cron }) => setWaiting(cron.state === "awaiting_confirmation" ? cron : null))
      .catch(() => setWaiting(null)); // declined (deleted), or not the reader's to see
  }, [path]);
  if (waiting === null) return null;

  async function decide(confirm: boolean, cron: ProposedCron) {
    setBusy(true);
    try {
      await api(confirm ? `${path}/confirm` : path, { method: confirm ? "POST" : "DELETE" });
      toast({ title: t(confirm ? "cards.cronProposal.confirmed" : "kinSettings.declined", { name: cron.name }), tone: "success" });
      setWaiting(null);
    } catch (error) {
      toast({ title: t("errors.generic"), description: errorText(t, error), tone: "error" });
      setBusy(false);
    }
  }

  const href = `/kins/${kinId}/settings#crons`;
  const label = t("cards.cronProposal.open", { name: kinName });
  const className = "font-semibold text-foreground underline underline-offset-2";
  return (
    <div className="flex flex-col gap-1.5 px-3 pt-1 text-xs text-muted-foreground" data-cron-proposal={cronId} role="group" aria-label={t("cards.cronProposal.label", { name: waiting.name })}>
      <p className="flex items-start gap-1.5">
        <CalendarClockIcon aria-hidden className="mt-px size-3.5 shrink-0" />
        <span>
          {t("cards.cronProposal.waits")}{" "}
          {inRouter ? (
            <Link to={href} className={className}>
              {label}
            </Link>
          ) : (
            <a href={href} className={className}>
              {label}
            </a>
          )}
        </span>
      </p>
      <div className="flex flex-wrap gap-1.5 pl-5">
        <Button size="sm" disabled={busy} onClick={() => void decide(true, waiting)}>
          <CheckIcon /> {t("kinSettings.confirm")}
        </Button>
        <Button size="sm" variant="outline" disabled={busy} onClick={() => void decide(false, waiting)}>
          <XIcon /> {t("kinSettings.decline")}
        </Button>
      </div>
    </div>
  );
}
