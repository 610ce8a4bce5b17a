import { CameraIcon } from "lucide-react";
import * as React from "react";
import { useTranslation } from "react-i18next";

import { Avatar } from "@/components/ui/avatar";
import { Button } from "@/components/ui/button";
import { CardContent, CardDescription, CardFooter, CardHeader, CardTitle } from "@/components/ui/card";
import { Field, Input } from "@/components/ui/input";
import { NativeSelect } from "@/components/ui/native-select";
import { setLanguage } from "@/i18n";
import { api, ApiError } from "@/lib/api";
import { errorText } from "@/lib/errors";
import type { Language } from "@/lib/types";

/** Field errors of a 400 `invalid_request`, by field name. */
function fieldErrors(error: unknown): Record<string, string> {
  if (!(error instanceof ApiError) || !Array.isArray(error.details?.fields)) return {};
  const fields = error.details.fields as { field: string; message: string }[];
  return Object.fromEntries(fields.map(({ field, message }) => [field.split(".").at(-1) || "form", message]));
}

export interface IdentityFormProps {
  /** The route that takes the identity fields (onboarding's, or registration's). */
  endpoint: string;
  /** Fields sent along (the invitation code). */
  extra?: Record<string, string>;
  title: string;
  subtitle: string;
  submitLabel: string;
  onDone: () => void;
  /** Fields of the caller's shown above the identity fields (onboarding's set-up code). */
  children?: React.ReactNode;
  /** Given a failed submission first: true when the caller showed the error itself. */
  onError?: (error: unknown) => boolean;
}

/** The identity fields of the specification (photo, names, email, pseudonym, language,
 * password twice), sent to `endpoint`; the photo is uploaded once the account exists. */
export function IdentityForm({ endpoint, extra = {}, title, subtitle, submitLabel, onDone, children, onError }: IdentityFormProps) {
  const { t, i18n } = useTranslation();
  const [errors, setErrors] = React.useState<Record<string, string>>({});
  const [photo, setPhoto] = React.useState<File | null>(null);
  const [preview, setPreview] = React.useState<string | null>(null);
  const [busy, setBusy] = React.useState(false);
  const [name, setName] = React.useState("");

  React.useEffect(() => {
    if (!photo) return;
    const url = URL.createObjectURL(photo);
    setPreview(url);
    return () => URL.revokeObjectURL(url);
  }, [photo]);

  async function submit(event: React.FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const value = (key: string) => String(form.get(key) ?? "");
    if (value("password") !== value("password_confirmation")) {
      setErrors({ password_confirmation: t("onboarding.identity.mismatch") });
      return;
    }
    setBusy(true);
    setErrors({});
    try {
      await api(endpoint, {
        body: Object.fromEntries(["first_name", "last_name", "email", "pseudonym", "language", "password", "password_confirmation"].map((key) => [key, value(key)]).concat(Object.entries(extra))),
      });
      if (photo) {
        const upload = new FormData();
        upload.append("avatar", photo);
        await api("/api/me/avatar", { method: "PUT", body: upload }).catch(() => undefined); // can be set again in My account
      }
      onDone();
    } catch (caught) {
      if (onError?.(caught)) return;
      const found = fieldErrors(caught);
      setErrors(Object.keys(found).length ? found : { form: errorText(t, caught) });
    } finally {
      setBusy(false);
    }
  }

  const fields: [string, string, string, string][] = [
    ["first_name", t("onboarding.identity.firstName"), "text", "given-name"],
    ["last_name", t("onboarding.identity.lastName"), "text", "family-name"],
    ["email", t("onboarding.identity.email"), "email", "email"],
    ["pseudonym", t("onboarding.identity.pseudonym"), "text", "nickname"],
  ];
  return (
    <form onSubmit={(event) => void submit(event)}>
      <CardHeader>
        <CardTitle level={1} className="text-2xl">{title}</CardTitle>
        <CardDescription>{subtitle}</CardDescription>
      </CardHeader>
      <CardContent className="flex flex-col gap-5">
        {children}
        <div className="flex items-center gap-4">
          <Avatar name={name || "?"} src={preview} size="xl" />
          <div className="flex flex-col gap-1">
            <Button asChild variant="outline" size="sm">
              <label htmlFor="photo" className="cursor-pointer">
                <CameraIcon /> {t("onboarding.identity.upload")}
              </label>
            </Button>
            <input id="photo" type="file" accept="image/png,image/jpeg,image/webp,image/gif" className="sr-only" onChange={(event) => setPhoto(event.target.files?.[0] ?? null)} />
            <span className="text-xs text-muted-foreground">{t("onboarding.identity.photoHint")}</span>
          </div>
        </div>
        <div className="grid grid-cols-1 gap-4 sm:grid-cols-2">
          {fields.map(([key, label, type, autoComplete]) => (
            <Field key={key} label={label} htmlFor={key} error={errors[key]} hint={key === "pseudonym" ? t("onboarding.identity.pseudonymHint") : undefined}>
              <Input id={key} name={key} type={type} autoComplete={autoComplete} required aria-invalid={errors[key] ? true : undefined} onChange={key === "first_name" ? (event) => setName(event.target.value) : undefined} />
            </Field>
          ))}
          <Field label={t("onboarding.identity.language")} htmlFor="language">
            <NativeSelect id="language" name="language" defaultValue={i18n.language.startsWith("fr") ? "fr" : "en"} onChange={(event) => setLanguage(event.target.value as Language)}>
              <option value="fr">{t("language.fr")}</option>
              <option value="en">{t("language.en")}</option>
            </NativeSelect>
          </Field>
          <span className="hidden sm:block" />
          <Field label={t("onboarding.identity.password")} htmlFor="password" error={errors.password}>
            <Input id="password" name="password" type="password" autoComplete="new-password" required />
          </Field>
          <Field label={t("onboarding.identity.confirmation")} htmlFor="password_confirmation" error={errors.password_confirmation}>
            <Input id="password_confirmation" name="password_confirmation" type="password" autoComplete="new-password" required />
          </Field>
        </div>
        {errors.form ? (
          <p className="text-sm font-medium text-destructive" role="alert">
            {errors.form}
          </p>
        ) : null}
      </CardContent>
      <CardFooter className="justify-end">
        <Button type="submit" size="lg" disabled={busy}>
          {submitLabel}
        </Button>
      </CardFooter>
    </form>
  );
}

