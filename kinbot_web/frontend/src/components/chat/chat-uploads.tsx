import { FileUpIcon } from "lucide-react";
import * as React from "react";
import { useTranslation } from "react-i18next";

import type { PendingFile } from "@/components/app/composer";
import { useToast } from "@/components/ui/toast";
import { api } from "@/lib/api";
import { errorText } from "@/lib/errors";
import type { Attachment } from "@/lib/types";
import { cn } from "@/lib/utils";

/** The files a person adds to their next message to a Kin (picked or dropped on the chat),
 * each uploaded as it is added; a failed upload is dropped with a toast saying why. */
export function useChatUploads(kinId: string) {
  const { t } = useTranslation();
  const { toast } = useToast();
  const [files, setFiles] = React.useState<PendingFile[]>([]);
  const [dragging, setDragging] = React.useState(false);
  const nextFileKey = React.useRef(1);

  function addFiles(chosen: File[]) {
    for (const file of chosen) {
      const key = nextFileKey.current++;
      setFiles((current) => [...current, { key, name: file.name }]);
      const body = new FormData();
      body.append("file", file);
      api<{ upload: Attachment }>(`/api/kins/${kinId}/uploads`, { body })
        .then(({ upload }) => setFiles((current) => current.map((pending) => (pending.key === key ? { ...pending, upload } : pending))))
        .catch((error: Error) => {
          setFiles((current) => current.filter((pending) => pending.key !== key));
          toast({ title: file.name, description: errorText(t, error), tone: "error" });
        });
    }
  }

  /** What the chat's area does with files dragged over it and dropped on it. */
  const dropZone = {
    onDragOver(event: React.DragEvent) {
      if (!event.dataTransfer.types.includes("Files")) return;
      event.preventDefault();
      setDragging(true);
    },
    onDragLeave(event: React.DragEvent) {
      if (event.currentTarget === event.target) setDragging(false);
    },
    onDrop(event: React.DragEvent) {
      if (!event.dataTransfer.files.length) return;
      event.preventDefault();
      setDragging(false);
      addFiles(Array.from(event.dataTransfer.files));
    },
  };

  return {
    files,
    addFiles,
    removeFile: (key: number) => setFiles((current) => current.filter((file) => file.key !== key)),
    clear: () => setFiles([]),
    dragging,
    dropZone,
  };
}

/** The frame shown over the chat while files are dragged over it. */
export function DropOverlay({ shown }: { shown: boolean }) {
  return (
    <div
      className={cn(
        "pointer-events-none absolute inset-3 z-20 flex items-center justify-center rounded-3xl border-2 border-dashed border-primary bg-background/85 text-primary transition-opacity duration-150",
        shown ? "opacity-100" : "opacity-0",
      )}
      aria-hidden
      data-testid="drop-overlay"
    >
      <FileUpIcon className="size-10" />
    </div>
  );
}
