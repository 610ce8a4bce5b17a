/**
 * A Kin's reply that could not be delivered back to the channel it answers: the server puts
 * `meta.undelivered` (`{"kind", "label", "code", "recipient_id"}`: docs/api.md, "Message
 * meta") on it, live and stored. The chat says "Not delivered to Family Telegram" and why, in
 * the reader's language, and offers "Try again" to the person the reply was for and to
 * administrators (the server allows only them). Once sent again, the sign goes and the
 * "via" badge comes, over the live stream.
 */
import { RotateCcwIcon, TriangleAlertIcon } from "lucide-react";
import * as React from "react";
import { useTranslation } from "react-i18next";

import { Button } from "@/components/ui/button";
import { useToast } from "@/components/ui/toast";
import { api } from "@/lib/api";
import { channelProblemText } from "@/lib/channel-problems";
import { errorText } from "@/lib/errors";
import type { User } from "@/lib/types";

import type { MessageWithMeta } from "./cards/meta";

/** Where a reply was not delivered, and why. */
export interface UndeliveredMeta {
  kind: string;
  label: string;
  code: string;
  recipientId: string | null;
}

/** A message's sign of a failed delivery, or null (none, or malformed). */
export function undeliveredOf(message: Pick<MessageWithMeta, "meta">): UndeliveredMeta | null {
  const sign = message.meta?.undelivered;
  if (sign === null || typeof sign !== "object") return null;
  const { kind, label, code, recipient_id } = sign as Record<string, unknown>;
  if (typeof label !== "string" || !label.trim()) return null;
  return {
    kind: typeof kind === "string" ? kind : "other",
    label: label.trim(),
    code: typeof code === "string" ? code : "channel_error",
    recipientId: typeof recipient_id === "string" ? recipient_id : null,
  };
}

/** "Not delivered to <label>", the reason, and Try again for whom it may concern. */
export function UndeliveredSign({ message, sign, me }: { message: MessageWithMeta; sign: UndeliveredMeta; me: (Pick<User, "id"> & Partial<Pick<User, "role">>) | null }) {
  const { t } = useTranslation();
  const { toast } = useToast();
  const [pending, setPending] = React.useState(false);
  const mayRetry = me !== null && (me.role === "admin" || me.id === sign.recipientId);
  async function again() {
    setPending(true);
    try {
      await api(`/api/kins/${message.kin_id}/messages/${message.id}/redeliver`, { method: "POST" });
      toast({ title: t("channelProblems.requeued", { label: sign.label }), tone: "success" });
    } catch (caught) {
      toast({ title: t("errors.generic"), description: errorText(t, caught), tone: "error" });
    } finally {
      setPending(false);
    }
  }
  return (
    <div role="status" className="mb-1.5 flex flex-wrap items-start gap-x-2 gap-y-1.5 rounded-lg border border-destructive/40 bg-destructive/5 px-2.5 py-2 text-sm" data-undelivered={sign.code}>
      <TriangleAlertIcon aria-hidden className="mt-0.5 size-4 shrink-0 text-destructive" />
      <div className="min-w-48 flex-1">
        <p className="font-semibold text-destructive">{t("channelProblems.notDelivered", { label: sign.label })}</p>
        <p className="text-xs text-muted-foreground">{channelProblemText(t, "undelivered", sign.code, sign.kind)}</p>
      </div>
      {mayRetry ? (
        <Button variant="outline" size="sm" className="ml-6" onClick={() => void again()} disabled={pending}>
          <RotateCcwIcon aria-hidden className={pending ? "animate-spin motion-reduce:animate-none" : undefined} />
          {pending ? t("channelProblems.retrying") : t("channelProblems.tryAgain")}
        </Button>
      ) : null}
    </div>
  );
}
