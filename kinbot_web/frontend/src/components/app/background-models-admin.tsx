import { SaveIcon } from "lucide-react";
import * as React from "react";
import { useTranslation } from "react-i18next";

import { modelChoiceLabel } from "@/components/app/context-window";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { Field } from "@/components/ui/input";
import { NativeSelect } from "@/components/ui/native-select";
import { useToast } from "@/components/ui/toast";
import { api } from "@/lib/api";
import { errorText } from "@/lib/errors";

type Purpose = "memory_extraction_model" | "compacting_model";
const PURPOSES: Purpose[] = ["memory_extraction_model", "compacting_model"];

/** A chat model of a configured provider, as `GET /api/settings/background-models` lists it. */
export interface BackgroundModelChoice {
  /** What is stored: `<provider name>/<model id>`. */
  value: string;
  provider: string;
  id: string;
  label: string | null;
  context_window: number | null;
  /** Its provider's cheapest capable model (what the default picks for Kins of it). */
  light: boolean;
}

/** `GET`/`PUT /api/settings/background-models`. */
export interface BackgroundModels {
  memory_extraction_model: string;
  compacting_model: string;
  /** Whether each was chosen here (else it comes from the server's configuration). */
  stored: Record<Purpose, boolean>;
  /** The value meaning "each Kin's own model". */
  own_model: string;
  models: BackgroundModelChoice[];
}

type Draft = Record<Purpose, string>;

const ROUTE = "/api/settings/background-models";

/** Settings → AI providers: the models of every Kin's memory extraction and compacting,
 * platform-wide (a Kin's own settings may still choose otherwise). */
export function BackgroundModelsAdmin() {
  const { t } = useTranslation();
  const { toast } = useToast();
  const [data, setData] = React.useState<BackgroundModels | null>(null);
  const [draft, setDraft] = React.useState<Draft>({ memory_extraction_model: "", compacting_model: "" });
  const [busy, setBusy] = React.useState(false);
  const fail = React.useCallback((caught: unknown) => toast({ title: t("errors.generic"), description: errorText(t, caught), tone: "error" }), [toast, t]);

  const show = React.useCallback((found: BackgroundModels) => {
    setData(found);
    setDraft({ memory_extraction_model: found.memory_extraction_model, compacting_model: found.compacting_model });
  }, []);
  React.useEffect(() => {
    api<BackgroundModels>(ROUTE).then(show).catch(fail);
  }, [show, fail]);

  if (!data) return null;
  const changed = PURPOSES.some((purpose) => draft[purpose] !== data[purpose]);

  async function save(event: React.FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setBusy(true);
    try {
      show(await api<BackgroundModels>(ROUTE, { method: "PUT", body: draft }));
      toast({ title: t("backgroundModels.saved"), tone: "success" });
    } catch (caught) {
      fail(caught);
    } finally {
      setBusy(false);
    }
  }

  function select(purpose: Purpose, label: string, loaded: BackgroundModels) {
    const current = draft[purpose];
    const known = current === "" || current === loaded.own_model || loaded.models.some((model) => model.value === current);
    const id = `background-${purpose.replaceAll("_", "-")}`;
    const fromConfig = !loaded.stored[purpose] && loaded[purpose] !== "" && current === loaded[purpose];
    return (
      <Field label={label} htmlFor={id} hint={fromConfig ? t("backgroundModels.fromConfig") : undefined}>
        <NativeSelect id={id} value={current} disabled={busy} onChange={(event) => setDraft((before) => ({ ...before, [purpose]: event.target.value }))}>
          <option value="">{t("backgroundModels.cheapest")}</option>
          <option value={loaded.own_model}>{t("backgroundModels.own")}</option>
          {known ? null : <option value={current}>{t("backgroundModels.unlisted", { model: current })}</option>}
          {loaded.models.map((model) => {
            const text = modelChoiceLabel({ ...model, capability: "llm" }, model.provider);
            return (
              <option key={model.value} value={model.value}>
                {model.light ? t("backgroundModels.lightMark", { label: text, provider: model.provider }) : text}
              </option>
            );
          })}
        </NativeSelect>
      </Field>
    );
  }

  return (
    <Card className="mt-6" data-background-models-admin>
      <CardHeader>
        <CardTitle className="text-base">{t("backgroundModels.title")}</CardTitle>
        <CardDescription>{t("backgroundModels.intro")}</CardDescription>
      </CardHeader>
      <CardContent>
        <form className="flex flex-col gap-4" onSubmit={(event) => void save(event)}>
          <div className="grid grid-cols-1 gap-4 md:grid-cols-2">
            {select("memory_extraction_model", t("backgroundModels.extraction"), data)}
            {select("compacting_model", t("backgroundModels.compacting"), data)}
          </div>
          <div>
            <Button type="submit" disabled={busy || !changed}>
              <SaveIcon /> {t("backgroundModels.save")}
            </Button>
          </div>
        </form>
      </CardContent>
    </Card>
  );
}
