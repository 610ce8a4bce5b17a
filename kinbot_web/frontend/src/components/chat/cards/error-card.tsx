/** A failed turn in plain words (per `meta.error_code`, in the UI language), the provider's
 * own message on a details line, Retry, and for a turn too long for the model's window a link
 * to the Kin's context window card (where the figure and how to raise it are). */

import { RotateCcwIcon, RulerIcon } from "lucide-react";
import { useTranslation } from "react-i18next";
import { Link, useInRouterContext } from "react-router";

import { CONTEXT_WINDOW_ANCHOR } from "@/components/app/context-window";
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
      {code === "context_overflow" ? (
        <WindowLink href={`/kins/${kinId}/settings#${CONTEXT_WINDOW_ANCHOR}`}>{t("fit.seeWindow", { name: kinName })}</WindowLink>
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

function WindowLink({ href, children }: { href: string; children: string }) {
  const inRouter = useInRouterContext();
  const className = "inline-flex items-center gap-1 text-xs font-semibold text-foreground underline underline-offset-2";
  const inside = (
    <>
      <RulerIcon aria-hidden className="size-3.5" /> {children}
    </>
  );
  return inRouter ? (
    <Link to={href} className={className} data-window-link>
      {inside}
    </Link>
  ) : (
    <a href={href} className={className} data-window-link>
      {inside}
    </a>
  );
}
