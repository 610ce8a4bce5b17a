/** Under a message: copy its text (announced as "Copied"), and on the Kin's latest reply a
 * discreet "Answer again". */

import { CheckIcon, CopyIcon, RotateCcwIcon } from "lucide-react";
import * as React from "react";
import { useTranslation } from "react-i18next";

import { cn } from "@/lib/utils";

import { useRetry } from "./retry";

const BUTTON = "inline-flex size-7 items-center justify-center rounded-lg text-muted-foreground transition-colors hover:bg-accent hover:text-foreground focus-visible:outline-2 focus-visible:outline-ring disabled:opacity-50 [&_svg]:size-3.5";

/** Copies `text`; says "Copied" (or that it could not) to screen readers and by its icon. */
export function CopyButton({ text }: { text: string }) {
  const { t } = useTranslation();
  const [outcome, setOutcome] = React.useState<"copied" | "failed" | null>(null);
  React.useEffect(() => {
    if (!outcome) return;
    const reset = window.setTimeout(() => setOutcome(null), 2000);
    return () => window.clearTimeout(reset);
  }, [outcome]);
  async function copy() {
    try {
      await navigator.clipboard.writeText(text);
      setOutcome("copied");
    } catch {
      setOutcome("failed");
    }
  }
  return (
    <>
      <button type="button" className={BUTTON} onClick={() => void copy()} aria-label={t("cards.actions.copy")} title={t("cards.actions.copy")} data-copy>
        {outcome === "copied" ? <CheckIcon aria-hidden className="text-success" /> : <CopyIcon aria-hidden />}
      </button>
      <span role="status" className={cn("text-xs", outcome === "failed" ? "text-destructive" : "sr-only")}>
        {outcome === "copied" ? t("cards.actions.copied") : outcome === "failed" ? t("cards.actions.copyFailed") : ""}
      </span>
    </>
  );
}

/** "Answer again": the Kin's latest reply is replaced by a new one. */
export function RegenerateButton({ kinId, kinName }: { kinId: string; kinName: string }) {
  const { t } = useTranslation();
  const { retry, pending } = useRetry(kinId, kinName);
  return (
    <button type="button" className={BUTTON} onClick={() => void retry()} disabled={pending} aria-label={t("cards.actions.regenerate")} title={t("cards.actions.regenerate")} data-regenerate>
      <RotateCcwIcon aria-hidden className={pending ? "animate-spin motion-reduce:animate-none" : undefined} />
    </button>
  );
}

/** A message's row of actions, faint until the message is hovered or focused. */
export function MessageActions({ text, regenerate }: { text: string; regenerate?: { kinId: string; kinName: string } | null }) {
  if (!text && !regenerate) return null;
  return (
    <div className="flex items-center gap-0.5 opacity-70 transition-opacity focus-within:opacity-100 hover:opacity-100" data-message-actions>
      {text ? <CopyButton text={text} /> : null}
      {regenerate ? <RegenerateButton kinId={regenerate.kinId} kinName={regenerate.kinName} /> : null}
    </div>
  );
}
