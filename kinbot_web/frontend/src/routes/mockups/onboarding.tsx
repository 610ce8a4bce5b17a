import { CameraIcon } from "lucide-react";
import { useTranslation } from "react-i18next";

import { Steps } from "@/components/app/steps";
import { Avatar } from "@/components/ui/avatar";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardFooter, CardHeader, CardTitle } from "@/components/ui/card";
import { Field, Input } from "@/components/ui/input";

/** Mock-up of onboarding's first screen: the administrator's identity. */
export default function OnboardingMockup() {
  const { t } = useTranslation();
  return (
    <main className="flex min-h-dvh items-center justify-center bg-[radial-gradient(ellipse_at_top,var(--accent),transparent_60%)] p-4 sm:p-8">
      <div className="flex w-full max-w-xl flex-col items-center gap-6">
        <div className="flex items-center gap-3">
          <img src="/favicon.svg" alt="" className="size-10" />
          <span className="text-2xl font-extrabold tracking-tight">{t("app.name")}</span>
        </div>
        <Steps current={0} />
        <Card className="w-full">
          <CardHeader>
            <CardTitle className="text-2xl">{t("onboarding.identity.title")}</CardTitle>
            <CardDescription>{t("onboarding.identity.subtitle")}</CardDescription>
          </CardHeader>
          <CardContent className="flex flex-col gap-5">
            <div className="flex items-center gap-4">
              <Avatar name="Nicolas Durand" size="xl" />
              <Button variant="outline" size="sm">
                <CameraIcon /> {t("onboarding.identity.upload")}
              </Button>
            </div>
            <div className="grid grid-cols-1 gap-4 sm:grid-cols-2">
              <Field label={t("onboarding.identity.firstName")} htmlFor="first-name">
                <Input id="first-name" defaultValue="Nicolas" autoComplete="given-name" />
              </Field>
              <Field label={t("onboarding.identity.lastName")} htmlFor="last-name">
                <Input id="last-name" defaultValue="Durand" autoComplete="family-name" />
              </Field>
              <Field label={t("onboarding.identity.email")} htmlFor="email">
                <Input id="email" type="email" defaultValue="nicolas@example.org" autoComplete="email" />
              </Field>
              <Field label={t("onboarding.identity.pseudonym")} htmlFor="pseudonym" hint={t("onboarding.identity.pseudonymHint")}>
                <Input id="pseudonym" defaultValue="Nico" />
              </Field>
              <Field label={t("onboarding.identity.language")} htmlFor="language">
                <select id="language" className="h-10 rounded-xl border border-input bg-card px-3 text-sm" defaultValue="fr">
                  <option value="fr">{t("language.fr")}</option>
                  <option value="en">{t("language.en")}</option>
                </select>
              </Field>
              <span className="hidden sm:block" />
              <Field label={t("onboarding.identity.password")} htmlFor="password">
                <Input id="password" type="password" defaultValue="correct horse battery" autoComplete="new-password" />
              </Field>
              <Field label={t("onboarding.identity.confirmation")} htmlFor="confirmation">
                <Input id="confirmation" type="password" defaultValue="correct horse battery" autoComplete="new-password" />
              </Field>
            </div>
          </CardContent>
          <CardFooter className="justify-end">
            <Button size="lg">{t("common.continue")}</Button>
          </CardFooter>
        </Card>
      </div>
    </main>
  );
}
