import { useTranslation } from "react-i18next";
import { Link } from "react-router";

import { PhoneMenuBar } from "@/components/app/phone-menu-bar";
import { Button } from "@/components/ui/button";
import type { Kin } from "@/lib/types";

/**
 * The chat's place when the address names a Kin this person cannot see: one deleted, or
 * restricted to other people (a shared link, an old bookmark, access taken away while open).
 * Also a Kin's settings page for such a Kin (no sidebar there: no `onOpenSidebar`). It says so
 * without telling which, and leads back to a Kin they have (or to the chat when they have none).
 */
export function KinUnavailable({ firstKin, onOpenKin, onOpenSidebar }: { firstKin: Kin | null; onOpenKin: (id: string) => void; onOpenSidebar?: () => void }) {
  const { t } = useTranslation();
  return (
    <main className="flex flex-1 flex-col" data-kin-unavailable>
      {onOpenSidebar ? <PhoneMenuBar onOpenSidebar={onOpenSidebar} /> : null}
      <div className="flex flex-1 flex-col items-center justify-center gap-3 px-6 text-center">
        <h1 className="text-xl font-bold">{t("kinAccess.unavailable.title")}</h1>
        <p className="max-w-sm text-sm text-muted-foreground">{t("kinAccess.unavailable.text")}</p>
        {firstKin ? (
          <Button onClick={() => onOpenKin(firstKin.id)}>{t("kinAccess.unavailable.open", { name: firstKin.name })}</Button>
        ) : (
          <Button asChild variant="outline">
            <Link to="/">{t("settings.back")}</Link>
          </Button>
        )}
      </div>
    </main>
  );
}
