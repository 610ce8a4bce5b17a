/** Under a Kin's `create_cron` call: its proposal waits for a person, and where to confirm
 * it (the Kin's settings, Crons tab). Asked once when shown, so that a proposal confirmed or
 * declined since no longer says it waits. */

import { CalendarClockIcon } from "lucide-react";
import * as React from "react";
import { useTranslation } from "react-i18next";
import { Link, useInRouterContext } from "react-router";

import { api } from "@/lib/api";
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

export function CronProposalLine({ cronId, kinId, kinName }: { cronId: string; kinId: string; kinName: string }) {
  const { t } = useTranslation();
  const inRouter = useInRouterContext();
  const [waiting, setWaiting] = React.useState(true);
  React.useEffect(() => {
    api<{ cron: { state: string } }>(`/api/crons/${encodeURIComponent(cronId)}`)
      .then(({ cron }) => setWaiting(cron.state === "awaiting_confirmation"))
      .catch(() => setWaiting(false)); // declined (deleted), or not the reader's to see
  }, [cronId]);
  if (!waiting) return null;
  const href = `/kins/${kinId}/settings#crons`;
  const label = t("cards.cronProposal.open", { name: kinName });
  const className = "font-semibold text-foreground underline underline-offset-2";
  return (
    <p className="flex items-start gap-1.5 px-3 pt-1 text-xs text-muted-foreground" data-cron-proposal={cronId}>
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
  );
}
