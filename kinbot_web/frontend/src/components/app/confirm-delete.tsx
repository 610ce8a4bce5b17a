import * as React from "react";
import { useTranslation } from "react-i18next";

import { Button } from "@/components/ui/button";
import { Dialog, DialogClose, DialogContent, DialogDescription, DialogFooter, DialogHeader, DialogTitle } from "@/components/ui/dialog";

/** A "delete this?" dialog, open while `target` is set; confirming closes it and hands the
 * target to `onConfirm` (its button says `confirmLabel`, "Delete" by default). Cancelled, focus
 * goes back to what opened it; confirmed, what opened it is about to go, so focus goes to the
 * same control of the next item of its list (else the previous one), or to `focusAfterDelete`
 * when the list is left empty. */
export function ConfirmDelete<T>({
  target,
  title,
  description,
  onClose,
  onConfirm,
  focusAfterDelete,
  confirmLabel,
}: {
  target: T | null;
  title: string;
  description: string;
  onClose: () => void;
  onConfirm: (target: T) => void;
  focusAfterDelete: React.RefObject<HTMLElement | null>;
  confirmLabel?: string;
}) {
  const { t } = useTranslation();
  const confirmed = React.useRef(false);
  const opener = React.useRef<HTMLElement | null>(null);
  return (
    <Dialog open={target !== null} onOpenChange={(open) => !open && onClose()}>
      <DialogContent
        closeLabel={t("common.close")}
        onOpenAutoFocus={() => {
          confirmed.current = false;
          opener.current = document.activeElement instanceof HTMLElement ? document.activeElement : null;
        }}
        onCloseAutoFocus={(event) => {
          const next = confirmed.current ? (nextInList(opener.current) ?? focusAfterDelete.current) : null;
          if (!next) return;
          event.preventDefault();
          next.focus();
        }}
      >
        <DialogHeader>
          <DialogTitle>{title}</DialogTitle>
          <DialogDescription>{description}</DialogDescription>
        </DialogHeader>
        <DialogFooter>
          <DialogClose asChild>
            <Button variant="ghost">{t("common.cancel")}</Button>
          </DialogClose>
          <Button
            variant="destructive"
            onClick={() => {
              const chosen = target;
              confirmed.current = true;
              onClose();
              if (chosen !== null) onConfirm(chosen);
            }}
          >
            {confirmLabel ?? t("common.delete")}
          </Button>
        </DialogFooter>
      </DialogContent>
    </Dialog>
  );
}

const FOCUSABLE = "a[href], button:not([disabled]), input:not([disabled]), select, textarea, [tabindex]:not([tabindex='-1'])";

/** The control at the same place as `control` in the next item of its list (else the previous
 * item): where the keyboard goes once `control`'s item is deleted. */
export function nextInList(control: HTMLElement | null): HTMLElement | null {
  const item = control?.closest("li");
  if (!control || !item) return null;
  const sibling = item.nextElementSibling ?? item.previousElementSibling;
  if (!sibling) return null;
  const place = Array.from(item.querySelectorAll<HTMLElement>(FOCUSABLE)).indexOf(control);
  const there = Array.from(sibling.querySelectorAll<HTMLElement>(FOCUSABLE));
  return there[Math.min(Math.max(place, 0), there.length - 1)] ?? null;
}
