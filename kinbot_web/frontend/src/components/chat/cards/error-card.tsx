/** A failed turn in plain words (per `meta.error_code`, in the UI language), the provider's
 * own message on a details line, and Retry. */

import { RotateCcwIcon } from "lucide-react";
import { useTranslation } from "react-i18next";

import { Button } from "@/components/ui/button";
import { ApiError } from "@/lib/api";
import { errorText } from "@/lib/errors";

import { FIT_CODES, fitErrorText } from "./fit-error";
import type { ErrorMeta } from "./meta";
import { useRetry } from "./retry";

const CODES = new Set([
  "provider_unreachable",
  "provider_failed",
  "provider_rate_limited",
  "provider_auth_failed",
  "model_unavailable",
  "internal_error",
  "turn_stopped",
]);

/** The inside of an error bubble: what happened, what the provider said, and Retry. */
export function ErrorCard({ meta, kinId, kinName, canRetry }: { meta: ErrorMeta; kinId: string; kinName: string; canRetry: boolean }) {
  const { t, i18n } = useTranslation();
  const { retry, pending } = useRetry(kinId, kinName);
  const code = CODES.has(meta.error_code) || FIT_CODES.has(meta.error_code) || meta.error_code === "budget_reached" ? meta.error_code : "unknown";
  return (
    <div className="space-y-1.5" data-error-card={code}>
      <p className="font-semibold">
        {meta.error_code === "budget_reached"
          ? errorText(t, new ApiError(403, meta.error_code, "", meta.params))
          : FIT_CODES.has(code)
            ? fitErrorText(t, i18n.language, code, kinName, meta.params)
            : t(`cards.error.${code}`, { name: kinName })}
      </p>
      {meta.detail ? (
        <p className="text-xs break-words text-muted-foreground" data-error-detail>
          {t("cards.error.detail", { detail: meta.detail })}
        </p>
      ) : null}
      {canRetry && meta.retryable ? (
        <Button variant="outline" size="sm" onClick={() => void retry()} disabled={pending}>
          <RotateCcwIcon aria-hidden className={pending ? "animate-spin motion-reduce:animate-none" : undefined} />
          {pending ? t("cards.error.retrying") : t("cards.error.retry")}
        </Button>
      ) : null}
    </div>
  );
}
