import { ArrowLeftIcon } from "lucide-react";
import * as React from "react";
import { useTranslation } from "react-i18next";
import { Link } from "react-router";

import { ThemeToggle } from "@/components/theme-toggle";
import { Button } from "@/components/ui/button";

/** A full page away from the chat (My account, Settings): title, a way back, the content. */
export function PageFrame({ title, back = "/", children }: { title: string; back?: string; children: React.ReactNode }) {
  const { t } = useTranslation();
  React.useEffect(() => {
    document.title = `${title} · ${t("app.name")}`; // the browser's tab says which page
  }, [title, t]);
  return (
    <main className="mx-auto flex min-h-dvh max-w-5xl flex-col gap-6 p-4 sm:p-8">
      <header className="flex flex-wrap items-center gap-3">
        <Button asChild variant="ghost" size="sm">
          <Link to={back}>
            <ArrowLeftIcon /> {t("settings.back")}
          </Link>
        </Button>
        <span className="flex-1" />
        <ThemeToggle />
      </header>
      <h1 className="text-3xl font-extrabold tracking-tight">{title}</h1>
      {children}
    </main>
  );
}
