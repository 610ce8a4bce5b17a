import * as React from "react";
import { useTranslation } from "react-i18next";

import { modelChoiceLabel } from "@/components/app/context-window";
import { KinImport } from "@/components/app/kin-import";
import { Button } from "@/components/ui/button";
import { Dialog, DialogContent, DialogDescription, DialogFooter, DialogHeader, DialogTitle } from "@/components/ui/dialog";
import { Field, Input } from "@/components/ui/input";
import { NativeSelect } from "@/components/ui/native-select";
import { Textarea } from "@/components/ui/textarea";
import { useToast } from "@/components/ui/toast";
import { api } from "@/lib/api";
import { errorText } from "@/lib/errors";
import type { Coverage, Kin, Provider, ProviderModel } from "@/lib/types";

/** How the new Kin gets its picture: none yet, a file, or generated (with an image provider). */
export type AvatarMode = "later" | "upload" | "auto" | "prompt";

interface McpChoice {
  id: string;
  name: string;
}

/** What the dialog may offer besides the profile: generated avatars, the MCP servers. */
async function extras(): Promise<{ image: boolean; servers: McpChoice[] }> {
  const [coverage, servers] = await Promise.all([
    api<Coverage>("/api/providers/coverage"),
    // 503 while the MCP plugin is off: no servers to offer.
    api<{ servers: McpChoice[] }>("/api/mcp-servers").then(({ servers: list }) => list, () => []),
  ]);
  return { image: !("image" in coverage.disabled_features), servers };
}

/** After the Kin exists: its avatar (uploaded or generated) and its MCP servers; the Kin as it ends up. */
async function finish(kin: Kin, avatar: { mode: AvatarMode; file: File | null; prompt: string }, serverIds: string[]): Promise<Kin> {
  let current = kin;
  if (avatar.mode === "upload" && avatar.file) {
    const body = new FormData();
    body.append("avatar", avatar.file);
    current = (await api<{ kin: Kin }>(`/api/kins/${kin.id}/avatar`, { method: "PUT", body })).kin;
  } else if (avatar.mode === "auto" || avatar.mode === "prompt") {
    const body = avatar.mode === "auto" ? { mode: "auto" } : { mode: "prompt", prompt: avatar.prompt.trim() };
    current = (await api<{ kin: Kin }>(`/api/kins/${kin.id}/avatar/generate`, { body })).kin;
  }
  if (serverIds.length) await api(`/api/kins/${kin.id}/mcp-servers`, { method: "PUT", body: { server_ids: serverIds } });
  return current;
}

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
          .map((model) => ({ value: `${provider.name}/${model.id}`, label: modelChoiceLabel(model, provider.name) }));
      }),
  );
  return lists.flat();
}

/** Focus the chat's composer once it is on the page (the new Kin's chat renders after the dialog closes). */
function focusComposer(): void {
  const focus = () => {
    const composer = document.getElementById("composer");
    composer?.focus();
    return Boolean(composer);
  };
  if (focus()) return;
  const watcher = new MutationObserver(() => focus() && watcher.disconnect());
  watcher.observe(document.body, { childList: true, subtree: true });
  window.setTimeout(() => watcher.disconnect(), 10_000); // a chat that never shows: stop watching
}

/**
 * The dialog that creates a Kin: name, role, character, expertise, model, avatar (uploaded;
 * generated from its identity or a description only with an image provider) and MCP servers.
 */
