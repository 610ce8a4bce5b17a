import * as React from "react";
import { useTranslation } from "react-i18next";

import { languageModels, type ModelChoice } from "@/components/app/create-kin-dialog";
import { Card, CardContent, CardHeader, CardTitle } from "@/components/ui/card";
import { Field } from "@/components/ui/input";
import { NativeSelect } from "@/components/ui/native-select";
import { useToast } from "@/components/ui/toast";
import { api } from "@/lib/api";
import { errorText } from "@/lib/errors";
import type { Kin } from "@/lib/types";

/** What a Kin's override may say besides a model: "the Kin's own model" (empty: KinBot's choice). */
export const OWN_MODEL = "@kin";

type Purpose = "memory_extraction_model" | "compacting_model";

/** The models of a Kin's background work (memory extraction, summaries), each saved as soon as it is chosen. */
export function KinBackgroundModels({ kin, onChange }: { kin: Kin; onChange: (kin: Kin) => void }) {
  const { t } = useTranslation();
  const { toast } = useToast();
  const [models, setModels] = React.useState<ModelChoice[]>([]);
  const fail = React.useCallback((error: unknown) => toast({ title: t("errors.generic"), description: errorText(t, error), tone: "error" }), [toast, t]);
  React.useEffect(() => {
    languageModels().then(setModels).catch(fail);
  }, [fail]);

  async function save(purpose: Purpose, value: string) {
    try {
      onChange((await api<{ kin: Kin }>(`/api/kins/${kin.id}`, { method: "PATCH", body: { [purpose]: value } })).kin);
      toast({ title: t("account.saved"), tone: "success" });
    } catch (error) {
      fail(error);
    }
  }

  function select(purpose: Purpose, label: string) {
    const current = kin[purpose] ?? "";
    const listed = current === "" || current === OWN_MODEL || models.some((model) => model.value === current);
    const id = `kin-${purpose.replaceAll("_", "-")}`;
    return (
      <Field label={label} htmlFor={id}>
        <NativeSelect id={id} value={current} onChange={(event) => void save(purpose, event.target.value)}>
          <option value="">{t("memoryUse.platformChoice")}</option>
          <option value={OWN_MODEL}>{t("memoryUse.ownModel", { name: kin.name })}</option>
          {listed ? null : <option value={current}>{current}</option>}
          {models.map((model) => (
            <option key={model.value} value={model.value}>
              {model.label}
            </option>
          ))}
        </NativeSelect>
      </Field>
    );
  }

  return (
    <Card className="mt-4" data-background-models>
      <CardHeader>
        <CardTitle className="text-base">{t("memoryUse.modelsTitle")}</CardTitle>
      </CardHeader>
      <CardContent className="flex flex-col gap-4">
        <p className="text-sm text-muted-foreground">{t("memoryUse.modelsHint", { name: kin.name })}</p>
        <div className="grid grid-cols-1 gap-4 sm:grid-cols-2">
          {select("memory_extraction_model", t("memoryUse.extractionModel"))}
          {select("compacting_model", t("memoryUse.compactingModel"))}
        </div>
      </CardContent>
    </Card>
  );
}
