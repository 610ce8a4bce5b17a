import { RotateCcwIcon, RulerIcon, SaveIcon } from "lucide-react";
import * as React from "react";
import { useTranslation } from "react-i18next";

import { Button } from "@/components/ui/button";
import { Card, CardContent, CardHeader, CardTitle } from "@/components/ui/card";
import { Field, Input } from "@/components/ui/input";
import { useToast } from "@/components/ui/toast";
import i18n from "@/i18n";
import { api } from "@/lib/api";
import { errorText } from "@/lib/errors";
import { formatNumber } from "@/lib/format";
import type { Kin, ProviderModel } from "@/lib/types";

/** A model in a list of choices: "gpt-4o · OpenAI · 128,000 tokens" (the window when the provider's list says it). */
export function modelChoiceLabel(model: ProviderModel, providerName: string): string {
  const base = `${model.label || model.id} · ${providerName}`;
  return model.context_window ? `${base} · ${i18n.t("contextWindow.tokens", { tokens: formatNumber(model.context_window) })}` : base;
}

/** A model's reference ("OpenAI/gpt-4o") as the model lists write it: "gpt-4o · OpenAI". */
export function modelRefLabel(ref: string): string {
  const cut = ref.indexOf("/");
  return cut > 0 ? `${ref.slice(cut + 1)} · ${ref.slice(0, cut)}` : ref;
}

/** Where a window's figure comes from (`GET /api/kins/<id>/context-window`). */
type WindowSource = "server" | "provider" | "known_model" | "admin" | "fallback";

export interface ContextWindow {
  model: string;
  tokens: number;
  source: WindowSource;
  /** The window an administrator gave this model here (`PUT`), else null. */
  given: number | null;
  /** Whether the current user may give it (administrators). */
  may_set: boolean;
}

/** The card's anchor: the chat's overflow card links here (`/kins/<id>/settings#context-window`). */
export const CONTEXT_WINDOW_ANCHOR = "context-window";

/** A Kin's settings, profile tab: the context window of its model in force, and who says so;
 * for a server's figure, how to raise it. Scrolled into view when the address names its anchor. */
export function KinContextWindow({ kin }: { kin: Kin }) {
  const { t, i18n } = useTranslation();
  const [found, setFound] = React.useState<ContextWindow | null>(null);
  React.useEffect(() => {
    let current = true; // an answer about the model the Kin had before is not shown
    api<ContextWindow>(`/api/kins/${kin.id}/context-window`)
      .then((window) => current && setFound(window))
      .catch(() => current && setFound(null));
    return () => {
      current = false;
    };
  }, [kin.id, kin.model]);
  React.useEffect(() => {
    if (found && window.location.hash === `#${CONTEXT_WINDOW_ANCHOR}`) document.getElementById(CONTEXT_WINDOW_ANCHOR)?.scrollIntoView({ block: "center" });
  }, [found]);
  if (!found) return null;
  return (
    <Card id={CONTEXT_WINDOW_ANCHOR} className="mt-4 scroll-mt-4" data-context-window={found.source}>
      <CardHeader>
        <CardTitle className="flex items-center gap-2 text-base">
          <RulerIcon className="size-4" aria-hidden /> {t("contextWindow.title")}
        </CardTitle>
      </CardHeader>
      <CardContent className="flex flex-col gap-2 text-sm">
        <p className="font-medium">{t("contextWindow.value", { tokens: formatNumber(found.tokens, i18n.language), source: t(`contextWindow.sources.${found.source}`) })}</p>
        <p className="text-muted-foreground">{t("contextWindow.hint", { name: kin.name })}</p>
        {found.source === "fallback" ? <p className="text-muted-foreground">{t("contextWindow.setIt")}</p> : null}
        {found.source === "server" ? <p className="text-muted-foreground">{t("contextWindow.raiseIt")}</p> : null}
        {found.may_set ? <SetByHand kinId={kin.id} found={found} onChange={setFound} /> : null}
      </CardContent>
    </Card>
  );
}

/** For administrators: the window of the Kin's model given by hand (`PUT`), or cleared so that
 * the server's figure is in force again (`DELETE`); a refusal shows under the field. */
function SetByHand({ kinId, found, onChange }: { kinId: string; found: ContextWindow; onChange: (found: ContextWindow) => void }) {
  const { t } = useTranslation();
  const { toast } = useToast();
  const [draft, setDraft] = React.useState(found.given === null ? "" : String(found.given));
  const [busy, setBusy] = React.useState(false);
  const [error, setError] = React.useState<string | null>(null);
  // The field shows a new given window as it renders, not in an effect run later, which would
  // overwrite what someone typed in between.
  const [shownGiven, setShownGiven] = React.useState(found.given);
  if (found.given !== shownGiven) {
    setShownGiven(found.given);
    setDraft(found.given === null ? "" : String(found.given));
  }
  const route = `/api/kins/${kinId}/context-window`;

  async function send(method: "PUT" | "DELETE", event?: React.FormEvent) {
    event?.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const answer = await api<ContextWindow>(route, method === "PUT" ? { method, body: { tokens: draft.trim() } } : { method });
      onChange(answer);
      toast({ title: t(method === "PUT" ? "contextWindow.saved" : "contextWindow.cleared"), tone: "success" });
    } catch (caught) {
      setError(errorText(t, caught));
    } finally {
      setBusy(false);
    }
  }

  const id = `context-window-tokens-${kinId}`;
  return (
    <form className="mt-2 flex flex-col gap-3 border-t pt-4" data-context-window-form onSubmit={(event) => void send("PUT", event)}>
      <h3 className="font-semibold">{t("contextWindow.byHand")}</h3>
      <p className="text-muted-foreground">{t("contextWindow.byHandHint")}</p>
      <Field label={t("contextWindow.field", { model: modelRefLabel(found.model) })} htmlFor={id} error={error ?? undefined}>
        <Input
          id={id}
          type="number"
          inputMode="numeric"
          step={1}
          className="sm:max-w-56"
          placeholder={String(found.tokens)}
          value={draft}
          disabled={busy}
          aria-invalid={error ? true : undefined}
          onChange={(event) => setDraft(event.target.value)}
        />
      </Field>
      <div className="flex flex-wrap gap-2">
        <Button type="submit" disabled={busy || draft.trim() === ""}>
          <SaveIcon /> {t("contextWindow.save")}
        </Button>
        {found.given !== null ? (
          <Button type="button" variant="outline" disabled={busy} onClick={() => void send("DELETE")}>
            <RotateCcwIcon /> {t("contextWindow.clear")}
          </Button>
        ) : null}
      </div>
    </form>
  );
}
