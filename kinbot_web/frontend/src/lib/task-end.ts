/**
 * Why a task failed or was cancelled, in the reader's language: the sentence for its
 * `error_code` (`taskErrors.codes`), and the provider's or the sub-Kin's own words about it
 * (`error_detail`) as a secondary line. Shared by the task's page and the card of its end in
 * the parent's chat, so both say the same. A task that ended before codes existed has none:
 * its stored reason, whoever's words they were, is the detail.
 */
import type { TFunction } from "i18next";

/** The facts of a task's end that its wording needs (a task, or a card's `meta`). */
export interface TaskEndFacts {
  error_code?: string | null;
  error_detail?: string | null;
}

/** The sentence for the end (`reason`) and the secondary line (`detail`, or null). */
export function taskEndWords(t: TFunction, facts: TaskEndFacts): { reason: string; detail: string | null } {
  const unknown = t("taskErrors.unknown");
  const code = facts.error_code ?? null;
  const reason = code ? t(`taskErrors.codes.${code}`, { defaultValue: unknown }) : unknown;
  let detail: string | null = null;
  if (facts.error_detail && !code) detail = t("apiErrors.details", { details: facts.error_detail });
  else if (facts.error_detail) detail = t(code === "task_gave_up" ? "taskErrors.kinSaid" : "taskErrors.providerSaid", { detail: facts.error_detail });
  return { reason, detail };
}
