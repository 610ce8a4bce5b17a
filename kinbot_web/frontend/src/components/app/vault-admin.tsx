import { EyeOffIcon, KeyRoundIcon, PencilIcon, PlusIcon, Trash2Icon } from "lucide-react";
import * as React from "react";
import { useTranslation } from "react-i18next";

import { ConfirmDelete } from "@/components/app/confirm-delete";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardHeader, CardTitle } from "@/components/ui/card";
import { Dialog, DialogClose, DialogContent, DialogDescription, DialogFooter, DialogHeader, DialogTitle } from "@/components/ui/dialog";
import { Field, Input } from "@/components/ui/input";
import { useToast } from "@/components/ui/toast";
import i18n from "@/i18n";
import { api } from "@/lib/api";
import { errorText as describeError } from "@/lib/errors";

/** A Vault secret as the API shows it: never its value (docs/api.md "Vault"). */
export interface Secret {
  id: string;
  key: string;
  description: string | null;
  value: string;
  placeholder: string;
  /** False when the server's master key cannot open the value (a backup restored without
   * its key): it can be given a new value or deleted. */
  readable?: boolean;
}

function errorText(error: unknown): string {
  return describeError(i18n.t, error);
}

/** Settings → Vault: the secrets (values masked), adding one, changing one's value or
 * description, and deleting one after a confirmation. */
export function VaultAdmin() {
  const { t } = useTranslation();
  const { toast } = useToast();
  const [secrets, setSecrets] = React.useState<Secret[]>([]);
  const [error, setError] = React.useState<string | null>(null);
  const [editing, setEditing] = React.useState<Secret | null>(null);
  const [deleting, setDeleting] = React.useState<Secret | null>(null);
  const addHeading = React.useRef<HTMLHeadingElement>(null);
  const form = React.useRef<HTMLFormElement>(null);
  const reload = React.useCallback(() => void api<{ secrets: Secret[] }>("/api/vault").then(({ secrets: list }) => setSecrets(list)), []);
  React.useEffect(reload, [reload]);
  const unreadable = secrets.filter((secret) => secret.readable === false).length;

  async function add(event: React.FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const data = new FormData(event.currentTarget);
    setError(null);
    try {
      await api("/api/vault", { body: { key: String(data.get("key")).trim(), value: String(data.get("value")), description: String(data.get("description") ?? "") } });
      form.current?.reset(); // the value leaves the page as soon as it is saved
      reload();
      toast({ title: t("account.saved"), tone: "success" });
    } catch (caught) {
      setError(errorText(caught));
    }
  }

  async function remove(secret: Secret) {
    await api(`/api/vault/${encodeURIComponent(secret.key)}`, { method: "DELETE" }).catch((caught) => setError(errorText(caught)));
    reload();
  }

  return (
    <div className="grid grid-cols-1 gap-6 lg:grid-cols-2">
      {unreadable > 0 ? (
        <p role="status" className="rounded-xl border border-destructive/40 bg-destructive/5 px-3 py-2 text-sm text-destructive lg:col-span-2" data-vault-unreadable={unreadable}>
          {t("settings.secretsUnreadable", { count: unreadable })}
        </p>
      ) : null}
      <ul className="flex flex-col gap-2" aria-label={t("settings.vault")}>
        {secrets.length === 0 ? <li className="text-sm text-muted-foreground">{t("settings.noSecrets")}</li> : null}
        {secrets.map((secret) => (
          <li key={secret.id} className="flex items-center gap-3 rounded-xl bg-muted px-3 py-2" data-secret={secret.key}>
            <KeyRoundIcon className="size-4 shrink-0 text-muted-foreground" aria-hidden />
            <div className="min-w-0 flex-1">
              <code className="text-sm font-semibold break-all">{secret.key}</code>
              {secret.description ? <p className="truncate text-xs text-muted-foreground">{secret.description}</p> : null}
              {secret.readable === false ? <p className="text-xs font-medium text-destructive">{t("settings.secretUnreadable")}</p> : null}
            </div>
            {secret.readable === false ? null : (
              <span className="inline-flex items-center gap-1 text-xs text-muted-foreground">
                <EyeOffIcon className="size-3.5" aria-hidden /> <span aria-hidden>{secret.value}</span>
                <span className="sr-only">{t("settings.masked")}</span>
              </span>
            )}
            <Button variant="ghost" size="icon-sm" aria-label={t("settings.editSecret", { key: secret.key })} onClick={() => setEditing(secret)}>
              <PencilIcon />
            </Button>
            <Button variant="ghost" size="icon-sm" aria-label={`${t("common.delete")} ${secret.key}`} onClick={() => setDeleting(secret)}>
              <Trash2Icon />
            </Button>
          </li>
        ))}
      </ul>
      <Card className="shadow-none">
        <CardHeader className="pb-2">
          <CardTitle ref={addHeading} tabIndex={-1} className="text-base">
            {t("settings.addSecret")}
          </CardTitle>
        </CardHeader>
        <CardContent>
          <form ref={form} className="flex flex-col gap-3" onSubmit={(event) => void add(event)}>
            <Field label={t("settings.key")} htmlFor="secret-key" hint={t("settings.keyHint")}>
              <Input id="secret-key" name="key" required pattern="[A-Z][A-Z0-9_]{0,63}" autoComplete="off" />
            </Field>
            <Field label={t("settings.value")} htmlFor="secret-value" hint={t("settings.valueHint")}>
              <Input id="secret-value" name="value" type="password" required minLength={4} autoComplete="off" />
            </Field>
            <Field label={t("settings.description")} htmlFor="secret-description">
              <Input id="secret-description" name="description" autoComplete="off" />
            </Field>
            {error ? (
              <p className="text-sm font-medium text-destructive" role="alert">
                {error}
              </p>
            ) : null}
            <Button type="submit" className="self-start">
              <PlusIcon /> {t("common.add")}
            </Button>
          </form>
        </CardContent>
      </Card>
      <EditSecret
        secret={editing}
        onClose={() => setEditing(null)}
        onSaved={() => {
          setEditing(null);
          reload();
          toast({ title: t("account.saved"), tone: "success" });
        }}
      />
      <ConfirmDelete
        target={deleting}
        title={deleting ? t("settings.deleteSecret", { key: deleting.key }) : ""}
        description={t("settings.deleteSecretHint")}
        focusAfterDelete={addHeading}
        onClose={() => setDeleting(null)}
        onConfirm={(secret) => void remove(secret)}
      />
    </div>
  );
}

