/** A message's attached files: images as thumbnails opening a larger preview (Escape closes),
 * audio recordings (a voice note from a messaging channel) with a player, other files as chips
 * with their type and size in the UI language. */

import { FileIcon, FileTextIcon } from "lucide-react";
import * as React from "react";
import { useTranslation } from "react-i18next";

import { Dialog, DialogContent, DialogTitle } from "@/components/ui/dialog";
import type { Attachment } from "@/lib/types";

/** `bytes` in kilobytes or a larger fitting unit, written as `language` writes numbers
 * ("1.5 MB", "1,5 Mo"; a small file "0.5 kB"). */
export function formatSize(bytes: number, language: string): string {
  const units = ["kilobyte", "megabyte", "gigabyte"] as const;
  let value = Math.max(0.1, bytes / 1000);
  let unit = 0;
  while (value >= 1000 && unit < units.length - 1) {
    value /= 1000;
    unit += 1;
  }
  return new Intl.NumberFormat(language, { style: "unit", unit: units[unit], unitDisplay: "short", maximumFractionDigits: 1 }).format(value);
}

function ImageThumbnail({ file }: { file: Attachment }) {
  const { t } = useTranslation();
  const [open, setOpen] = React.useState(false);
  return (
    <Dialog open={open} onOpenChange={setOpen}>
      <button
        type="button"
        onClick={() => setOpen(true)}
        className="block overflow-hidden rounded-xl border border-border/70 bg-muted focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-ring"
        aria-label={t("cards.files.preview", { name: file.filename })}
        data-attachment-image
      >
        <img src={file.url} alt="" loading="lazy" decoding="async" className="size-24 object-cover sm:size-28" />
      </button>
      <DialogContent className="max-w-[min(64rem,calc(100%-2rem))] p-3" closeLabel={t("common.close")} aria-describedby={undefined}>
        <DialogTitle className="truncate pr-10 text-sm font-semibold">{t("cards.files.previewTitle", { name: file.filename })}</DialogTitle>
        <img src={file.url} alt={file.filename} className="mx-auto max-h-[75dvh] w-auto rounded-xl object-contain" />
      </DialogContent>
    </Dialog>
  );
}

function FileChip({ file }: { file: Attachment }) {
  const { t, i18n } = useTranslation();
  const Icon = file.kind === "pdf" || file.kind === "document" ? FileTextIcon : FileIcon;
  return (
    <a
      href={file.url}
      target="_blank"
      rel="noopener noreferrer"
      className="flex max-w-64 items-center gap-2 rounded-xl border border-border/70 bg-card px-3 py-2 text-xs hover:bg-accent focus-visible:outline-2 focus-visible:outline-ring"
      data-attachment-file
    >
      <Icon className="size-5 shrink-0 text-muted-foreground" aria-hidden />
      <span className="min-w-0">
        <span className="block truncate font-semibold">{file.filename}</span>
        <span className="block text-muted-foreground">
          {t(`cards.files.kind.${file.kind}`, { defaultValue: t("cards.files.kind.document") })} · {formatSize(file.size, i18n.language)}
        </span>
      </span>
    </a>
  );
}

function AudioPlayer({ file }: { file: Attachment }) {
  return (
    <div className="flex flex-col gap-1" data-attachment-audio>
      <audio controls preload="none" src={file.url} className="h-10 max-w-64" aria-label={file.filename} />
      <FileChip file={file} />
    </div>
  );
}

/** The files attached to a message. */
export function Attachments({ files }: { files: Attachment[] }) {
  if (files.length === 0) return null;
  return (
    <ul className="mt-1 flex flex-wrap gap-2">
      {files.map((file) => (
        <li key={file.id}>{file.kind === "image" ? <ImageThumbnail file={file} /> : file.kind === "audio" ? <AudioPlayer file={file} /> : <FileChip file={file} />}</li>
      ))}
    </ul>
  );
}
