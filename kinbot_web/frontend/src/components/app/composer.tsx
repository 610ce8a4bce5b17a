import { FileIcon, LoaderCircleIcon, PaperclipIcon, SendHorizonalIcon, SquareIcon, XIcon } from "lucide-react";
import * as React from "react";
import { useTranslation } from "react-i18next";

import { Button } from "@/components/ui/button";
import type { Attachment } from "@/lib/types";

export interface PendingFile {
  key: number;
  name: string;
  /** Set once uploaded. */
  upload?: Attachment;
}

export interface ComposerProps {
  kinName: string;
  /** A turn is running: offer to stop it. */
  busy?: boolean;
  /** Sends the message; `false` when it was not sent (its text comes back into the box). */
  onSend?: (text: string, attachments: string[]) => boolean | void | Promise<boolean | void>;
  onStop?: () => void;
  /** Uploads a file into the Kin's chat (the paperclip, or a file dropped on the chat). */
  files?: PendingFile[];
  onAddFiles?: (files: File[]) => void;
  onRemoveFile?: (key: number) => void;
  defaultValue?: string;
  /** Take the focus when shown (a chat opens), except where a screen keyboard would cover the chat. */
  autoFocus?: boolean;
}

/** The message box: Enter sends, Shift+Enter breaks the line; files go along with the text. */
export function Composer({ kinName, busy, onSend, onStop, files = [], onAddFiles, onRemoveFile, defaultValue = "", autoFocus = false }: ComposerProps) {
  const { t } = useTranslation();
  const [text, setText] = React.useState(defaultValue);
  const picker = React.useRef<HTMLInputElement>(null);
  const box = React.useRef<HTMLTextAreaElement>(null);
  React.useEffect(() => {
    const touchOnly = typeof window.matchMedia === "function" && window.matchMedia("(pointer: coarse)").matches;
    if (autoFocus && !touchOnly) box.current?.focus({ preventScroll: true });
  }, [autoFocus]);
  const uploading = files.some((file) => !file.upload);
  const ready = files.map((file) => file.upload?.id).filter((id): id is string => Boolean(id));
  const canSend = !uploading && (text.trim() !== "" || ready.length > 0);

  const submit = async () => {
    if (!canSend || !onSend) return;
    const value = text.trim();
    setText("");
    if ((await onSend(value, ready)) === false) setText((typed) => typed || value);
  };
  return (
    <form
      className="flex flex-col gap-2 rounded-2xl border border-border/70 bg-card p-2 shadow-soft transition-shadow focus-within:shadow-lifted focus-within:ring-2 focus-within:ring-ring"
      onSubmit={(event) => {
        event.preventDefault();
        void submit();
      }}
    >
      {files.length ? (
        <ul className="flex flex-wrap gap-2 px-1 pt-1" aria-label={t("chat.attach")}>
          {files.map((file) => (
            <li key={file.key} className="inline-flex max-w-60 items-center gap-1.5 rounded-lg bg-muted px-2 py-1 text-xs font-semibold">
              {file.upload ? <FileIcon className="size-3.5 shrink-0" aria-hidden /> : <LoaderCircleIcon className="size-3.5 shrink-0 animate-spin" aria-hidden />}
              <span className="truncate">{file.name}</span>
              <button
                type="button"
                className="rounded p-0.5 hover:bg-accent"
                onClick={(event) => {
                  // The keyboard goes to the next file's button, else the previous one's, else the message box.
                  const item = event.currentTarget.closest("li");
                  const neighbour = (item?.nextElementSibling ?? item?.previousElementSibling)?.querySelector("button");
                  onRemoveFile?.(file.key);
                  (neighbour ?? box.current)?.focus();
                }}
                aria-label={`${t("common.delete")} ${file.name}`}
              >
                <XIcon className="size-3" />
              </button>
            </li>
          ))}
        </ul>
      ) : null}
      <div className="flex items-end gap-2">
        <Button type="button" variant="ghost" size="icon" aria-label={t("chat.attach")} onClick={() => picker.current?.click()}>
          <PaperclipIcon />
        </Button>
        <input
          ref={picker}
          type="file"
          multiple
          className="sr-only"
          tabIndex={-1}
          aria-hidden
          data-testid="composer-files"
          onChange={(event) => {
            const chosen = Array.from(event.target.files ?? []);
            event.target.value = "";
            if (chosen.length) onAddFiles?.(chosen);
          }}
        />
        <label className="sr-only" htmlFor="composer">
          {t("chat.placeholder", { name: kinName })}
        </label>
        <textarea
          ref={box}
          id="composer"
          rows={1}
          value={text}
          onChange={(event) => setText(event.target.value)}
          onKeyDown={(event) => {
            if (event.key === "Enter" && !event.shiftKey && !event.nativeEvent.isComposing) {
              event.preventDefault();
              void submit();
            }
          }}
          placeholder={t("chat.placeholder", { name: kinName })}
          className="max-h-48 min-h-10 flex-1 resize-none bg-transparent px-1 py-2.5 text-[0.935rem] outline-none placeholder:text-muted-foreground/80"
        />
        {busy ? (
          <Button type="button" variant="secondary" size="icon" onClick={onStop} aria-label={t("chat.stop")}>
            <SquareIcon />
          </Button>
        ) : null}
        <Button type="submit" size="icon" aria-label={t("chat.send")} disabled={!canSend}>
          <SendHorizonalIcon />
        </Button>
      </div>
    </form>
  );
}
