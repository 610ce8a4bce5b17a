import * as React from "react";
import { useTranslation } from "react-i18next";
import { useNavigate, useSearchParams } from "react-router";

import { IdentityForm } from "@/components/app/identity-form";
import { LocalSetup } from "@/components/app/local-setup";
import { ProviderSetup } from "@/components/app/provider-setup";
import { capabilityList } from "@/components/app/provider-words";
import { Steps } from "@/components/app/steps";
import { ThemeToggle } from "@/components/theme-toggle";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardFooter, CardHeader, CardTitle } from "@/components/ui/card";
import { Field, Input } from "@/components/ui/input";
import { setLanguage } from "@/i18n";
import { api, ApiError } from "@/lib/api";
import type { Coverage, Provider, User } from "@/lib/types";

type Step = "identity" | "providers" | "search_providers" | "first_kin" | "done";
const ORDER: Step[] = ["identity", "providers", "search_providers"];
/** The API's refusals of screen 1 from another machine without the right set-up code. */
const SETUP_CODE_ERRORS: Record<string, string> = {
  setup_code_required: "onboarding.identity.setupCodeRequired",
  setup_code_invalid: "onboarding.identity.setupCodeInvalid",
};

/** Screen 1. From another machine than the server's, the set-up code printed in its log is
 * asked for too: taken from the link's `?setup=` when the log's link was opened. */
function IdentityStep({ codeRequired, onDone }: { codeRequired: boolean; onDone: () => void }) {
  const { t } = useTranslation();
  const [search] = useSearchParams();
  const [code, setCode] = React.useState(() => search.get("setup") ?? "");
  const [askCode, setAskCode] = React.useState(codeRequired);
  const [codeError, setCodeError] = React.useState<string | undefined>();
  function onError(error: unknown): boolean {
    const key = error instanceof ApiError ? SETUP_CODE_ERRORS[error.code] : undefined;
    if (!key) return false;
    setAskCode(true);
    setCodeError(t(key));
    return true;
  }
  return (
    <IdentityForm
      endpoint="/api/onboarding/identity"
      extra={code.trim() ? { setup_code: code.trim() } : {}}
      title={t("onboarding.identity.title")}
      subtitle={t("onboarding.identity.subtitle")}
      submitLabel={t("common.continue")}
      onDone={onDone}
      onError={onError}
    >
      {askCode ? (
        <Field label={t("onboarding.identity.setupCode")} htmlFor="setup_code" error={codeError} hint={t("onboarding.identity.setupCodeHint")}>
          <Input id="setup_code" value={code} onChange={(event) => setCode(event.target.value)} autoComplete="off" spellCheck={false} required aria-invalid={codeError ? true : undefined} />
        </Field>
      ) : null}
    </IdentityForm>
  );
}

function ProvidersStep({ onDone }: { onDone: () => void }) {
  const { t } = useTranslation();
  const [coverage, setCoverage] = React.useState<Coverage | null>(null);
  const [added, setAdded] = React.useState(0); // providers added by the local set-up: the list reads them again
  const refresh = React.useCallback(() => void api<Coverage>("/api/providers/coverage").then(setCoverage), []);
  React.useEffect(refresh, [refresh]);
  // The server names each feature in English; a feature this build knows is named in the user's language.
  const off = coverage ? Object.entries(coverage.disabled_features).map(([key, feature]) => t(`onboarding.providers.features.${key}`, { defaultValue: feature })) : [];
  return (
    <>
      <CardHeader>
        <CardTitle level={1} className="text-2xl">{t("onboarding.providers.title")}</CardTitle>
        <CardDescription>{t("onboarding.providers.subtitle")}</CardDescription>
      </CardHeader>
      <CardContent className="flex flex-col gap-4">
        <LocalSetup
          coverage={coverage}
          onChange={() => {
            refresh();
            setAdded((count) => count + 1);
          }}
        />
        <ProviderSetup base="/api/providers" onChange={refresh} reloadKey={added} />
        {coverage ? (
          <div className="flex flex-col gap-1 text-sm" role="status">
            {coverage.ready ? (
              <p className="font-semibold text-success">{t("onboarding.providers.covered")}</p>
            ) : (
              <p className="font-semibold">{t("onboarding.providers.needs", { capabilities: capabilityList(t, coverage.missing_required) })}</p>
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
        <CardTitle level={1} className="text-2xl">{t("onboarding.search.title")}</CardTitle>
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
  const [codeRequired, setCodeRequired] = React.useState(false);

  const next = React.useCallback(async () => {
    const status = await api<{ step: Step; setup_code_required: boolean; signed_in: boolean }>(
      "/api/onboarding",
    );
    if (status.step === "first_kin" || status.step === "done") {
      navigate("/", { replace: true });
      return;
    }
    if (status.step !== "identity") {
      // Later steps are an administrator's: make sure someone is signed in.
      if (!status.signed_in) {
        navigate("/signin", { replace: true });
        return;
      }
      try {
        const { user } = await api<{ user: User }>("/api/me");
        setLanguage(user.language); // a reload of a later step: the administrator's language
      } catch {
        navigate("/signin", { replace: true });
        return;
      }
    }
    setCodeRequired(status.setup_code_required);
    setStep(status.step);
  }, [navigate]);

  React.useEffect(() => {
    void next();
  }, [next]);

  // Each new step starts at its top, its title taking the focus (the keyboard goes on from it).
  const card = React.useRef<HTMLDivElement>(null);
  const shownStep = React.useRef<Step | null>(null);
  React.useEffect(() => {
    if (step === null) return;
    const first = shownStep.current === null;
    shownStep.current = step;
    if (first) return;
    window.scrollTo({ top: 0 });
    const title = card.current?.querySelector<HTMLElement>("h1, h2, h3");
    if (title) {
      title.tabIndex = -1;
      title.focus({ preventScroll: true });
    }
  }, [step]);

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
        <Card className="w-full animate-rise-in" key={step} ref={card}>
          {step === "identity" ? <IdentityStep codeRequired={codeRequired} onDone={done} /> : step === "providers" ? <ProvidersStep onDone={done} /> : <SearchStep onDone={done} />}
        </Card>
      </div>
    </main>
  );
}
