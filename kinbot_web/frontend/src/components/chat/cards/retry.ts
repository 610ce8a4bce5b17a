/** Asking a Kin to answer its last turn again (`POST /api/kins/{id}/retry`); a refusal shows
 * as a toast in the UI language. */

import * as React from "react";
import { useTranslation } from "react-i18next";

import { useToast } from "@/components/ui/toast";
import { api, ApiError } from "@/lib/api";

/** Error codes of the retry route that have their own sentence. */
const KNOWN = new Set(["nothing_to_retry", "kin_busy"]);

/** `retry()` for Kin `kinId` (named `kinName` in messages) and whether one is on its way. */
export function useRetry(kinId: string, kinName: string): { retry: () => Promise<void>; pending: boolean } {
  const { t } = useTranslation();
  const { toast } = useToast();
  const [pending, setPending] = React.useState(false);
  const retry = React.useCallback(async () => {
    setPending(true);
    try {
      await api(`/api/kins/${encodeURIComponent(kinId)}/retry`, { method: "POST" });
    } catch (error) {
      const code = error instanceof ApiError && KNOWN.has(error.code) ? error.code : "retryFailed";
      toast({ title: t(`cards.error.${code}`, { name: kinName }), tone: "error" });
    } finally {
      setPending(false);
    }
  }, [kinId, kinName, t, toast]);
  return { retry, pending };
}
