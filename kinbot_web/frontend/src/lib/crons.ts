/** Crons as the Kin settings show and edit them (docs/api.md, "Crons"). */

export type CronState = "active" | "inactive" | "awaiting_confirmation";

export interface Cron {
  id: string;
  kin_id: string;
  name: string;
  schedule: string;
  timezone: string | null;
  task_description: string;
  model: string | null;
  state: CronState;
  active: boolean;
  needs_confirmation: boolean;
  created_by_user_id: string | null;
  created_by_kin_id: string | null;
  next_run_at: number | null;
  last_run_status: string | null;
  last_task_id: string | null;
  last_skip_reason: string | null;
  created_at: number;
}

/** What the cron form holds: every field a string, the model empty for "the Kin's model". */
export interface CronDraft {
  name: string;
  schedule: string;
  task_description: string;
  model: string;
}

export const emptyDraft: CronDraft = { name: "", schedule: "", task_description: "", model: "" };

/** The form's starting values for an existing cron. */
export function draftOf(cron: Cron): CronDraft {
  return { name: cron.name, schedule: cron.schedule, task_description: cron.task_description, model: cron.model ?? "" };
}

/**
 * The request body for a new cron (with its Kin) or the changes to an existing one (only
 * the fields that differ, so a Kin's proposal is not re-proposed by an unchanged save).
 * Text is trimmed and an empty model means the Kin's own (`null`).
 */
export function cronBody(draft: CronDraft, kinId: string, existing?: Cron): Record<string, string | null> {
  const wanted: Record<string, string | null> = {
    name: draft.name.trim(),
    schedule: draft.schedule.trim().replace(/\s+/g, " "),
    task_description: draft.task_description.trim(),
    model: draft.model.trim() || null,
  };
  if (!existing) return { ...wanted, kin_id: kinId };
  const before: Record<string, string | null> = { ...draftOf(existing), model: existing.model };
  return Object.fromEntries(Object.entries(wanted).filter(([key, value]) => before[key] !== value));
}

/** Which actions a cron offers in its state. */
export function cronActions(cron: Pick<Cron, "state">): { confirm: boolean; pause: boolean; resume: boolean } {
  return {
    confirm: cron.state === "awaiting_confirmation",
    pause: cron.state === "active" || cron.state === "awaiting_confirmation",
    resume: cron.state === "inactive",
  };
}
