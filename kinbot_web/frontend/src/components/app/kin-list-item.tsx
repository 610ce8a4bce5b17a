import { AlertTriangleIcon } from "lucide-react";
import type { TFunction } from "i18next";
import { useTranslation } from "react-i18next";

import { Avatar } from "@/components/ui/avatar";
import { KinLock } from "@/components/app/kin-access";
import { fitErrorTitle } from "@/components/chat/cards/fit-error";
import { Badge } from "@/components/ui/badge";
import type { Kin } from "@/lib/types";
import { cn } from "@/lib/utils";

/** A Kin in the sidebar: picture, name, role, queue count, thinking and error markers. */
export function KinListItem({ kin, selected, onSelect }: { kin: Pick<Kin, "id" | "name" | "role" | "avatar_url" | "state" | "queue_length"> & Partial<Pick<Kin, "last_error_code">> & Partial<Pick<Kin, "expertise" | "access">>; selected?: boolean; onSelect?: () => void }) {
  const { t } = useTranslation();
  const status = kin.state === "thinking" ? "thinking" : kin.state === "error" ? "error" : null;
  return (
    <button
      type="button"
      onClick={onSelect}
      aria-current={selected ? "page" : undefined}
      data-kin-id={kin.id}
      className={cn(
        "flex w-full items-center gap-3 rounded-xl px-2.5 py-2 text-left transition-colors duration-150 hover:bg-accent/70 focus-visible:outline-2 focus-visible:-outline-offset-2 focus-visible:outline-ring",
        selected && "bg-card shadow-soft hover:bg-card",
      )}
    >
      <Avatar name={kin.name} src={kin.avatar_url} kin={kin} labelled={false} status={status} />
      <span className="min-w-0 flex-1">
        <span className="flex items-center gap-1.5">
          <span className="truncate text-sm font-semibold">{kin.name}</span>
          <KinLock kin={kin} />
          {kin.state === "thinking" ? <span className="sr-only">{t("sidebar.thinking")}</span> : null}
          {kin.state === "error" ? (
            <AlertTriangleIcon className="size-3.5 shrink-0 text-destructive" role="img" aria-label={t("sidebar.error")}>
              <title>{errorTitle(t, kin.name, kin.last_error_code)}</title>
            </AlertTriangleIcon>
          ) : null}
        </span>
        <span className="block truncate text-xs text-muted-foreground">{kin.role}</span>
      </span>
      {kin.queue_length > 0 ? (
        <Badge variant="default" className="min-w-5 justify-center px-1.5">
          <span aria-hidden>{kin.queue_length}</span>
          <span className="sr-only">{t("sidebar.queue", { count: kin.queue_length })}</span>
        </Badge>
      ) : null}
    </button>
  );
}

/** The error marker's title: the last failure's own words when its code has some. */
function errorTitle(t: TFunction, name: string, code: string | null | undefined): string {
  if (!code) return t("sidebar.error");
  return fitErrorTitle(t, code, name) ?? t(`cards.error.${code}`, { name, defaultValue: t("sidebar.error") });
}
