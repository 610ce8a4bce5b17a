import { ArchiveIcon, EyeIcon, LockKeyholeIcon, ShieldAlertIcon } from "lucide-react";
import * as React from "react";
import { useTranslation } from "react-i18next";

import { Button } from "@/components/ui/button";
import { Dialog, DialogClose, DialogContent, DialogDescription, DialogFooter, DialogHeader, DialogTitle } from "@/components/ui/dialog";
import { DropdownMenu, DropdownMenuContent, DropdownMenuItem, DropdownMenuTrigger } from "@/components/ui/dropdown-menu";
import { Field, Input } from "@/components/ui/input";
import { useToast } from "@/components/ui/toast";
import { api } from "@/lib/api";
import { errorText } from "@/lib/errors";
import type { Message, User } from "@/lib/types";

/** How the server marks a secret hidden on arrival (docs/api.md, `redaction_pending`). */
const PENDING = /\[PENDING SECRET (\d+)\]/g;

/** Whether `message` shows secrets hidden on arrival (and so gets chips instead of Markdown). */
export function hasPendingSecrets(message: Pick<Message, "content" | "redaction_pending">): boolean {
  return Boolean(message.redaction_pending) && /\[PENDING SECRET \d+\]/.test(message.content);
}

/** Who may store or dismiss a message's hidden secrets: its sender, or an administrator. */
export function mayHandleSecrets(message: Pick<Message, "source" | "sender_id">, me: Pick<User, "id"> & Partial<Pick<User, "role">> | null): boolean {
  if (!me) return false;
  return me.role === "admin" || (message.source === "user" && message.sender_id === me.id);
}

type Action = { kind: "store" | "dismiss"; number: number };

/**
 * A message in which secrets were detected and hidden: its text with a chip where each one
 * is, and a note saying so. For its sender or an administrator each chip opens a menu: store
 * the secret in the Vault (under a new key), or say it is not a secret (the text comes back).
 * The chat updates from the event stream (`message.redacted`, `message.restored`).
 */
export function PendingSecretsText({ message, me, kinName }: { message: Message; me: Pick<User, "id"> & Partial<Pick<User, "role">> | null; kinName: string }) {
  const { t } = useTranslation();
  const [action, setAction] = React.useState<Action | null>(null);
  const allowed = mayHandleSecrets(message, me);
  const parts: React.ReactNode[] = [];
  let done = 0;
  for (const match of message.content.matchAll(PENDING)) {
    const number = Number(match[1]);
    parts.push(message.content.slice(done, match.index));
    parts.push(<SecretChip key={`${match.index}`} number={number} allowed={allowed} onAction={setAction} />);
    done = (match.index ?? 0) + match[0].length;
  }
  parts.push(message.content.slice(done));
  return (
    <>
      <p className="whitespace-pre-wrap break-words">{parts}</p>
      <p className="mt-1.5 flex items-start gap-1.5 rounded-xl bg-warning/15 px-3 py-1.5 text-xs" data-secret-note>
        <ShieldAlertIcon className="mt-0.5 size-3.5 shrink-0" aria-hidden />
        <span>{t("chat.secretNote", { name: kinName })}</span>
      </p>
      {/* Mounted while open: only a member who may act ever gets them. */}
      {action?.kind === "store" ? <StoreDialog message={message} action={action} onClose={() => setAction(null)} /> : null}
      {action?.kind === "dismiss" ? <DismissDialog message={message} action={action} onClose={() => setAction(null)} /> : null}
    </>
  );
}

