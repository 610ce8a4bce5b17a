import { RulerIcon } from "lucide-react";
import * as React from "react";
import { useTranslation } from "react-i18next";

import { Card, CardContent, CardHeader, CardTitle } from "@/components/ui/card";
import i18n from "@/i18n";
import { api } from "@/lib/api";
import { formatNumber } from "@/lib/format";
import type { Kin, ProviderModel } from "@/lib/types";

/** A model in a list of choices: "gpt-4o · OpenAI · 128,000 tokens" (the window when the provider's list says it). */
export function modelChoiceLabel(model: ProviderModel, providerName: string): string {
  const base = `${model.label || model.id} · ${providerName}`;
  return model.context_window ? `${base} · ${i18n.t("contextWindow.tokens", { tokens: formatNumber(model.context_window) })}` : base;
}

/** Where a window's figure comes from (`GET /api/kins/<id>/context-window`). */
type WindowSource = "server" | "provider" | "known_model" | "admin" | "fallback";

interface ContextWindow {
  model: string;
  tokens: number;
  source: WindowSource;
}

/** The card's anchor: the chat's overflow card links here (`/kins/<id>/settings#context-window`). */
export const CONTEXT_WINDOW_ANCHOR = "context-window";

/** A Kin's settings, profile tab: the context window of its model in force, and who says so;
 * for a server's figure, how to raise it. Scrolled into view when the address names its anchor. */
export function KinContextWindow({ kin }: { kin: Kin }) {
  const { t, i18n } = useTranslation();
  const [found, setFound] = React.useState<ContextWindow | null>(null);
  React.useEffect(() => {
    api<ContextWindow>(`/api/kins/${kin.id}/context-window`)
      .then(setFound)
      .catch(() => setFound(null));
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
      </CardContent>
    </Card>
  );
}
