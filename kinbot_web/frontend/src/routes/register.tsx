import * as React from "react";
import { useTranslation } from "react-i18next";
import { Link, useNavigate, useParams, useSearchParams } from "react-router";

import { IdentityForm } from "@/components/app/identity-form";
import { ThemeToggle } from "@/components/theme-toggle";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { api, ApiError } from "@/lib/api";
import { errorText } from "@/lib/errors";

import { LanguageSwitch } from "./language-switch";

type Check = { state: "checking" } | { state: "valid"; role: string } | { state: "invalid"; message: string };

/** `/register?code=…` and `/invite/:code`: create an account with an invitation code. */
export default function RegisterPage() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const params = useParams();
  const [search] = useSearchParams();
  const code = params.code ?? search.get("code") ?? "";
  const [check, setCheck] = React.useState<Check>({ state: "checking" });

  React.useEffect(() => {
    if (!code) {
      setCheck({ state: "invalid", message: t("register.invalid") });
      return;
    }
    api<{ role: string }>(`/api/auth/invitations/${encodeURIComponent(code)}`)
      .then(({ role }) => setCheck({ state: "valid", role }))
      .catch((error: unknown) => setCheck({ state: "invalid", message: error instanceof ApiError && error.status === 410 ? t("register.invalid") : errorText(t, error) }));
  }, [code, t]);

  return (
    <main className="flex min-h-dvh flex-col items-center bg-[radial-gradient(ellipse_at_top,var(--accent),transparent_60%)] p-4 sm:p-8">
      <div className="fixed top-3 right-3 flex items-center gap-1">
        <LanguageSwitch />
        <ThemeToggle />
      </div>
      <div className="flex w-full max-w-2xl flex-col items-center gap-6 pt-4 sm:pt-10">
        <div className="flex items-center gap-3">
          <img src="/favicon.svg" alt="" className="size-10" />
          <span className="text-2xl font-extrabold tracking-tight">{t("app.name")}</span>
        </div>
        <Card className="w-full animate-rise-in">
          {check.state === "valid" ? (
            <IdentityForm
              endpoint="/api/auth/register"
              extra={{ code }}
              title={t("register.title")}
              subtitle={t("register.subtitle", { role: t(`users.roleInline.${check.role === "admin" ? "admin" : "member"}`) })}
              submitLabel={t("register.submit")}
              onDone={() => navigate("/", { replace: true })}
            />
          ) : (
            <>
              <CardHeader>
                <CardTitle className="text-2xl">{t("register.title")}</CardTitle>
                <CardDescription role={check.state === "invalid" ? "alert" : "status"}>{check.state === "invalid" ? check.message : t("common.loading")}</CardDescription>
              </CardHeader>
              <CardContent>
                <Link to="/signin" className="text-sm font-semibold underline underline-offset-2">
                  {t("register.signIn")}
                </Link>
              </CardContent>
            </>
          )}
        </Card>
      </div>
    </main>
  );
}
