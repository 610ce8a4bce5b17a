import { CheckCircle2Icon, HouseIcon } from "lucide-react";
import * as React from "react";
import { useTranslation } from "react-i18next";

import { defaultProviderName, initialConfig } from "@/components/app/provider-words";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { Field, Input } from "@/components/ui/input";
import { api } from "@/lib/api";
import { errorText } from "@/lib/errors";
import type { Coverage, Provider, ProviderType } from "@/lib/types";

const SERVER_TYPE = "openai-compatible";
const MEMORY_TYPE = "local-embeddings";

/**
 * The local path in one step, without any account: a chat model from an OpenAI-compatible
 * server (Ollama, LM Studio…) and, unless that server already offers it, memory search on
 * this computer. Shown only when both types are offered; what is already covered is kept.
 */
export function LocalSetup({ coverage, onChange }: { coverage: Coverage | null; onChange: () => void }) {
  const { t } = useTranslation();
  const [types, setTypes] = React.useState<ProviderType[] | null>(null);
  const [address, setAddress] = React.useState("");
  const [error, setError] = React.useState<string | null>(null);
  const [busy, setBusy] = React.useState(false);
  /** Whether the local models were set up here (then it says so). */
  const [setHere, setSetHere] = React.useState(false);

  React.useEffect(() => {
    void api<{ types: ProviderType[] }>("/api/providers/types").then(({ types: list }) => {
      setTypes(list);
      setAddress(initialConfig(list.find((type) => type.name === SERVER_TYPE)).base_url ?? "");
    });
  }, []);

  const server = types?.find((type) => type.name === SERVER_TYPE);
  const memory = types?.find((type) => type.name === MEMORY_TYPE);
  if (!server || !memory) return null;
  const covered = (capability: string) => Boolean(coverage?.capabilities[capability]?.length);
  // Chat and memory search covered by other providers (a cloud account): nothing to offer.
  if (covered("llm") && covered("embedding") && !setHere) return null;

  async function addOne(type: ProviderType, config: Record<string, string>) {
    const { providers } = await api<{ providers: Provider[] }>("/api/providers");
    const name = defaultProviderName(t, type, providers.map((provider) => provider.name));
    await api("/api/providers", { body: { type: type.name, name, config } });
  }

  async function setUp(event: React.FormEvent) {
    event.preventDefault();
    if (!server || !memory) return;
    setBusy(true);
    setError(null);
    try {
      if (!covered("llm")) {
        await addOne(server, { base_url: address.trim() });
        onChange(); // shown at once: memory search may take a while (its model loads)
      }
      const now = await api<Coverage>("/api/providers/coverage");
      if (!now.capabilities.embedding?.length) await addOne(memory, {});
      setSetHere(true);
    } catch (caught) {
      setError(errorText(t, caught));
    } finally {
      setBusy(false);
      onChange();
    }
  }

  return (
    <Card className="border-primary/40 shadow-none" data-local-setup>
      <CardHeader className="pb-2">
        <CardTitle className="flex items-center gap-2 text-base">
          <HouseIcon className="size-4" aria-hidden /> {t("firstRun.local.title")}
        </CardTitle>
        <CardDescription>{t("firstRun.local.text")}</CardDescription>
      </CardHeader>
      <CardContent>
        {setHere ? (
          <p className="flex items-center gap-2 text-sm text-success" role="status">
            <CheckCircle2Icon className="size-4" aria-hidden /> {t("firstRun.local.done")}
          </p>
        ) : (
          <form className="flex flex-col gap-3" onSubmit={(event) => void setUp(event)}>
            <Field label={t("firstRun.local.address")} htmlFor="local-address" hint={t("firstRun.hints.openai-compatible.base_url")}>
              <Input id="local-address" type="url" required value={address} onChange={(event) => setAddress(event.target.value)} autoComplete="off" spellCheck={false} />
            </Field>
            <Button type="submit" disabled={busy} className="self-start">
              {busy ? t("firstRun.local.working") : t("firstRun.local.use")}
            </Button>
          </form>
        )}
        {error ? (
          <p className="mt-2 text-sm font-medium text-destructive" role="alert">
            {error}
          </p>
        ) : null}
      </CardContent>
    </Card>
  );
}
