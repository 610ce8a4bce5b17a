import { PencilIcon, Trash2Icon } from "lucide-react";
import * as React from "react";
import { useTranslation } from "react-i18next";

import { Button } from "@/components/ui/button";
import { Dialog, DialogClose, DialogContent, DialogDescription, DialogFooter, DialogHeader, DialogTitle } from "@/components/ui/dialog";
import { Field, Input } from "@/components/ui/input";
import { fieldHint, fieldLabel } from "@/components/app/provider-words";
import { api } from "@/lib/api";
import { errorText } from "@/lib/errors";
import type { Provider, ProviderType } from "@/lib/types";

/**
 * The changes to send for a provider: its name if it changed, and the configuration fields
 * typed in (a secret left empty is kept; a plain field is sent when it differs).
 */
export function providerPatch(provider: Provider, type: ProviderType | undefined, name: string, values: Record<string, string>): { name?: string; config?: Record<string, string> } {
  const patch: { name?: string; config?: Record<string, string> } = {};
  if (name.trim() && name.trim() !== provider.name) patch.name = name.trim();
  const config: Record<string, string> = {};
  for (const field of type?.config_fields ?? []) {
    const value = (values[field.name] ?? "").trim();
    const before = provider.config[field.name];
    if (field.secret ? value !== "" : value !== (before == null ? "" : String(before))) config[field.name] = value;
  }
  if (Object.keys(config).length > 0) patch.config = config;
  return patch;
}

/**
 * A saved secret's masked hint (`Provider.secrets`: "…" and at most its last four characters)
 * in words: "key ending in 9f3a", or "key saved" when it shows none of a short key.
 */
export function secretHintText(t: (key: string, options?: Record<string, unknown>) => string, hint: string | undefined): string {
  const tail = (hint ?? "").replace(/^…/, "").trim();
  return tail ? t("providers.keyEnding", { tail }) : t("providers.keySaved");
}

/** Edit (rename, change a key: tested again by the server) and remove one provider. */
export function ProviderActions({ base, provider, type, onChange }: { base: string; provider: Provider; type: ProviderType | undefined; onChange: () => void }) {
  const { t } = useTranslation();
  const [editing, setEditing] = React.useState(false);
  const [removing, setRemoving] = React.useState(false);
  const [name, setName] = React.useState(provider.name);
  const [values, setValues] = React.useState<Record<string, string>>({});
  const [error, setError] = React.useState<string | null>(null);
  const [busy, setBusy] = React.useState(false);

  function open() {
    setName(provider.name);
    setValues(Object.fromEntries((type?.config_fields ?? []).filter((field) => !field.secret).map((field) => [field.name, provider.config[field.name] == null ? "" : String(provider.config[field.name])])));
    setError(null);
    setEditing(true);
  }

  async function send(request: () => Promise<unknown>, done: () => void) {
    setBusy(true);
    setError(null);
    try {
      await request();
      done();
      onChange();
    } catch (caught) {
      setError(errorText(t, caught));
    } finally {
      setBusy(false);
    }
  }

  const ids = `edit-${provider.id}`;
  return (
    <>
      <Button variant="ghost" size="icon-sm" aria-label={`${t("common.edit")} ${provider.name}`} onClick={open}>
        <PencilIcon />
      </Button>
      <Button variant="ghost" size="icon-sm" aria-label={`${t("common.delete")} ${provider.name}`} onClick={() => setRemoving(true)}>
        <Trash2Icon />
      </Button>
      <Dialog open={editing} onOpenChange={setEditing}>
        <DialogContent closeLabel={t("common.close")}>
          <form
            className="flex flex-col gap-4"
            onSubmit={(event) => {
              event.preventDefault();
              const patch = providerPatch(provider, type, name, values);
              if (Object.keys(patch).length === 0) return setEditing(false);
              void send(() => api(`${base}/${provider.id}`, { method: "PATCH", body: patch }), () => setEditing(false));
            }}
          >
            <DialogHeader>
              <DialogTitle>{`${t("common.edit")} ${provider.name}`}</DialogTitle>
              <DialogDescription>{t("providers.editHint")}</DialogDescription>
            </DialogHeader>
            <Field label={t("onboarding.providers.name")} htmlFor={`${ids}-name`}>
              <Input id={`${ids}-name`} value={name} onChange={(event) => setName(event.target.value)} required />
            </Field>
            {type?.config_fields.map((field) => (
              <Field key={field.name} label={fieldLabel(t, field)} htmlFor={`${ids}-${field.name}`} hint={field.secret ? t("providers.secretKept", { hint: secretHintText(t, provider.secrets[field.name]) }) : type && fieldHint(t, type, field)}>
                <Input
                  id={`${ids}-${field.name}`}
                  type={field.secret ? "password" : "text"}
                  autoComplete="off"
                  value={values[field.name] ?? ""}
                  placeholder={field.secret ? (provider.secrets[field.name] ?? "").replace(/^…$/, "") : (field.default ?? undefined)}
                  onChange={(event) => setValues((current) => ({ ...current, [field.name]: event.target.value }))}
                />
              </Field>
            ))}
            {error ? (
              <p role="alert" className="text-sm font-medium text-destructive">
                {error}
              </p>
            ) : null}
            <DialogFooter>
              <DialogClose asChild>
                <Button type="button" variant="ghost">
                  {t("common.cancel")}
                </Button>
              </DialogClose>
              <Button type="submit" disabled={busy}>
                {t("common.save")}
              </Button>
            </DialogFooter>
          </form>
        </DialogContent>
      </Dialog>
      <Dialog open={removing} onOpenChange={setRemoving}>
        <DialogContent closeLabel={t("common.close")}>
          <DialogHeader>
            <DialogTitle>{`${t("common.delete")} ${provider.name}`}</DialogTitle>
            <DialogDescription>{t("providers.deleteConfirm", { name: provider.name })}</DialogDescription>
          </DialogHeader>
          {error ? (
            <p role="alert" className="text-sm font-medium text-destructive">
              {error}
            </p>
          ) : null}
          <DialogFooter>
            <DialogClose asChild>
              <Button variant="ghost">{t("common.cancel")}</Button>
            </DialogClose>
            <Button variant="destructive" disabled={busy} onClick={() => void send(() => api(`${base}/${provider.id}`, { method: "DELETE" }), () => setRemoving(false))}>
              {t("common.delete")}
            </Button>
          </DialogFooter>
        </DialogContent>
      </Dialog>
    </>
  );
}
