import { CheckCircle2Icon, CircleAlertIcon, PlugZapIcon, PlusIcon, TriangleAlertIcon } from "lucide-react";
import * as React from "react";
import { useTranslation } from "react-i18next";

import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { Field, Input } from "@/components/ui/input";
import { NativeSelect } from "@/components/ui/native-select";
import { ProviderActions, secretHintText } from "@/components/app/provider-manage";
import { capabilityList, capabilityWord, defaultProviderName, fieldHint, fieldLabel, initialConfig, needsAccount, typeLabel } from "@/components/app/provider-words";
import { api } from "@/lib/api";
import { connectionDetail, connectionText, errorText } from "@/lib/errors";
import type { ConnectionReport, Provider, ProviderType } from "@/lib/types";

/** The configured providers of one kind (edited and removed when `manage`), and a form to
 * test and add another. A change of `reloadKey` reads the lists again (a provider added elsewhere). */
export function ProviderSetup({ base, onChange, manage = false, reloadKey = 0 }: { base: "/api/providers" | "/api/search-providers"; onChange?: () => void; manage?: boolean; reloadKey?: number }) {
  const { t } = useTranslation();
  const ids = base === "/api/providers" ? "ai" : "search"; // prefix of the fields' ids
  const [types, setTypes] = React.useState<ProviderType[]>([]);
  const [providers, setProviders] = React.useState<Provider[]>([]);
  const [typeName, setTypeName] = React.useState("");
  const [name, setName] = React.useState("");
  const [config, setConfig] = React.useState<Record<string, string>>({});
  const [report, setReport] = React.useState<ConnectionReport | null>(null);
  const [error, setError] = React.useState<string | null>(null);
  const [busy, setBusy] = React.useState(false);
  const chosen = React.useRef(false); // a type was chosen: a reload keeps it

  const reload = React.useCallback(async () => {
    const [typeList, providerList] = await Promise.all([
      api<{ types: ProviderType[] }>(`${base}/types`),
      api<{ providers: Provider[] }>(base),
    ]);
    setTypes(typeList.types);
    setProviders(providerList.providers);
    // The server lists the types most people have first: the form opens on the first one.
    const first = typeList.types[0];
    if (!chosen.current && first) {
      chosen.current = true;
      setTypeName(first.name);
      setConfig(initialConfig(first));
    }
  }, [base]);

  React.useEffect(() => {
    void reload();
  }, [reload, reloadKey]);

  const type = types.find((candidate) => candidate.name === typeName);
  const fallbackName = type ? defaultProviderName(t, type, providers.map((provider) => provider.name)) : "";
  const body = () => ({
    type: typeName,
    name: name.trim() || fallbackName,
    config: Object.fromEntries(Object.entries(config).filter(([, value]) => value.trim() !== "")),
  });

  function chooseType(next: string) {
    chosen.current = true;
    setTypeName(next);
    setConfig(initialConfig(types.find((candidate) => candidate.name === next)));
    setReport(null);
    setError(null);
  }

  async function run(action: () => Promise<void>) {
    setBusy(true);
    setError(null);
    try {
      await action();
    } catch (caught) {
      setError(errorText(t, caught));
    } finally {
      setBusy(false);
    }
  }

  const test = () => run(async () => setReport(await api<ConnectionReport>(`${base}/test`, { body: body() })));
  const reportDetail = report ? connectionDetail(t, report) : null;
  const add = () =>
    run(async () => {
      setReport(null); // adding tests again: a refusal says the same, once
      await api(base, { body: body() });
      setConfig(initialConfig(type));
      setName("");
      setReport(null);
      await reload();
      onChange?.();
    });

  return (
    <div className="flex flex-col gap-4">
      <section aria-labelledby={`${ids}-configured`} className="flex flex-col gap-2">
        <h2 id={`${ids}-configured`} className="text-sm font-bold text-muted-foreground">
          {t("onboarding.providers.configured")}
        </h2>
        {providers.length === 0 ? <p className="text-sm text-muted-foreground">{t("onboarding.providers.none")}</p> : null}
        <ul className="flex flex-col gap-2">
          {providers.map((provider) => (
            <li key={provider.id} className="flex flex-wrap items-center gap-2 rounded-xl bg-muted px-3 py-2" data-provider={provider.name}>
              {provider.unreadable ? <TriangleAlertIcon className="size-4 text-destructive" aria-hidden /> : <CheckCircle2Icon className="size-4 text-success" aria-hidden />}
              <span className="font-semibold">{provider.name}</span>
              <span className="text-xs text-muted-foreground">{Object.values(provider.secrets).map((hint) => secretHintText(t, hint)).join(" · ")}</span>
              {provider.unreadable ? (
                <span className="basis-full text-xs font-medium text-destructive order-last" data-provider-unreadable>
                  {t("apiErrors.codes.provider_settings_unreadable", { provider: provider.name })}
                </span>
              ) : null}
              <span className="flex-1" />
              {provider.capabilities.map((capability) => (
                <Badge key={capability} variant="success" data-capability={capability}>
                  {capabilityWord(t, capability)}
                </Badge>
              ))}
              {manage ? (
                <ProviderActions
                  base={base}
                  provider={provider}
                  type={types.find((candidate) => candidate.name === provider.type)}
                  onChange={() => {
                    void reload();
                    onChange?.();
                  }}
                />
              ) : null}
            </li>
          ))}
        </ul>
      </section>
      <Card className="shadow-none">
        <CardHeader className="pb-2">
          <CardTitle className="text-base">{t("onboarding.providers.add")}</CardTitle>
          {type ? (
            <CardDescription>
              {t("firstRun.gives", { capabilities: capabilityList(t, type.capabilities) })} {needsAccount(type) ? t("firstRun.needsAccount") : t("firstRun.noAccount")}
            </CardDescription>
          ) : null}
        </CardHeader>
        <CardContent>
          {/* Enter in a field adds the provider, as the Add button does (the server checks it). */}
          <form
            className="flex flex-col gap-3"
            noValidate
            onSubmit={(event) => {
              event.preventDefault();
              if (!busy && type) void add();
            }}
          >
            <div className="grid grid-cols-1 gap-3 sm:grid-cols-2">
              <Field label={t("onboarding.providers.type")} htmlFor={`${ids}-type`}>
                <NativeSelect id={`${ids}-type`} value={typeName} onChange={(event) => chooseType(event.target.value)}>
                  {types.map((candidate) => (
                    <option key={candidate.name} value={candidate.name}>
                      {typeLabel(t, candidate)}
                    </option>
                  ))}
                </NativeSelect>
              </Field>
              <Field label={`${t("onboarding.providers.name")} (${t("common.optional")})`} htmlFor={`${ids}-name`} hint={fallbackName ? t("firstRun.nameHint", { name: fallbackName }) : undefined}>
                <Input id={`${ids}-name`} value={name} placeholder={fallbackName} maxLength={64} onChange={(event) => setName(event.target.value)} />
              </Field>
              {type?.config_fields.map((field) => (
                <Field key={`${typeName}-${field.name}`} label={field.required ? fieldLabel(t, field) : `${fieldLabel(t, field)} (${t("common.optional")})`} htmlFor={`${ids}-${field.name}`} hint={fieldHint(t, type, field)}>
                  <Input
                    id={`${ids}-${field.name}`}
                    type={field.secret ? "password" : "text"}
                    autoComplete="off"
                    required={field.required}
                    value={config[field.name] ?? ""}
                    placeholder={field.default ?? undefined}
                    onChange={(event) => setConfig((current) => ({ ...current, [field.name]: event.target.value }))}
                  />
                </Field>
              ))}
            </div>
            {report ? (
              <p className={report.ok ? "flex flex-wrap items-center gap-2 text-sm text-success" : "flex flex-wrap items-center gap-2 text-sm text-destructive"} role="status">
                {report.ok ? <CheckCircle2Icon className="size-4" aria-hidden /> : <CircleAlertIcon className="size-4" aria-hidden />}
                {connectionText(t, report)}
                {report.capabilities.map((capability) => (
                  <Badge key={capability} variant="success" data-capability={capability}>
                    {capabilityWord(t, capability)}
                  </Badge>
                ))}
              </p>
            ) : null}
            {reportDetail ? (
              <p className="text-sm break-words text-muted-foreground" data-testid="connection-detail">
                {reportDetail}
              </p>
            ) : null}
            {error ? (
              <p className="text-sm font-medium text-destructive" role="alert">
                {error}
              </p>
            ) : null}
            <div className="flex flex-wrap gap-2">
              <Button type="button" variant="outline" onClick={() => void test()} disabled={busy || !type}>
                <PlugZapIcon /> {t("common.test")}
              </Button>
              <Button type="submit" disabled={busy || !type}>
                <PlusIcon /> {t("common.add")}
              </Button>
            </div>
          </form>
        </CardContent>
      </Card>
    </div>
  );
}
