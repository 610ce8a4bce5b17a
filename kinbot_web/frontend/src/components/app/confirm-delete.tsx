import { useTranslation } from "react-i18next";

import { Button } from "@/components/ui/button";
import { Dialog, DialogClose, DialogContent, DialogDescription, DialogFooter, DialogHeader, DialogTitle } from "@/components/ui/dialog";

/** A "delete this?" dialog, open while `target` is set; confirming closes it and hands the
 * target to `onConfirm`. */
export function ConfirmDelete<T>({
  target,
  title,
  description,
  onClose,
  onConfirm,
}: {
  target: T | null;
  title: string;
  description: string;
  onClose: () => void;
  onConfirm: (target: T) => void;
}) {
  const { t } = useTranslation();
  return (
    <Dialog open={target !== null} onOpenChange={(open) => !open && onClose()}>
      <DialogContent closeLabel={t("common.close")}>
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
