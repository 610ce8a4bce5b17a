/** A tool call waiting for a person's approval, in the chat under the call: what the Kin
 * wants to do and with what, and the answers (allow once, decline with a reason the Kin
 * receives, and for an administrator always allow for this Kin, which sets its rule). It
 * disappears once anyone answers. */

import { CheckIcon, ShieldQuestionIcon, XIcon } from "lucide-react";
import * as React from "react";
import { useTranslation } from "react-i18next";

import { Button } from "@/components/ui/button";
import { Textarea } from "@/components/ui/textarea";
import { useToast } from "@/components/ui/toast";
import { actionWords, argumentLines } from "@/lib/approval-words";
import { decideApproval, type Approval, type Decision } from "@/lib/approvals";
import { errorText } from "@/lib/errors";
import { formatDateTime } from "@/lib/format";

export function ApprovalCard({ approval, kinName, canAlwaysAllow }: { approval: Approval; kinName: string; canAlwaysAllow: boolean }) {
  const { t, i18n } = useTranslation();
  const { toast } = useToast();
  const [declining, setDeclining] = React.useState(false);
  const [reason, setReason] = React.useState("");
  const [busy, setBusy] = React.useState(false);
  const action = actionWords(approval.tool_name, approval.arguments);
  const lines = argumentLines(approval.arguments);
  const titleId = `approval-${approval.id}`;
  const expires = formatDateTime(approval.expires_at, i18n.language);

  async function answer(decision: Decision) {
    setBusy(true);
    try {
      await decideApproval(approval, decision, decision === "decline" ? reason.trim() : undefined);
      // The card leaves with the button that had the focus: the keyboard goes on from the composer.
      document.getElementById("composer")?.focus();
    } catch (error) {
      toast({ title: t("errors.generic"), description: errorText(t, error), tone: "error" });
      setBusy(false);
    }
  }

  return (
    <section className="mt-1.5 rounded-xl border border-warning/60 bg-warning/10 px-3 py-2.5 text-sm" aria-labelledby={titleId} data-approval-card={approval.id}>
      <h3 id={titleId} className="flex items-center gap-1.5 font-semibold">
        <ShieldQuestionIcon className="size-4 shrink-0 text-warning" aria-hidden /> {t("approvals.card.title", { kin: kinName })}
      </h3>
      <p className="mt-1.5 text-xs text-muted-foreground">{t("approvals.card.wants")}</p>
      <p className="font-medium break-words" data-approval-action>
        {t(action.key, action.params)}
      </p>
      {approval.reason ? <p className="mt-1 text-xs break-words">{t("approvals.card.because", { reason: approval.reason })}</p> : null}
      <p className="mt-1.5 text-xs text-muted-foreground">{t("approvals.card.details")}</p>
      {lines.length ? (
        <dl className="grid grid-cols-[auto_1fr] gap-x-2 gap-y-0.5 text-xs">
          {lines.map((line) => (
            <React.Fragment key={line.name}>
              <dt className="font-semibold">{t(`approvals.card.argument.${line.name}`, { defaultValue: line.label })}</dt>
              <dd className="min-w-0 break-words whitespace-pre-wrap">{line.value === "true" ? t("approvals.card.yes") : line.value === "false" ? t("approvals.card.no") : line.value}</dd>
            </React.Fragment>
          ))}
        </dl>
      ) : (
        <p className="text-xs italic">{t("approvals.card.noDetails")}</p>
      )}
      <p className="mt-1.5 text-xs text-muted-foreground">{t("approvals.card.expires", { time: expires })}</p>
      {declining ? (
        <div className="mt-2 flex flex-col gap-2">
          <label className="text-xs font-semibold" htmlFor={`${titleId}-reason`}>
            {t("approvals.card.declineReason", { kin: kinName })}
          </label>
          <Textarea id={`${titleId}-reason`} value={reason} maxLength={2000} onChange={(event) => setReason(event.target.value)} className="min-h-16" />
          <div className="flex flex-wrap gap-2">
            <Button size="sm" variant="destructive" disabled={busy} onClick={() => void answer("decline")}>
              <XIcon /> {t("approvals.card.declineConfirm")}
            </Button>
            <Button size="sm" variant="ghost" disabled={busy} onClick={() => setDeclining(false)}>
              {t("approvals.card.cancel")}
            </Button>
          </div>
        </div>
      ) : (
        <div className="mt-2 flex flex-wrap gap-2">
          <Button size="sm" disabled={busy} onClick={() => void answer("allow_once")}>
            <CheckIcon /> {t("approvals.card.allowOnce")}
          </Button>
          {canAlwaysAllow ? (
            <Button size="sm" variant="outline" disabled={busy} onClick={() => void answer("always")}>
              {t("approvals.card.always", { kin: kinName })}
            </Button>
          ) : null}
          <Button size="sm" variant="ghost" disabled={busy} onClick={() => setDeclining(true)}>
            {t("approvals.card.decline")}
          </Button>
        </div>
      )}
    </section>
  );
}
