/** A reply's tool calls as cards in plain words ("Remembered: …"), each expandable to the
 * call's arguments and its result, with its state: running, done, failed or without result. */

import { ChevronRightIcon, CircleAlertIcon, LoaderCircleIcon, WrenchIcon } from "lucide-react";
import { useTranslation } from "react-i18next";

import { Badge } from "@/components/ui/badge";
import { usePendingApproval } from "@/lib/approvals";
import { describeToolCall } from "@/lib/tool-descriptions";
import type { Message, ToolCall } from "@/lib/types";
import { cn } from "@/lib/utils";

import { ApprovalCard } from "./approval-card";
import { CronProposalLine, proposedCronId } from "./cron-proposal";
import { useShownById, useToolResult } from "./session-store";

/** Tools whose results may name a secret: their result is never shown. */
const HIDDEN_RESULTS = new Set(["get_secret", "store_secret", "redact_message"]);

const FINISHED = ["done", "failed", "cancelled"];

export type ToolCardState = "running" | "waiting" | "done" | "failed" | "declined" | "expired" | "none";

/** A call's state from its stored result and, without one, from its turn. */
function stateOf(result: Message | undefined, turn: Message | undefined): ToolCardState {
  const refused = result?.meta?.approval?.status;
  if (refused === "declined" || refused === "expired") return refused;
  if (result) return result.is_error ? "failed" : "done";
  if (turn?.status === "waiting") return "waiting";
  return turn?.status && FINISHED.includes(turn.status) ? "none" : "running";
}

/** JSON shown indented; any other text as it is. */
function readable(text: string): string {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === "object" && value !== null ? JSON.stringify(value, null, 2) : text;
  } catch {
    return text;
  }
}

/** The sentence saying what a call did, in the UI language. */
export function useToolSentence(call: Pick<ToolCall, "name" | "arguments">): string {
  const { t } = useTranslation();
  const { key, params, keyParams = {} } = describeToolCall(call.name, call.arguments);
  const translated = Object.fromEntries(Object.entries(keyParams).map(([name, value]) => [name, t(value)]));
  return t(key, { ...params, ...translated });
}

/** One call of `message` (an assistant reply) as an expandable card. */
export function ToolCard({ message, call }: { message: Message; call: ToolCall }) {
  const { t } = useTranslation();
  const result = useToolResult(message.kin_id, call.id);
  const turn = useShownById(message.kin_id, message.turn_of);
  const state = stateOf(result, turn);
  const sentence = useToolSentence(call);
  const hidden = HIDDEN_RESULTS.has(call.name);
  const refused = state === "declined" || state === "expired";
  const reason = result?.meta?.approval?.reason;
  const refusal = state === "expired" ? t("approvals.result.expiredText") : reason ? t("approvals.result.declinedBecause", { reason }) : t("approvals.result.declinedText");
  const Icon = state === "running" ? LoaderCircleIcon : state === "failed" ? CircleAlertIcon : WrenchIcon;
  const proposal = call.name === "create_cron" ? proposedCronId(result) : null;
  return (
    <>
    <details className="group/tool rounded-xl bg-muted/70 text-xs text-muted-foreground" data-tool-card={call.name} data-state={state} data-running-tool={state === "running" ? call.name : undefined}>
      <summary className="flex cursor-pointer list-none items-start gap-1.5 rounded-xl px-3 py-1.5 focus-visible:outline-2 focus-visible:outline-ring [&::-webkit-details-marker]:hidden">
        <ChevronRightIcon className="mt-px size-3.5 shrink-0 transition-transform group-open/tool:rotate-90 motion-reduce:transition-none" aria-hidden />
        <Icon className={cn("mt-px size-3.5 shrink-0", state === "running" && "animate-spin motion-reduce:animate-none", state === "failed" && "text-destructive")} aria-hidden />
        <span className={cn("min-w-0 flex-1 font-semibold break-words text-foreground/80", refused && "line-through decoration-foreground/40")}>{sentence}</span>
        {state === "running" ? <Badge variant="outline">{t("cards.tool.running")}</Badge> : null}
        {state === "waiting" ? <Badge variant="outline">{t("approvals.card.waiting")}</Badge> : null}
        {state === "failed" ? <Badge variant="destructive">{t("cards.tool.failed")}</Badge> : null}
        {state === "none" ? <Badge variant="outline">{t("cards.tool.noResult")}</Badge> : null}
        {refused ? <Badge variant="outline">{t(`approvals.result.${state}`)}</Badge> : null}
      </summary>
      <div className="space-y-1.5 px-3 pt-0.5 pb-2">
        <p className="font-semibold">{t("cards.tool.arguments")}</p>
        <pre className="max-h-64 overflow-auto rounded-lg bg-background/60 p-2 whitespace-pre-wrap break-words">{JSON.stringify(call.arguments ?? {}, null, 2)}</pre>
        <p className="font-semibold">{t("cards.tool.result")}</p>
        {refused ? (
          <p data-tool-result>{refusal}</p>
        ) : hidden && result ? (
          <p className="italic">{t("cards.tool.resultHidden")}</p>
        ) : result ? (
          <pre className={cn("max-h-64 overflow-auto rounded-lg bg-background/60 p-2 whitespace-pre-wrap break-words", result.is_error && "text-destructive")} data-tool-result>
            {readable(result.content)}
          </pre>
        ) : (
          <p className="italic">{state === "running" ? t("cards.tool.pending") : t("cards.tool.noResult")}</p>
        )}
      </div>
    </details>
    {proposal ? <CronProposalLine cronId={proposal} kinId={message.kin_id} kinName={message.sender_name ?? ""} /> : null}
    </>
  );
}

/** The tool calls of an assistant reply, one card each. `canAlwaysAllow`: the reader is an
 * administrator, who may answer a call waiting for approval with "always allow". */
export function ToolCards({ message, canAlwaysAllow = false }: { message: Message; canAlwaysAllow?: boolean }) {
  const calls = message.tool_calls ?? [];
  if (calls.length === 0) return null;
  return (
    <ul className="mt-1 flex w-full flex-col gap-1">
      {calls.map((call) => (
        <li key={call.id}>
          <CallOrApproval message={message} call={call} canAlwaysAllow={canAlwaysAllow} />
        </li>
      ))}
    </ul>
  );
}

/** A call waiting for a person shows only its approval card (the call's own sentence says
 * what it did, which has not happened yet); any other call, its tool card. */
function CallOrApproval({ message, call, canAlwaysAllow }: { message: Message; call: ToolCall; canAlwaysAllow: boolean }) {
  const approval = usePendingApproval(message.turn_of, call.id);
  if (approval) return <ApprovalCard approval={approval} kinName={message.sender_name ?? ""} canAlwaysAllow={canAlwaysAllow} />;
  return <ToolCard message={message} call={call} />;
}