export function CreateKinDialog({ open, onOpenChange, onCreated, title, description }: { open: boolean; onOpenChange: (open: boolean) => void; onCreated: (kin: Kin) => void; title?: string; description?: string }) {
  const { t } = useTranslation();
  const [models, setModels] = React.useState<ModelChoice[] | null>(null);
  const [error, setError] = React.useState<string | null>(null);
  const [busy, setBusy] = React.useState(false);
  const [options, setOptions] = React.useState<{ image: boolean; servers: McpChoice[] }>({ image: false, servers: [] });
  const [avatarMode, setAvatarMode] = React.useState<AvatarMode>("later");
  const created = React.useRef(false); // closed after creating: the composer gets the focus
  const { toast } = useToast();

  React.useEffect(() => {
    if (!open) return;
    created.current = false;
    setError(null);
    setAvatarMode("later");
    languageModels()
      .then(setModels)
      .catch((caught: Error) => {
        setModels([]);
        setError(errorText(t, caught));
      });
    extras()
      .then(setOptions)
      .catch(() => setOptions({ image: false, servers: [] }));
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
      const avatar = { mode: avatarMode, file: form.get("avatar") instanceof File && (form.get("avatar") as File).size ? (form.get("avatar") as File) : null, prompt: String(form.get("avatar_prompt") ?? "") };
      let kinNow = kin;
      try {
        kinNow = await finish(kin, avatar, form.getAll("mcp_server").map(String));
      } catch (caught) {
        // The Kin exists: keep it, and say what did not work (its settings can redo it).
        toast({ title: t("kin.partly", { name: kin.name, error: errorText(t, caught) }), tone: "error" });
      }
      created.current = true;
      onCreated(kinNow);
      onOpenChange(false);
    } catch (caught) {
      setError(errorText(t, caught));
    } finally {
      setBusy(false);
    }
  }

  return (
    <Dialog open={open} onOpenChange={onOpenChange}>
      <DialogContent
        closeLabel={t("common.close")}
        className="max-w-xl"
        onCloseAutoFocus={(event) => {
          if (!created.current) return; // cancelled: focus goes back to what opened the dialog
          event.preventDefault();
          focusComposer();
        }}
      >
        <DialogHeader>
          <DialogTitle>{title ?? t("kin.newTitle")}</DialogTitle>
          <DialogDescription>{description ?? t("kin.newSubtitle")}</DialogDescription>
        </DialogHeader>
        <form className="flex flex-col gap-4" onSubmit={(event) => void submit(event)}>
          <div className="grid grid-cols-1 gap-4 sm:grid-cols-2">
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
          <fieldset className="flex flex-col gap-2">
            <legend className="mb-1.5 text-sm font-semibold">{t("kin.avatar")}</legend>
            <div className="flex flex-wrap gap-x-4 gap-y-2 text-sm">
              {(["later", "upload", ...(options.image ? (["auto", "prompt"] as const) : [])] as AvatarMode[]).map((mode) => (
                <label key={mode} className="inline-flex cursor-pointer items-center gap-2">
                  <input type="radio" name="avatar_mode" value={mode} checked={avatarMode === mode} onChange={() => setAvatarMode(mode)} className="size-4 accent-(--link)" />
                  {t(`kin.avatar${mode[0].toUpperCase()}${mode.slice(1)}` as "kin.avatarLater")}
                </label>
              ))}
            </div>
            {options.image ? null : <p className="text-xs text-muted-foreground">{t("kin.avatarNeedsImage")}</p>}
            {avatarMode === "upload" ? (
              <Field label={t("kin.avatarPicture")} htmlFor="kin-avatar-file">
                <Input id="kin-avatar-file" name="avatar" type="file" required accept="image/png,image/jpeg,image/webp,image/gif" />
              </Field>
            ) : null}
            {avatarMode === "prompt" ? (
              <Field label={t("kin.avatarDescription")} htmlFor="kin-avatar-prompt">
                <Textarea id="kin-avatar-prompt" name="avatar_prompt" rows={2} required placeholder={t("kinSettings.promptPlaceholder")} />
              </Field>
            ) : null}
          </fieldset>
          {options.servers.length ? (
            <fieldset className="flex flex-col gap-2">
              <legend className="mb-1.5 text-sm font-semibold">{t("kin.mcp")}</legend>
              <p className="text-xs text-muted-foreground">{t("kin.mcpHint")}</p>
              <div className="flex flex-wrap gap-x-4 gap-y-2 text-sm">
                {options.servers.map((server) => (
                  <label key={server.id} className="inline-flex cursor-pointer items-center gap-2">
                    <input type="checkbox" name="mcp_server" value={server.id} className="size-4 accent-(--link)" />
                    {server.name}
                  </label>
                ))}
              </div>
            </fieldset>
          ) : null}
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
        <KinImport models={models} onImported={(kin) => { created.current = true; onCreated(kin); onOpenChange(false); }} />
      </DialogContent>
    </Dialog>
  );
}