function SecretChip({ number, allowed, onAction }: { number: number; allowed: boolean; onAction: (action: Action) => void }) {
  const { t } = useTranslation();
  const chip = "mx-0.5 inline-flex items-center gap-1 rounded-full bg-foreground/10 px-2 py-0.5 align-baseline text-xs font-semibold";
  const label = t("chat.secretHidden", { number });
  if (!allowed) {
    return (
      <span className={chip} data-pending-secret={number}>
        <LockKeyholeIcon className="size-3" aria-hidden />
        {label}
      </span>
    );
  }
  return (
    <DropdownMenu>
      <DropdownMenuTrigger asChild>
        <button type="button" className={`${chip} cursor-pointer underline-offset-2 hover:underline focus-visible:ring-2 focus-visible:ring-ring focus-visible:outline-none`} data-pending-secret={number} aria-label={t("chat.secretActions", { number })}>
          <LockKeyholeIcon className="size-3" aria-hidden />
          {label}
        </button>
      </DropdownMenuTrigger>
      <DropdownMenuContent align="start">
        <DropdownMenuItem onSelect={() => onAction({ kind: "store", number })}>
          <ArchiveIcon aria-hidden /> {t("chat.storeSecret")}
        </DropdownMenuItem>
        <DropdownMenuItem onSelect={() => onAction({ kind: "dismiss", number })}>
          <EyeIcon aria-hidden /> {t("chat.notASecret")}
        </DropdownMenuItem>
      </DropdownMenuContent>
    </DropdownMenu>
  );
}

function secretsUrl(message: Message, number: number, verb: "store" | "dismiss"): string {
  return `/api/kins/${message.kin_id}/messages/${message.id}/secrets/${number}/${verb}`;
}

function StoreDialog({ message, action, onClose }: { message: Message; action: Action | null; onClose: () => void }) {
  const { t } = useTranslation();
  const { toast } = useToast();
  const [error, setError] = React.useState<string | null>(null);
  const [busy, setBusy] = React.useState(false);
  React.useEffect(() => setError(null), [action]);

  async function submit(event: React.FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (!action) return;
    const data = new FormData(event.currentTarget);
    const key = String(data.get("key")).trim();
    setBusy(true);
    try {
      await api(secretsUrl(message, action.number, "store"), { body: { key, description: String(data.get("description") ?? "") } });
      onClose();
      toast({ title: t("chat.secretStored", { key }), tone: "success" });
    } catch (caught) {
      setError(errorText(t, caught));
    } finally {
      setBusy(false);
    }
  }

  return (
    <Dialog open={action !== null} onOpenChange={(open) => !open && onClose()}>
      <DialogContent closeLabel={t("common.close")}>
        <form className="flex flex-col gap-4" onSubmit={(event) => void submit(event)}>
          <DialogHeader>
            <DialogTitle>{t("chat.storeTitle")}</DialogTitle>
            <DialogDescription>{t("chat.storeDescription")}</DialogDescription>
          </DialogHeader>
          <Field label={t("settings.key")} htmlFor="pending-secret-key" hint={t("settings.keyHint")}>
            <Input id="pending-secret-key" name="key" required pattern="[A-Z][A-Z0-9_]{0,63}" autoComplete="off" autoCapitalize="characters" />
          </Field>
          <Field label={t("settings.description")} htmlFor="pending-secret-description">
            <Input id="pending-secret-description" name="description" autoComplete="off" />
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
            <Button type="submit" disabled={busy}>
              <ArchiveIcon /> {t("chat.storeConfirm")}
            </Button>
          </DialogFooter>
        </form>
      </DialogContent>
    </Dialog>
  );
}

function DismissDialog({ message, action, onClose }: { message: Message; action: Action | null; onClose: () => void }) {
  const { t } = useTranslation();
  const { toast } = useToast();

  async function dismiss() {
    if (!action) return;
    onClose();
    await api(secretsUrl(message, action.number, "dismiss"), { method: "POST" }).catch((caught: Error) =>
      toast({ title: t("errors.generic"), description: errorText(t, caught), tone: "error" }),
    );
  }

  return (
    <Dialog open={action !== null} onOpenChange={(open) => !open && onClose()}>
      <DialogContent closeLabel={t("common.close")}>
        <DialogHeader>
          <DialogTitle>{t("chat.dismissTitle")}</DialogTitle>
          <DialogDescription>{t("chat.dismissDescription")}</DialogDescription>
        </DialogHeader>
        <DialogFooter>
          <DialogClose asChild>
            <Button variant="ghost">{t("common.cancel")}</Button>
          </DialogClose>
          <Button variant="destructive" onClick={() => void dismiss()}>
            <EyeIcon /> {t("chat.dismissConfirm")}
          </Button>
        </DialogFooter>
      </DialogContent>
    </Dialog>
  );
}
