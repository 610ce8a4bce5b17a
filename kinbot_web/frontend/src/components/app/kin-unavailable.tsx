import { useTranslation } from "react-i18next";
import { Link } from "react-router";

import { PhoneMenuBar } from "@/components/app/phone-menu-bar";
import { Button } from "@/components/ui/button";
import type { Kin } from "@/lib/types";

/** What the page says is not there: a Kin (its chat, its settings) or a task. */
const WORDS = {
  kin: { title: "kinAccess.unavailable.title", text: "kinAccess.unavailable.text", open: "kinAccess.unavailable.open" },
  task: { title: "chat.taskUnavailable.title", text: "chat.taskUnavailable.text", open: "chat.taskUnavailable.open" },
} as const;

/**
 * The page's place when its address names a Kin (or a task of a Kin) this person cannot see:
 * one deleted, or restricted to other people (a shared link, an old bookmark, access taken
 * away while open). It says so without telling which, and leads back to a Kin they have (or
 * to the chat when they have none). `onOpenSidebar`: where there is a sidebar to open (the
 * chat, a task), the phone's menu button.
 */
export function KinUnavailable({ firstKin, about = "kin", onOpenSidebar }: { firstKin: Kin | null; about?: keyof typeof WORDS; onOpenSidebar?: () => void }) {
  const { t } = useTranslation();
  const words = WORDS[about];
  return (
    <main className="flex flex-1 flex-col" data-unavailable={about}>
      {onOpenSidebar ? <PhoneMenuBar onOpenSidebar={onOpenSidebar} /> : null}
      <div className="flex flex-1 flex-col items-center justify-center gap-3 px-6 text-center">
        <h1 className="text-xl font-bold">{t(words.title)}</h1>
        <p className="max-w-sm text-sm text-muted-foreground">{t(words.text)}</p>
        {firstKin ? (
          <Button asChild>
            <Link to={`/kins/${firstKin.id}`}>{t(words.open, { name: firstKin.name })}</Link>
          </Button>
        ) : (
          <Button asChild variant="outline">
            <Link to="/">{t("settings.back")}</Link>
          </Button>
        )}
      </div>
    </main>
  );
}
