import { PlusIcon, RefreshCwIcon, ShieldCheckIcon, Trash2Icon, WandSparklesIcon, WebhookIcon } from "lucide-react";
import * as React from "react";
import { useTranslation } from "react-i18next";

import { ConfirmDelete } from "@/components/app/confirm-delete";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { CopyButton } from "@/components/ui/copy-button";
import { Dialog, DialogClose, DialogContent, DialogDescription, DialogFooter, DialogHeader, DialogTitle } from "@/components/ui/dialog";
import { Field, Input } from "@/components/ui/input";
import { NativeSelect } from "@/components/ui/native-select";
import { Switch } from "@/components/ui/switch";
import { useToast } from "@/components/ui/toast";
import { api } from "@/lib/api";
import { errorText } from "@/lib/errors";
import { formatNumber, formatRelative } from "@/lib/format";
import type { Kin } from "@/lib/types";
import { curlExample, generateSecret, LIMIT_MAX_KIB, limitBytes, type IssuedWebhook, type Webhook } from "@/lib/webhooks";

interface Draft {
  kinId: string;
  name: string;
  signed: boolean;
  secret: string;
  limit: string;
}

/** A freshly issued address, shown once; `secret` when the administrator just chose it. */
interface Shown {
  issued: IssuedWebhook;
  secret?: string;
}

/** Settings → Webhooks: each webhook with its Kin and its last message; creating one (its
 * address shown once, with a command to try it), giving one a new address, turning one off,
 * deleting one. */
export function WebhooksAdmin() {
  const { t, i18n } = useTranslation();
  const { toast } = useToast();
  const [webhooks, setWebhooks] = React.useState<Webhook[] | null>(null);
  const [kins, setKins] = React.useState<Kin[]>([]);
  const [creating, setCreating] = React.useState(false);
  const [shown, setShown] = React.useState<Shown | null>(null);
  const [rotating, setRotating] = React.useState<Webhook | null>(null);
  const [removing, setRemoving] = React.useState<Webhook | null>(null);
  /** Where the keyboard goes when a dialog closes whose opener is gone (a deleted webhook's
   * button) or was another dialog (the address shown after creating or rotating one). */
  const newWebhook = React.useRef<HTMLButtonElement>(null);
  const fail = React.useCallback((caught: unknown) => toast({ title: t("errors.generic"), description: errorText(t, caught), tone: "error" }), [toast, t]);

  const load = React.useCallback(() => {
    Promise.all([api<{ webhooks: Webhook[] }>("/api/webhooks"), api<{ kins: Kin[] }>("/api/kins")])
      .then(([found, squad]) => {
        setWebhooks(found.webhooks);
        setKins(squad.kins);
      })
      .catch(fail);
  }, [fail]);
  React.useEffect(load, [load]);

  async function act(request: () => Promise<unknown>) {
    try {
      await request();
    } catch (caught) {
      fail(caught);
    }
    load();
  }

  async function rotate(webhook: Webhook) {
    try {
      const issued = await api<IssuedWebhook>(`/api/webhooks/${encodeURIComponent(webhook.id)}/rotate`, { method: "POST" });
      setShown({ issued });
    } catch (caught) {
      fail(caught);
    }
    load();
  }

  const kinName = (id: string) => kins.find((kin) => kin.id === id)?.name ?? t("webhooks.unknownKin");
  return (
    <div className="flex flex-col gap-4">
      <p className="max-w-prose text-sm text-muted-foreground">{t("webhooks.intro")}</p>
      <div>
        <Button ref={newWebhook} onClick={() => setCreating(true)} disabled={kins.length === 0}>
          <PlusIcon /> {t("webhooks.add")}
        </Button>
      </div>
      {webhooks?.length === 0 ? <p className="text-sm text-muted-foreground">{t("webhooks.none")}</p> : null}
      <ul className="flex flex-col gap-2" aria-label={t("webhooks.listLabel")}>
        {webhooks?.map((webhook) => (
          <li key={webhook.id} aria-label={webhook.name} className="flex flex-wrap items-center gap-3 rounded-xl border border-border/70 bg-card px-4 py-3" data-webhook>
            <WebhookIcon className="size-4 shrink-0 text-muted-foreground" aria-hidden />
            <div className="min-w-0 flex-1">
              <p className="flex flex-wrap items-center gap-2">
                <span className="font-semibold break-all">{webhook.name}</span>
                <span className="text-sm text-muted-foreground">{t("webhooks.forKin", { kin: kinName(webhook.kin_id) })}</span>
                {webhook.signed ? (
                  <Badge variant="outline" title={t("webhooks.signedNote")}>
                    <ShieldCheckIcon aria-hidden /> {t("webhooks.signed")}
                  </Badge>
                ) : null}
                <Badge variant={webhook.enabled ? "success" : "outline"}>{webhook.enabled ? t("settings.enabled") : t("settings.disabled")}</Badge>
              </p>
              <p className="mt-0.5 text-xs text-muted-foreground">
                {webhook.last_received_at === null ? t("webhooks.neverReceived") : t("webhooks.lastReceived", { when: formatRelative(webhook.last_received_at, i18n.language) })}
                {webhook.received_count > 0 ? ` · ${t("webhooks.receivedCount", { count: formatNumber(webhook.received_count, i18n.language) })}` : null}
              </p>
            </div>
            <Switch
              checked={webhook.enabled}
              aria-label={t("webhooks.toggle", { name: webhook.name })}
              onCheckedChange={(enabled) => void act(() => api(`/api/webhooks/${encodeURIComponent(webhook.id)}`, { method: "PATCH", body: { enabled } }))}
            />
            <Button variant="ghost" size="icon-sm" aria-label={t("webhooks.rotateLabel", { name: webhook.name })} title={t("webhooks.rotate")} onClick={() => setRotating(webhook)}>
              <RefreshCwIcon />
            </Button>
            <Button variant="ghost" size="icon-sm" aria-label={t("webhooks.deleteLabel", { name: webhook.name })} onClick={() => setRemoving(webhook)}>
              <Trash2Icon />
            </Button>
          </li>
        ))}
      </ul>
      <CreateWebhook
        open={creating}
        kins={kins}
        onClose={() => setCreating(false)}
        onCreated={(issued, secret) => {
          setCreating(false);
          setShown({ issued, secret });
          load();
        }}
      />
      <ShownAddress shown={shown} onClose={() => setShown(null)} returnFocus={newWebhook} />
      <Dialog open={rotating !== null} onOpenChange={(open) => !open && setRotating(null)}>
        <DialogContent closeLabel={t("common.close")}>
          <DialogHeader>
            <DialogTitle>{t("webhooks.rotateTitle", { name: rotating?.name ?? "" })}</DialogTitle>
            <DialogDescription>{t("webhooks.rotateHint")}</DialogDescription>
          </DialogHeader>
          <DialogFooter>
            <DialogClose asChild>
              <Button variant="ghost">{t("common.cancel")}</Button>
            </DialogClose>
            <Button
              onClick={() => {
                const chosen = rotating;
                setRotating(null);
                if (chosen) void rotate(chosen);
              }}
            >
              <RefreshCwIcon /> {t("webhooks.rotate")}
            </Button>
          </DialogFooter>
        </DialogContent>
      </Dialog>
      <ConfirmDelete
        target={removing}
        title={t("webhooks.deleteTitle", { name: removing?.name ?? "" })}
        description={t("webhooks.deleteHint")}
        onClose={() => setRemoving(null)}
        onConfirm={(target) => void act(() => api(`/api/webhooks/${encodeURIComponent(target.id)}`, { method: "DELETE" }))}
        focusAfterDelete={newWebhook}
      />
    </div>
  );
}

