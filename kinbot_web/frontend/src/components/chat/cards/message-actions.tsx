/** Under a message: copy its text (the shared copy button, announced as "Copied"), and on
 * the Kin's latest reply a discreet "Answer again". */

import { RotateCcwIcon } from "lucide-react";
import { useTranslation } from "react-i18next";

import { CopyButton } from "@/components/ui/copy-button";

import { useRetry } from "./retry";

const BUTTON = "inline-flex size-7 items-center justify-center rounded-lg text-muted-foreground transition-colors hover:bg-accent hover:text-foreground focus-visible:outline-2 focus-visible:outline-ring disabled:opacity-50 [&_svg]:size-3.5";

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
  const { t } = useTranslation();
  if (!text && !regenerate) return null;
  return (
    <div className="flex items-center gap-0.5 opacity-70 transition-opacity focus-within:opacity-100 hover:opacity-100" data-message-actions>
      {text ? <CopyButton text={text} label={t("cards.actions.copy")} className="size-7 [&_svg]:size-3.5" /> : null}
      {regenerate ? <RegenerateButton kinId={regenerate.kinId} kinName={regenerate.kinName} /> : null}
    </div>
  );
}
