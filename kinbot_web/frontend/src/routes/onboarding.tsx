import { CameraIcon } from "lucide-react";
import * as React from "react";
import { useTranslation } from "react-i18next";
import { useNavigate } from "react-router";

import { ProviderSetup } from "@/components/app/provider-setup";
import { Steps } from "@/components/app/steps";
import { ThemeToggle } from "@/components/theme-toggle";
import { Avatar } from "@/components/ui/avatar";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardFooter, CardHeader, CardTitle } from "@/components/ui/card";
import { Field, Input } from "@/components/ui/input";
import { NativeSelect } from "@/components/ui/native-select";
import { setLanguage } from "@/i18n";
import { api, ApiError } from "@/lib/api";
import type { Coverage, Language, Provider } from "@/lib/types";

type Step = "identity" | "providers" | "search_providers" | "first_kin" | "done";
const ORDER: Step[] = ["identity", "providers", "search_providers"];

/** Field errors of a 400 `invalid_request`, by field name. */
function fieldErrors(error: unknown): Record<string, string> {
  if (!(error instanceof ApiError) || !Array.isArray(error.details?.fields)) return {};
  const fields = error.details.fields as { field: string; message: string }[];
  return Object.fromEntries(fields.map(({ field, message }) => [field.split(".").at(-1) || "form", message]));
}

function IdentityStep({ onDone }: { onDone: () => void }) {
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
      await api("/api/onboarding/identity", {
        body: Object.fromEntries(["first_name", "last_name", "email", "pseudonym", "language", "password", "password_confirmation"].map((key) => [key, value(key)])),
      });
      if (photo) {
        const upload = new FormData();
        upload.append("avatar", photo);
        await api("/api/me/avatar", { method: "PUT", body: upload }).catch(() => undefined); // can be set again in My account
      }
      onDone();
    } catch (caught) {
      const found = fieldErrors(caught);
      setErrors(Object.keys(found).length ? found : { form: caught instanceof Error ? caught.message : t("errors.generic") });
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
        <CardTitle className="text-2xl">{t("onboarding.identity.title")}</CardTitle>
        <CardDescription>{t("onboarding.identity.subtitle")}</CardDescription>
      </CardHeader>
      <CardContent className="flex flex-col gap-5">
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
        <div className="grid gap-4 sm:grid-cols-2">
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
          {t("common.continue")}
        </Button>
      </CardFooter>
    </form>
  );
}

function ProvidersStep({ onDone }: { onDone: () => void }) {
  const { t } = useTranslation();
  const [coverage, setCoverage] = React.useState<Coverage | null>(null);
  const refresh = React.useCallback(() => void api<Coverage>("/api/providers/coverage").then(setCoverage), []);
  React.useEffect(refresh, [refresh]);
  const off = coverage ? Object.values(coverage.disabled_features) : [];
  return (
    <>
      <CardHeader>
        <CardTitle className="text-2xl">{t("onboarding.providers.title")}</CardTitle>
        <CardDescription>{t("onboarding.providers.subtitle")}</CardDescription>
      </CardHeader>
      <CardContent className="flex flex-col gap-4">
        <ProviderSetup base="/api/providers" onChange={refresh} />
        {coverage ? (
          <div className="flex flex-col gap-1 text-sm" role="status">
            {coverage.ready ? (
              <p className="font-semibold text-success">{t("onboarding.providers.covered")}</p>
            ) : (
              <p className="font-semibold">{t("onboarding.providers.needs", { capabilities: coverage.missing_required.join(", ") })}</p>
            )}
            {off.length ? <p className="text-muted-foreground">{t("onboarding.providers.off", { features: off.join("; ") })}</p> : null}
          </div>
        ) : null}
      </CardContent>
      <CardFooter className="justify-end">
        <Button size="lg" disabled={!coverage?.ready} onClick={onDone}>
          {t("common.continue")}
        </Button>
      </CardFooter>
    </>
  );
}

function SearchStep({ onDone }: { onDone: () => void }) {
  const { t } = useTranslation();
  const [count, setCount] = React.useState(0);
  const refresh = React.useCallback(() => void api<{ providers: Provider[] }>("/api/search-providers").then(({ providers }) => setCount(providers.length)), []);
  React.useEffect(refresh, [refresh]);
  async function skip() {
    await api("/api/onboarding/search-providers/skip", { method: "POST" });
    onDone();
  }
  return (
    <>
      <CardHeader>
        <CardTitle className="text-2xl">{t("onboarding.search.title")}</CardTitle>
        <CardDescription>{t("onboarding.search.subtitle")}</CardDescription>
      </CardHeader>
      <CardContent className="flex flex-col gap-4">
        <ProviderSetup base="/api/search-providers" onChange={refresh} />
        {count === 0 ? <p className="text-sm text-muted-foreground">{t("onboarding.search.none")}</p> : null}
      </CardContent>
      <CardFooter className="justify-end gap-2">
        <Button variant="ghost" size="lg" onClick={() => void skip()}>
          {t("common.skip")}
        </Button>
        <Button size="lg" disabled={count === 0} onClick={onDone}>
          {t("onboarding.finish")}
        </Button>
      </CardFooter>
    </>
  );
}

/** `/onboarding`: the first visit's wizard (identity, AI providers, search providers). */
export default function OnboardingPage() {
  const navigate = useNavigate();
  const [step, setStep] = React.useState<Step | null>(null);

  const next = React.useCallback(async () => {
    const status = await api<{ step: Step }>("/api/onboarding");
    if (status.step === "first_kin" || status.step === "done") {
      navigate("/", { replace: true });
      return;
    }
    if (status.step !== "identity") {
      // Later steps are an administrator's: make sure someone is signed in.
      try {
        await api("/api/me");
      } catch {
        navigate("/signin", { replace: true });
        return;
      }
    }
    setStep(status.step);
  }, [navigate]);

  React.useEffect(() => {
    void next();
  }, [next]);

  if (step === null) return null;
  const index = ORDER.indexOf(step);
  const done = () => void next();
  return (
    <main className="flex min-h-dvh flex-col items-center bg-[radial-gradient(ellipse_at_top,var(--accent),transparent_60%)] p-4 sm:p-8">
      <div className="fixed top-3 right-3">
        <ThemeToggle />
      </div>
      <div className="flex w-full max-w-2xl flex-col items-center gap-6 pt-4 sm:pt-10">
        <div className="flex items-center gap-3">
          <img src="/favicon.svg" alt="" className="size-10" />
          <span className="text-2xl font-extrabold tracking-tight">KinBot</span>
        </div>
        <Steps current={index} total={ORDER.length} />
        <Card className="w-full animate-rise-in" key={step}>
          {step === "identity" ? <IdentityStep onDone={done} /> : step === "providers" ? <ProvidersStep onDone={done} /> : <SearchStep onDone={done} />}
        </Card>
      </div>
    </main>
  );
}
