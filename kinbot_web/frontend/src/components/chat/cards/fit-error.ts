/** A failed turn's sentence for the codes of the model's context window and of its server
 * (`fit.error`, issue 21), with its numbers written in the reader's language. */
import type { TFunction } from "i18next";

import { formatNumber } from "@/lib/format";

export const FIT_CODES = new Set(["context_overflow", "model_not_loaded", "provider_starting"]);

/** The sentence of `code` (one of `FIT_CODES`) for the Kin `name`, from the meta's `params`. */
export function fitErrorText(t: TFunction, language: string, code: string, name: string, params: Record<string, unknown> = {}): string {
  const number = (value: unknown) => (typeof value === "number" && value > 0 ? formatNumber(value, language) : null);
  if (code === "context_overflow") {
    const window = number(params.window);
    const needed = number(params.needed);
    if (window && needed) return t("fit.error.context_overflow", { name, window, needed });
    if (window) return t("fit.error.context_overflow_window", { name, window });
    return t("fit.error.context_overflow_unknown", { name });
  }
  if (code === "model_not_loaded") {
    const model = typeof params.model === "string" && params.model.trim() ? params.model : null;
    return model ? t("fit.error.model_not_loaded", { name, model }) : t("fit.error.model_not_loaded_unnamed", { name });
  }
  return t("fit.error.provider_starting", { name });
}

/** The sidebar's short title for a Kin whose last turn failed with `code`, when it is one of
 * `FIT_CODES` (`null` otherwise: the chat cards' words apply). */
export function fitErrorTitle(t: TFunction, code: string, name: string): string | null {
  return FIT_CODES.has(code) ? t(`fit.title.${code}`, { name }) : null;
}
