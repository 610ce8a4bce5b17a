import * as React from "react";
import { useTranslation } from "react-i18next";

import { Button } from "@/components/ui/button";
import { Dialog, DialogContent, DialogDescription, DialogFooter, DialogHeader, DialogTitle } from "@/components/ui/dialog";
import { Field, Input } from "@/components/ui/input";
import { NativeSelect } from "@/components/ui/native-select";
import { Textarea } from "@/components/ui/textarea";
import { api, ApiError } from "@/lib/api";
import type { Kin, Provider, ProviderModel } from "@/lib/types";

export interface ModelChoice {
  value: string;
  label: string;
}

/** Every language model of the configured AI providers, as `<provider name>/<model id>`. */
export async function languageModels(): Promise<ModelChoice[]> {
  const { providers } = await api<{ providers: Provider[] }>("/api/providers");
  const lists = await Promise.all(
    providers
      .filter((provider) => provider.capabilities.includes("llm"))
      .map(async (provider) => {
        const { models } = await api<{ models: ProviderModel[] }>(`/api/providers/${provider.id}/models`);
        return models
          .filter((model) => model.capability === "llm")
          .map((model) => ({ value: `${provider.name}/${model.id}`, label: `${model.label || model.id} · ${provider.name}` }));
      }),
  );
  return lists.flat();
}

/** The dialog that creates a Kin: name, role, character, expertise and model. */
export function CreateKinDialog({ open, onOpenChange, onCreated, title, description }: { open: boolean; onOpenChange: (open: boolean) => void; onCreated: (kin: Kin) => void; title?: string; description?: string }) {
  const { t } = useTranslation();
  const [models, setModels] = React.useState<ModelChoice[] | null>(null);
  const [error, setError] = React.useState<string | null>(null);
  const [busy, setBusy] = React.useState(false);

  React.useEffect(() => {
    if (!open) return;
    setError(null);
    languageModels()
      .then(setModels)
      .catch((caught: Error) => {
        setModels([]);
        setError(caught.message);
      });
  }, [open]);

  async function submit(event: React.FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    setBusy(true);
    setError(null);
    try {
      const { kin } = await api<{ kin: Kin }>("/api/kins", {
        body: {
          name: String(form.get("name") ?? "").trim(),
          role: String(form.get("role") ?? "").trim(),
          character: String(form.get("character") ?? "").trim(),
          expertise: String(form.get("expertise") ?? "").trim(),
          model: String(form.get("model") ?? ""),
        },
      });
      onCreated(kin);
      onOpenChange(false);
    } catch (caught) {
      setError(caught instanceof ApiError ? caught.message : String(caught));
    } finally {
      setBusy(false);
    }
  }

  return (
    <Dialog open={open} onOpenChange={onOpenChange}>
      <DialogContent closeLabel={t("common.close")} className="max-w-xl">
        <DialogHeader>
          <DialogTitle>{title ?? t("kin.newTitle")}</DialogTitle>
          <DialogDescription>{description ?? t("kin.newSubtitle")}</DialogDescription>
        </DialogHeader>
        <form className="flex flex-col gap-4" onSubmit={(event) => void submit(event)}>
          <div className="grid gap-4 sm:grid-cols-2">
            <Field label={t("kin.name")} htmlFor="kin-name">
              <Input id="kin-name" name="name" required maxLength={100} placeholder={t("kin.namePlaceholder")} />
            </Field>
            <Field label={t("kin.role")} htmlFor="kin-role">
              <Input id="kin-role" name="role" required maxLength={200} placeholder={t("kin.rolePlaceholder")} />
            </Field>
          </div>
          <Field label={t("kin.character")} htmlFor="kin-character">
            <Textarea id="kin-character" name="character" rows={2} placeholder={t("kin.characterPlaceholder")} />
          </Field>
          <Field label={t("kin.expertise")} htmlFor="kin-expertise">
            <Textarea id="kin-expertise" name="expertise" rows={2} placeholder={t("kin.expertisePlaceholder")} />
          </Field>
          <Field label={t("kin.model")} htmlFor="kin-model" error={models?.length === 0 ? t("kin.noModels") : undefined}>
            <NativeSelect id="kin-model" name="model" required defaultValue="" disabled={!models?.length}>
              <option value="" disabled>
                {models === null ? t("common.loading") : t("kin.chooseModel")}
              </option>
              {models?.map((model) => (
                <option key={model.value} value={model.value}>
                  {model.label}
                </option>
              ))}
            </NativeSelect>
          </Field>
          {error ? (
            <p className="text-sm font-medium text-destructive" role="alert">
              {error}
            </p>
          ) : null}
          <DialogFooter>
            <Button type="button" variant="secondary" onClick={() => onOpenChange(false)}>
              {t("common.cancel")}
            </Button>
            <Button type="submit" disabled={busy || !models?.length}>
              {t("kin.create")}
            </Button>
          </DialogFooter>
        </form>
      </DialogContent>
    </Dialog>
  );
}
