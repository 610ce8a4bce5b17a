import * as React from "react";
import { useTranslation } from "react-i18next";

import { Button } from "@/components/ui/button";
import { Dialog, DialogClose, DialogContent, DialogDescription, DialogFooter, DialogHeader, DialogTitle } from "@/components/ui/dialog";

/** A "delete this?" dialog, open while `target` is set; confirming closes it and hands the
 * target to `onConfirm`. Focus goes back to what opened it, or once confirmed to
 * `focusAfterDelete` when given (what opened it is about to go). */
export function ConfirmDelete<T>({
  target,
  title,
  description,
  onClose,
  onConfirm,
  focusAfterDelete,
}: {
  target: T | null;
  title: string;
  description: string;
  onClose: () => void;
  onConfirm: (target: T) => void;
  focusAfterDelete?: React.RefObject<HTMLElement | null>;
}) {
  const { t } = useTranslation();
  const confirmed = React.useRef(false);
  return (
    <Dialog open={target !== null} onOpenChange={(open) => !open && onClose()}>
      <DialogContent
        closeLabel={t("common.close")}
        onOpenAutoFocus={() => (confirmed.current = false)}
        onCloseAutoFocus={(event) => {
          const next = confirmed.current ? focusAfterDelete?.current : null;
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
            {t("common.delete")}
          </Button>
        </DialogFooter>
      </DialogContent>
    </Dialog>
  );
}
