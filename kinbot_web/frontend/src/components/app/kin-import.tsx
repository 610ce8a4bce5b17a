import { UploadIcon } from "lucide-react";
import * as React from "react";
import { useTranslation } from "react-i18next";

import type { ModelChoice } from "@/components/app/create-kin-dialog";
import { Button } from "@/components/ui/button";
import { Field, Input } from "@/components/ui/input";
import { NativeSelect } from "@/components/ui/native-select";
import { useToast } from "@/components/ui/toast";
import { api } from "@/lib/api";
import { errorText } from "@/lib/errors";
import type { Kin } from "@/lib/types";

interface Imported {
  kin: Kin;
  counts: { memories: number; contacts: number; crons: number; custom_tools: number; avatar: number };
}

/**
 * In the new Kin dialog: "Import a Kin from a file" opens a small form (the file, and a model
 * when the file's is not offered here) that creates the Kin with `POST /api/kins/import`.
 */
export function KinImport({ models, onImported }: { models: ModelChoice[] | null; onImported: (kin: Kin) => void }) {
  const { t } = useTranslation();
  const { toast } = useToast();
  const [open, setOpen] = React.useState(false);
  const [busy, setBusy] = React.useState(false);
  const [error, setError] = React.useState<string | null>(null);
  // Opened, the form takes the button's place below the new Kin's form: the file field is
  // brought into view and focused, so that neither the eyes nor the keyboard lose their place.
  const fileField = React.useCallback((field: HTMLInputElement | null) => {
    field?.scrollIntoView({ block: "nearest" });
    field?.focus();
  }, []);

  async function submit(event: React.FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    if (!form.get("model")) form.delete("model");
    setBusy(true);
    setError(null);
    try {
      const { kin, counts } = await api<Imported>("/api/kins/import", { body: form });
      toast({
        title: t("kinFiles.imported", { name: kin.name, memories: counts.memories, contacts: counts.contacts, crons: counts.crons, tools: counts.custom_tools }),
      });
      onImported(kin);
    } catch (caught) {
      setError(errorText(t, caught));
    } finally {
      setBusy(false);
    }
  }

  if (!open) {
    return (
      <Button type="button" variant="secondary" className="self-start" onClick={() => setOpen(true)}>
        <UploadIcon className="size-4" aria-hidden /> {t("kinFiles.importOpen")}
      </Button>
    );
  }
  return (
    <form aria-label={t("kinFiles.importTitle")} className="flex flex-col gap-3 rounded-lg border p-3" onSubmit={(event) => void submit(event)}>
      <p className="text-sm font-semibold">{t("kinFiles.importTitle")}</p>
      <p className="text-xs text-muted-foreground">{t("kinFiles.importHint")}</p>
      <Field label={t("kinFiles.file")} htmlFor="kin-import-file">
        <Input ref={fileField} id="kin-import-file" name="file" type="file" required accept=".zip,application/zip" />
      </Field>
      <Field label={t("kinFiles.model")} htmlFor="kin-import-model">
        <NativeSelect id="kin-import-model" name="model" defaultValue="">
          <option value="">{t("kinFiles.fileModel")}</option>
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
      <Button type="submit" className="self-start" disabled={busy}>
        {busy ? t("kinFiles.importing") : t("kinFiles.importButton")}
      </Button>
    </form>
  );
}
