import { PlusIcon } from "lucide-react";
import { useTranslation } from "react-i18next";

import { PhoneMenuBar } from "@/components/app/phone-menu-bar";
import { Button } from "@/components/ui/button";

/**
 * The main area while nobody has a Kin: what a Kin is and a button to create one, at every
 * width (on a phone the sidebar is a closed drawer, so its "New Kin" button is out of sight),
 * with the drawer's menu button on narrow screens.
 */
export function NoKins({ onCreate, onOpenSidebar }: { onCreate: () => void; onOpenSidebar: () => void }) {
  const { t } = useTranslation();
  return (
    <main className="flex flex-1 flex-col">
      <PhoneMenuBar onOpenSidebar={onOpenSidebar} />
      <div className="flex flex-1 flex-col items-center justify-center gap-3 px-6 text-center">
        <img src="/favicon.svg" alt="" className="size-14" />
        <h1 className="text-xl font-bold">{t("firstRun.noKins.title")}</h1>
        <p className="max-w-sm text-sm text-muted-foreground">{t("firstRun.noKins.text")}</p>
        <Button size="lg" onClick={onCreate}>
          <PlusIcon /> {t("firstRun.noKins.create")}
        </Button>
      </div>
    </main>
  );
}