/** A secret's new value (empty: kept) and description; the value is never shown. */
function EditSecret({ secret, onClose, onSaved }: { secret: Secret | null; onClose: () => void; onSaved: () => void }) {
  const { t } = useTranslation();
  const [error, setError] = React.useState<string | null>(null);
  React.useEffect(() => setError(null), [secret]);

  async function save(event: React.FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (!secret) return;
    const data = new FormData(event.currentTarget);
    const value = String(data.get("value") ?? "");
    const changes: Record<string, string> = { description: String(data.get("description") ?? "") };
    if (value) changes.value = value;
    try {
      await api(`/api/vault/${encodeURIComponent(secret.key)}`, { method: "PATCH", body: changes });
      onSaved();
    } catch (caught) {
      setError(errorText(caught));
    }
  }

  return (
    <Dialog open={secret !== null} onOpenChange={(open) => !open && onClose()}>
      <DialogContent closeLabel={t("common.close")}>
        {secret ? (
          <form className="flex flex-col gap-4" onSubmit={(event) => void save(event)}>
            <DialogHeader>
              <DialogTitle>{t("settings.editSecret", { key: secret.key })}</DialogTitle>
              <DialogDescription>{t("settings.valueHint")}</DialogDescription>
            </DialogHeader>
            <Field label={t("settings.newValue")} htmlFor="edit-secret-value" hint={t("settings.newValueHint")}>
              <Input id="edit-secret-value" name="value" type="password" minLength={4} autoComplete="off" />
            </Field>
            <Field label={t("settings.description")} htmlFor="edit-secret-description">
              <Input id="edit-secret-description" name="description" defaultValue={secret.description ?? ""} autoComplete="off" />
            </Field>
            {error ? (
              <p className="text-sm font-medium text-destructive" role="alert">
                {error}
              </p>
            ) : null}
            <DialogFooter>
              <DialogClose asChild>
                <Button type="button" variant="ghost">
                  {t("common.cancel")}
                </Button>
              </DialogClose>
              <Button type="submit">{t("common.save")}</Button>
            </DialogFooter>
          </form>
        ) : null}
      </DialogContent>
    </Dialog>
  );
}