/** The "New webhook" dialog: its Kin, its name, an optional signing secret (generated or
 * pasted) and size limit. */
function CreateWebhook({ open, kins, onClose, onCreated }: { open: boolean; kins: Kin[]; onClose: () => void; onCreated: (issued: IssuedWebhook, secret?: string) => void }) {
  const { t } = useTranslation();
  const [draft, setDraft] = React.useState<Draft>({ kinId: "", name: "", signed: false, secret: "", limit: "" });
  const [error, setError] = React.useState<string | null>(null);
  React.useEffect(() => {
    if (!open) return;
    setDraft({ kinId: kins[0]?.id ?? "", name: "", signed: false, secret: "", limit: "" });
    setError(null);
  }, [open, kins]);

  async function save(event: React.FormEvent) {
    event.preventDefault();
    const limit = limitBytes(draft.limit);
    if (limit === null) {
      setError(t("webhooks.limitHint"));
      return;
    }
    const secret = draft.signed ? draft.secret.trim() : "";
    try {
      const issued = await api<IssuedWebhook>("/api/webhooks", {
        body: { kin_id: draft.kinId, name: draft.name.trim(), ...(secret ? { signing_secret: secret } : {}), ...(limit ? { max_body_bytes: limit } : {}) },
      });
      onCreated(issued, secret || undefined);
    } catch (caught) {
      setError(errorText(t, caught));
    }
  }

  const set = (key: "kinId" | "name" | "secret" | "limit") => (event: React.ChangeEvent<HTMLInputElement | HTMLSelectElement>) => setDraft((value) => ({ ...value, [key]: event.target.value }));
  return (
    <Dialog open={open} onOpenChange={(next) => !next && onClose()}>
      <DialogContent closeLabel={t("common.close")}>
        <form className="flex flex-col gap-4" onSubmit={(event) => void save(event)}>
          <DialogHeader>
            <DialogTitle>{t("webhooks.createTitle")}</DialogTitle>
            <DialogDescription>{t("webhooks.createHint")}</DialogDescription>
          </DialogHeader>
          <div className="grid grid-cols-1 gap-3 sm:grid-cols-2">
            <Field label={t("webhooks.kin")} htmlFor="webhook-kin">
              <NativeSelect id="webhook-kin" value={draft.kinId} onChange={set("kinId")} required>
                {kins.map((kin) => (
                  <option key={kin.id} value={kin.id}>
                    {kin.name}
                  </option>
                ))}
              </NativeSelect>
            </Field>
            <Field label={t("webhooks.name")} htmlFor="webhook-name">
              <Input id="webhook-name" value={draft.name} onChange={set("name")} required maxLength={80} placeholder={t("webhooks.namePlaceholder")} autoComplete="off" />
            </Field>
          </div>
          <label className="flex items-start gap-3 text-sm">
            <Switch
              checked={draft.signed}
              className="mt-0.5"
              onCheckedChange={(signed) => setDraft((value) => ({ ...value, signed, secret: signed && !value.secret ? generateSecret() : value.secret }))}
              aria-describedby="webhook-signature-hint"
            />
            <span>
              <span className="font-semibold">{t("webhooks.signature")}</span>
              <span id="webhook-signature-hint" className="block text-xs text-muted-foreground">
                {t("webhooks.signatureHint")}
              </span>
            </span>
          </label>
          {draft.signed ? (
            <Field label={t("webhooks.secret")} htmlFor="webhook-secret" hint={t("webhooks.secretHint")}>
              <div className="flex items-center gap-2">
                <Input id="webhook-secret" value={draft.secret} onChange={set("secret")} required minLength={16} maxLength={256} className="font-mono" autoComplete="off" spellCheck={false} />
                <CopyButton text={() => draft.secret} label={t("webhooks.copySecret")} />
                <Button type="button" variant="outline" size="sm" onClick={() => setDraft((value) => ({ ...value, secret: generateSecret() }))}>
                  <WandSparklesIcon /> {t("webhooks.generate")}
                </Button>
              </div>
            </Field>
          ) : null}
          <Field label={t("webhooks.limit")} htmlFor="webhook-limit" hint={t("webhooks.limitHint")}>
            <Input id="webhook-limit" value={draft.limit} onChange={set("limit")} inputMode="numeric" type="number" min={1} max={LIMIT_MAX_KIB} step={1} className="sm:w-40" />
          </Field>
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
            <Button type="submit" disabled={!draft.kinId}>
              {t("webhooks.create")}
            </Button>
          </DialogFooter>
        </form>
      </DialogContent>
    </Dialog>
  );
}

