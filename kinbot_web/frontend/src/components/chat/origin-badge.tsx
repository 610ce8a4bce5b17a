/**
 * Where a message came from when it did not come from a browser: a webhook (Home Assistant), a
 * messaging channel (Telegram, e-mail); and, on a Kin's reply, where it was sent back to. The
 * server puts it in `meta.origin` (`{"kind", "label"}`: docs/api.md, "Message meta"); the chat
 * shows a small badge, an icon of the kind and "via <label>", its full meaning in words for
 * screen readers and as a tooltip (never colour alone).
 */
import { MailIcon, RadioTowerIcon, SendIcon, WebhookIcon, type LucideIcon } from "lucide-react";
import { useTranslation } from "react-i18next";

import { Badge } from "@/components/ui/badge";
import { cn } from "@/lib/utils";

import type { MessageWithMeta } from "./cards/meta";

/** Where a message came from: the kind of source and the name an administrator gave it. */
export interface MessageOrigin {
  kind: string;
  label: string;
}

/** The kinds with an icon and a name of their own; any other shows the generic ones. */
const KINDS: Record<string, LucideIcon> = { webhook: WebhookIcon, telegram: SendIcon, email: MailIcon };

/** A message's origin, or null when it has none (or a malformed one: an older server, a bug). */
export function originMetaOf(message: Pick<MessageWithMeta, "meta">): MessageOrigin | null {
  const origin = message.meta?.origin;
  if (origin === null || typeof origin !== "object") return null;
  const { kind, label } = origin as Record<string, unknown>;
  if (typeof kind !== "string" || typeof label !== "string" || !label.trim()) return null;
  return { kind, label: label.trim() };
}

export interface OriginBadgeProps {
  origin: MessageOrigin;
  /** `received`: the message came in this way; `delivered`: a Kin's reply went back this way. */
  direction: "received" | "delivered";
  className?: string;
}

/** "via Home Assistant", with the webhook's, Telegram's, e-mail's or a generic icon. */
export function OriginBadge({ origin, direction, className }: OriginBadgeProps) {
  const { t } = useTranslation();
  const known = Object.hasOwn(KINDS, origin.kind);
  const Icon = known ? KINDS[origin.kind] : RadioTowerIcon;
  const kind = t(`webhooks.origin.kinds.${known ? origin.kind : "other"}`);
  const meaning = t(`webhooks.origin.${direction}`, { label: origin.label, kind });
  return (
    <Badge variant="outline" className={cn("max-w-full bg-card/70 font-medium", className)} title={meaning} data-origin-kind={known ? origin.kind : "other"}>
      <Icon aria-hidden className="shrink-0" />
      <span aria-hidden className="truncate">
        {t("webhooks.origin.via", { label: origin.label })}
      </span>
      <span className="sr-only">{meaning}</span>
    </Badge>
  );
}
