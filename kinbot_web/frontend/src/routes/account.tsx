import { CameraIcon } from "lucide-react";
import * as React from "react";
import { useTranslation } from "react-i18next";

import { MyChannelAccounts } from "@/components/app/my-channel-accounts";
import { MyUsage } from "@/components/app/my-usage";
import { NotificationSettings } from "@/components/app/notification-settings";
import { PageFrame } from "@/components/app/page-frame";
import { Avatar } from "@/components/ui/avatar";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardFooter, CardHeader, CardTitle } from "@/components/ui/card";
import { Field, Input } from "@/components/ui/input";
import { NativeSelect } from "@/components/ui/native-select";
import { useToast } from "@/components/ui/toast";
import { setLanguage } from "@/i18n";
import { api } from "@/lib/api";
import { errorText } from "@/lib/errors";
import type { Language, User } from "@/lib/types";

/** `/account`: names, pseudonym, photo, language and password of the signed-in user, and
 * their notifications. */
export default function AccountPage() {
  const { t, i18n } = useTranslation();
  const { toast } = useToast();
  const [me, setMe] = React.useState<User | null>(null);
  const [version, setVersion] = React.useState(0); // bumps the photo's URL after an upload
  const [error, setError] = React.useState<string | null>(null);
  const [passwordError, setPasswordError] = React.useState<string | null>(null);

  React.useEffect(() => {
    // Opened directly (a reload, a notification's link): the page speaks the user's language.
    void api<{ user: User }>("/api/me").then(({ user }) => updated(user));
  }, []);

  function updated(user: User) {
    setMe(user);
    setLanguage(user.language);
  }

  async function saveProfile(event: React.FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const data = new FormData(event.currentTarget);
    setError(null);
    try {
      const { user } = await api<{ user: User }>("/api/me", {
        method: "PATCH",
        body: Object.fromEntries(["first_name", "last_name", "pseudonym", "language"].map((key) => [key, String(data.get(key) ?? "")])),
      });
      updated(user);
      toast({ title: t("account.saved"), tone: "success" });
    } catch (caught) {
      setError(errorText(t, caught));
    }
  }

  /** The language is kept as soon as it is chosen, as the page already speaks it. */
  async function chooseLanguage(language: Language) {
    setLanguage(language);
    setError(null);
    try {
      const { user } = await api<{ user: User }>("/api/me", { method: "PATCH", body: { language } });
      updated(user);
      toast({ title: i18n.t("account.languageSaved"), tone: "success" }); // in the new language, not the render's
    } catch (caught) {
      setError(errorText(t, caught));
    }
  }

  async function changePassword(event: React.FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const formElement = event.currentTarget;
    const data = new FormData(formElement);
    setPasswordError(null);
    try {
      await api("/api/me", {
        method: "PATCH",
        body: { password: { current: data.get("current"), new: data.get("new"), confirmation: data.get("confirmation") } },
      });
      formElement.reset();
      toast({ title: t("account.passwordChanged"), tone: "success" });
    } catch (caught) {
      setPasswordError(errorText(t, caught));
    }
  }

  async function uploadPhoto(file: File) {
    const body = new FormData();
    body.append("avatar", file);
    try {
      const { user } = await api<{ user: User }>("/api/me/avatar", { method: "PUT", body });
      setMe(user);
      setVersion((value) => value + 1);
    } catch (caught) {
      toast({ title: t("errors.generic"), description: errorText(t, caught), tone: "error" });
    }
  }

  if (!me) return null;
  const photo = me.avatar_url ? `${me.avatar_url}?v=${version}` : null;
  return (
    <PageFrame title={t("account.title")}>
      <div className="grid grid-cols-1 gap-6 lg:grid-cols-2">
        <Card>
          <form onSubmit={(event) => void saveProfile(event)}>
            <CardHeader>
              <CardTitle>{t("account.profile")}</CardTitle>
            </CardHeader>
            <CardContent className="flex flex-col gap-4">
              <div className="flex items-center gap-4">
                <Avatar name={me.pseudonym || me.first_name} src={photo} size="xl" />
                <Button asChild variant="outline" size="sm">
                  <label htmlFor="account-photo" className="cursor-pointer">
                    <CameraIcon /> {t("onboarding.identity.upload")}
                  </label>
                </Button>
                <input id="account-photo" type="file" accept="image/png,image/jpeg,image/webp,image/gif" className="sr-only" onChange={(event) => event.target.files?.[0] && void uploadPhoto(event.target.files[0])} />
              </div>
              <div className="grid grid-cols-1 gap-4 sm:grid-cols-2">
                <Field label={t("onboarding.identity.firstName")} htmlFor="first_name">
                  <Input id="first_name" name="first_name" defaultValue={me.first_name} required />
                </Field>
                <Field label={t("onboarding.identity.lastName")} htmlFor="last_name">
                  <Input id="last_name" name="last_name" defaultValue={me.last_name} required />
                </Field>
                <Field label={t("onboarding.identity.pseudonym")} htmlFor="pseudonym" hint={t("onboarding.identity.pseudonymHint")}>
                  <Input id="pseudonym" name="pseudonym" defaultValue={me.pseudonym} required />
                </Field>
                <Field label={t("language.label")} htmlFor="language">
                  <NativeSelect id="language" name="language" defaultValue={me.language} onChange={(event) => void chooseLanguage(event.target.value as Language)}>
                    <option value="fr">{t("language.fr")}</option>
                    <option value="en">{t("language.en")}</option>
                  </NativeSelect>
                </Field>
              </div>
              {error ? (
                <p className="text-sm font-medium text-destructive" role="alert">
                  {error}
                </p>
              ) : null}
            </CardContent>
            <CardFooter className="justify-end">
              <Button type="submit">{t("common.save")}</Button>
            </CardFooter>
          </form>
        </Card>
        <Card>
          <form onSubmit={(event) => void changePassword(event)}>
            <CardHeader>
              <CardTitle>{t("account.password")}</CardTitle>
            </CardHeader>
            <CardContent className="flex flex-col gap-4">
              <Field label={t("account.current")} htmlFor="current">
                <Input id="current" name="current" type="password" autoComplete="current-password" required />
              </Field>
              <Field label={t("account.newPassword")} htmlFor="new">
                <Input id="new" name="new" type="password" autoComplete="new-password" required />
              </Field>
              <Field label={t("account.confirmation")} htmlFor="confirmation" error={passwordError ?? undefined}>
                <Input id="confirmation" name="confirmation" type="password" autoComplete="new-password" required />
              </Field>
            </CardContent>
            <CardFooter className="justify-end">
              <Button type="submit" variant="secondary">
                {t("account.changePassword")}
              </Button>
            </CardFooter>
          </form>
        </Card>
        <MyChannelAccounts />
        <NotificationSettings />
        <MyUsage />
      </div>
    </PageFrame>
  );
}
