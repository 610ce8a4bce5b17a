import { MenuIcon } from "lucide-react";
import { useTranslation } from "react-i18next";

import { Button } from "@/components/ui/button";

/** The bar with the navigation menu's button, on phones only, above a page without a chat
 * header (no Kin yet, a Kin that is not here). */
export function PhoneMenuBar({ onOpenSidebar }: { onOpenSidebar: () => void }) {
  const { t } = useTranslation();
  return (
    <header className="flex items-center px-4 py-3 md:hidden">
      <Button variant="ghost" size="icon" onClick={onOpenSidebar} aria-label={t("sidebar.openMenu")}>
        <MenuIcon />
      </Button>
    </header>
  );
}
