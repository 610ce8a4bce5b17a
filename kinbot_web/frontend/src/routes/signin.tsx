import * as React from "react";
import { useTranslation } from "react-i18next";
import { useNavigate } from "react-router";

import { ThemeToggle } from "@/components/theme-toggle";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { Field, Input } from "@/components/ui/input";
import { setLanguage } from "@/i18n";
import { api, ApiError } from "@/lib/api";
import { errorText } from "@/lib/errors";
import type { User } from "@/lib/types";

import { LanguageSwitch } from "./language-switch";

/** `/signin`: email and password. */
export default function SignInPage() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const [error, setError] = React.useState<string | null>(null);
  const [busy, setBusy] = React.useState(false);

  async function submit(event: React.FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    setBusy(true);
    setError(null);
    try {
      const { user } = await api<{ user: User }>("/api/auth/login", {
        body: { email: form.get("email"), password: form.get("password") },
      });
      setLanguage(user.language);
      navigate("/", { replace: true });
    } catch (caught) {
      if (caught instanceof ApiError && caught.code === "rate_limited") setError(t("signin.rateLimited"));
      else if (caught instanceof ApiError && caught.status === 401) setError(t("signin.failed"));
      else setError(errorText(t, caught));
    } finally {
      setBusy(false);
    }
  }

  return (
    <main className="flex min-h-dvh flex-col items-center justify-center gap-6 bg-[radial-gradient(ellipse_at_top,var(--accent),transparent_60%)] p-4">
      <div className="fixed top-3 right-3 flex items-center gap-1">
        <LanguageSwitch />
        <ThemeToggle />
      </div>
      <div className="flex items-center gap-3">
        <img src="/favicon.svg" alt="" className="size-10" />
        <span className="text-2xl font-extrabold tracking-tight">{t("app.name")}</span>
      </div>
      <Card className="w-full max-w-sm">
        <CardHeader>
          <CardTitle level={1} className="text-2xl">{t("signin.title")}</CardTitle>
          <CardDescription>{t("signin.subtitle")}</CardDescription>
        </CardHeader>
        <CardContent>
          <form className="flex flex-col gap-4" onSubmit={(event) => void submit(event)}>
            <Field label={t("signin.email")} htmlFor="email">
              <Input id="email" name="email" type="email" autoComplete="email" required autoFocus />
            </Field>
            <Field label={t("signin.password")} htmlFor="password" error={error ?? undefined}>
              <Input id="password" name="password" type="password" autoComplete="current-password" required aria-invalid={error ? true : undefined} />
            </Field>
            <Button type="submit" size="lg" disabled={busy}>
              {t("signin.submit")}
            </Button>
          </form>
        </CardContent>
      </Card>
    </main>
  );
}