/** A webhook's new address, shown this once with a copy button and a command to try it. The
 * address is this page's own origin (where the family reaches KinBot) and the path. */
function ShownAddress({ shown, onClose, returnFocus }: { shown: Shown | null; onClose: () => void; returnFocus: React.RefObject<HTMLElement | null> }) {
  const { t } = useTranslation();
  const url = shown ? `${window.location.origin}${shown.issued.path}` : "";
  const example = shown ? curlExample(url, t("webhooks.exampleMessage", { name: shown.issued.webhook.name }), shown.issued.webhook.signed, shown.secret) : "";
  return (
    <Dialog open={shown !== null} onOpenChange={(open) => !open && onClose()}>
      <DialogContent
        closeLabel={t("common.close")}
        className="sm:max-w-2xl"
        onCloseAutoFocus={(event) => {
          event.preventDefault();
          returnFocus.current?.focus();
        }}
      >
        {shown ? (
          <div className="flex min-w-0 flex-col gap-4">
            <DialogHeader>
              <DialogTitle>{t("webhooks.addressTitle", { name: shown.issued.webhook.name })}</DialogTitle>
              <DialogDescription>{t("webhooks.addressOnce")}</DialogDescription>
            </DialogHeader>
            <Field label={t("webhooks.address")} htmlFor="webhook-address">
              <div className="flex items-center gap-2">
                <Input id="webhook-address" value={url} readOnly className="font-mono text-xs" onFocus={(event) => event.currentTarget.select()} data-webhook-url />
                <CopyButton text={url} label={t("webhooks.copyAddress")} />
              </div>
            </Field>
            <div className="flex min-w-0 flex-col gap-1.5">
              <div className="flex items-center justify-between gap-2">
                <span className="text-sm font-semibold">{t("webhooks.tryIt")}</span>
                <CopyButton text={example} label={t("webhooks.copyExample")} showText />
              </div>
              <pre className="overflow-x-auto rounded-xl bg-muted px-3 py-2 font-mono text-xs whitespace-pre" data-webhook-example>
                {example}
              </pre>
            </div>
            <DialogFooter>
              <DialogClose asChild>
                <Button>{t("webhooks.done")}</Button>
              </DialogClose>
            </DialogFooter>
          </div>
        ) : null}
      </DialogContent>
    </Dialog>
  );
}
