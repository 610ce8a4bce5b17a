/**
 * A fenced code block of a message: a header naming its language (as the author wrote it after
 * the fence, or "Code") with a copy button, above the code, which scrolls sideways on a narrow
 * screen and can take the keyboard focus to do so.
 */
import type * as React from "react";
import { useTranslation } from "react-i18next";

import { CopyButton } from "@/components/ui/copy-button";

export interface CodeBlockProps {
  /** The fence's language (`python` for ```python), or null when it names none. */
  language: string | null;
  /** The code as written, copied by the button. */
  code: string;
  /** The rendered code (a `<code>` element, highlighted once highlight.js has loaded). */
  children: React.ReactNode;
}

/** A code block with its language shown and a copy button. */
export function CodeBlock({ language, code, children }: CodeBlockProps) {
  const { t } = useTranslation();
  const name = language ?? t("markdown.code");
  return (
    <figure className="code-block" aria-label={language ? t("markdown.codeIn", { language }) : t("markdown.code")} data-language={language ?? undefined}>
      <figcaption className="code-block-header">
        <span className="code-block-language">{name}</span>
        <CopyButton text={code} label={t("markdown.copyCode")} showText />
      </figcaption>
      {/* Focusable so a keyboard can scroll a long line into view. */}
      <pre tabIndex={0}>{children}</pre>
    </figure>
  );
}
