/**
 * A button that copies a text to the clipboard and says so: its icon turns into a check, and a
 * polite live region announces "Copied" (or that copying failed) to screen readers. Used on code
 * blocks and on whole messages.
 */
import { CheckIcon, CopyIcon } from "lucide-react";
import * as React from "react";
import { useTranslation } from "react-i18next";

import { Button } from "@/components/ui/button";
import { cn } from "@/lib/utils";

/** How long the button shows "Copied" before it offers to copy again. */
const CONFIRMATION_MS = 2000;

type CopyState = "idle" | "copied" | "failed";

/**
 * Put `text` on the clipboard. The Clipboard API needs a secure context (https or localhost); a
 * family server reached as http://192.168.x.y is not one, so a selected hidden text area and the
 * older copy command stand in there.
 */
export async function copyText(text: string): Promise<void> {
  if (window.isSecureContext && navigator.clipboard) {
    await navigator.clipboard.writeText(text);
    return;
  }
  const area = document.createElement("textarea");
  area.value = text;
  area.setAttribute("readonly", "");
  area.style.position = "fixed";
  area.style.opacity = "0";
  document.body.append(area);
  const previous = document.activeElement instanceof HTMLElement ? document.activeElement : null;
  area.select();
  try {
    if (!document.execCommand("copy")) throw new Error("copy refused");
  } finally {
    area.remove();
    previous?.focus();
  }
}

export interface CopyButtonProps {
  /** The text to copy, or a function giving it at the moment of the click. */
  text: string | (() => string);
  /** What the button copies, for screen readers and the tooltip ("Copy code", "Copy message"). */
  label: string;
  /** Show the word ("Copy", then "Copied") beside the icon, not only the icon. */
  showText?: boolean;
  className?: string;
}

/** A small ghost button copying `text`; keyboard reachable, its result announced. */
export function CopyButton({ text, label, showText = false, className }: CopyButtonProps) {
  const { t } = useTranslation();
  const [state, setState] = React.useState<CopyState>("idle");
  const timer = React.useRef<number | undefined>(undefined);
  React.useEffect(() => () => window.clearTimeout(timer.current), []);

  const copy = async () => {
    window.clearTimeout(timer.current);
    try {
      await copyText(typeof text === "function" ? text() : text);
      setState("copied");
    } catch {
      setState("failed");
    }
    timer.current = window.setTimeout(() => setState("idle"), CONFIRMATION_MS);
  };

  const announcement = state === "copied" ? t("markdown.copied") : state === "failed" ? t("markdown.copyFailed") : "";
  return (
    <>
      <Button
        type="button"
        variant="ghost"
        size={showText ? "sm" : "icon-sm"}
        className={cn("text-muted-foreground hover:text-foreground", showText && "h-7 gap-1.5 px-2", className)}
        aria-label={label}
        title={label}
        data-copy-state={state}
        onClick={() => void copy()}
      >
        {state === "copied" ? <CheckIcon aria-hidden="true" /> : <CopyIcon aria-hidden="true" />}
        {showText ? <span aria-hidden="true">{state === "copied" ? t("markdown.copied") : t("markdown.copy")}</span> : null}
      </Button>
      <span role="status" className="sr-only">
        {announcement}
      </span>
    </>
  );
}
