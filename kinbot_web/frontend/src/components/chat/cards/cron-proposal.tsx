/** Under a Kin's `create_cron` call: its proposal waits for a person, who confirms or declines
 * it here or in the Kin's settings (Crons tab). Asked once when shown, so that a proposal
 * confirmed or declined since says so instead of waiting. */

import { CalendarClockIcon, CheckIcon, XIcon } from "lucide-react";
import * as React from "react";
import { useTranslation } from "react-i18next";
import { Link, useInRouterContext } from "react-router";

import { Button } from "@/components/ui/button";
import { useToast } from "@/components/ui/toast";
import { api, ApiError } from "@/lib/api";
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

/** What became of a proposal: still waiting, confirmed (a cron now), or gone (declined, or the
 * cron deleted since: both read as 404); `here` when the person decided in this line. */
type Outcome = { kind: "waiting"; cron: ProposedCron } | { kind: "confirmed"; cron: ProposedCron; here?: boolean } | { kind: "gone"; name?: string; here?: boolean };

export function CronProposalLine({ cronId, kinId, kinName }: { cronId: string; kinId: string; kinName: string }) {
  const { t } = useTranslation();
  const { toast } = useToast();
  const inRouter = useInRouterContext();
  const [outcome, setOutcome] = React.useState<Outcome | null>(null);
  const [busy, setBusy] = React.useState(false);
  const path = `/api/crons/${encodeURIComponent(cronId)}`;
  React.useEffect(() => {
    api<{ cron: ProposedCron }>(path)
      .then(({ cron }) => setOutcome(cron.state === "awaiting_confirmation" ? { kind: "waiting", cron } : { kind: "confirmed", cron }))
      .catch((error: unknown) => setOutcome(error instanceof ApiError && error.status === 404 ? { kind: "gone" } : null));
  }, [path]);
  // Decided here, the line that takes the buttons' place gets the keyboard.
  const decided = React.useCallback((line: HTMLParagraphElement | null) => line?.focus(), []);
  if (outcome === null) return null;

  async function decide(confirm: boolean, cron: ProposedCron) {
    setBusy(true);
    try {
      await api(confirm ? `${path}/confirm` : path, { method: confirm ? "POST" : "DELETE" });
      toast({ title: t(confirm ? "cards.cronProposal.confirmed" : "kinSettings.declined", { name: cron.name }), tone: "success" });
      setOutcome(confirm ? { kind: "confirmed", cron, here: true } : { kind: "gone", name: cron.name, here: true });
    } catch (error) {
      toast({ title: t("errors.generic"), description: errorText(t, error), tone: "error" });
      setBusy(false);
    }
  }

  const href = `/kins/${kinId}/settings#crons`;
  const label = t("cards.cronProposal.open", { name: kinName });
  const className = "font-semibold text-foreground underline underline-offset-2";
  const crons = inRouter ? (
    <Link to={href} className={className}>
      {label}
    </Link>
  ) : (
    <a href={href} className={className}>
      {label}
    </a>
  );
  if (outcome.kind !== "waiting") {
    const confirmed = outcome.kind === "confirmed";
    const Icon = confirmed ? CheckIcon : XIcon;
    const said = outcome.kind === "confirmed" ? t("cards.cronProposal.confirmed", { name: outcome.cron.name }) : outcome.name ? t("kinSettings.declined", { name: outcome.name }) : t("cards.cronProposal.gone");
    return (
      <p ref={outcome.here ? decided : undefined} tabIndex={outcome.here ? -1 : undefined} className="flex items-start gap-1.5 px-3 pt-1 text-xs text-muted-foreground" data-cron-outcome={outcome.kind}>
        <Icon aria-hidden className="mt-px size-3.5 shrink-0" />
        <span>
          {said} {confirmed ? crons : null}
        </span>
      </p>
    );
  }
  const waiting = outcome.cron;
  return (
    <div className="flex flex-col gap-1.5 px-3 pt-1 text-xs text-muted-foreground" data-cron-proposal={cronId} role="group" aria-label={t("cards.cronProposal.label", { name: waiting.name })}>
      <p className="flex items-start gap-1.5">
        <CalendarClockIcon aria-hidden className="mt-px size-3.5 shrink-0" />
        <span>
          {t("cards.cronProposal.waits")} {crons}
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
