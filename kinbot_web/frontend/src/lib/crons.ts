/** Crons as the Kin settings show and edit them (docs/api.md, "Crons"). */

import { DEFAULT_SCHEDULE, scheduleToCron } from "@/lib/schedule-words";

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
  last_run_at: number | null;
  last_run_status: string | null;
  last_task_id: string | null;
  last_skip_at: number | null;
  last_skip_reason: string | null;
  created_at: number;
  updated_at: number;
}

/**
 * What the cron form holds: every field a string, the model empty for "the Kin's model", the
 * time zone empty for KinBot's default (the `cron_timezone` setting).
 */
export interface CronDraft {
  name: string;
  schedule: string;
  timezone: string;
  task_description: string;
  model: string;
}

/** The browser's time zone (IANA name), or "" when it does not say. */
export function browserZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone || "";
}

/**
 * A time zone as a person reads it: the city of its IANA name and the zone's name in
 * `language`, as "Paris — heure d’Europe centrale" or "New York — Eastern Time"; "UTC" (or a
 * name the browser does not know) as it is.
 */
export function zoneLabel(zone: string, language: string): string {
  if (!zone.includes("/")) return zone;
  const city = zone.slice(zone.lastIndexOf("/") + 1).replaceAll("_", " ");
  try {
    const parts = new Intl.DateTimeFormat(language, { timeZone: zone, timeZoneName: "longGeneric" }).formatToParts(new Date());
    const name = parts.find((part) => part.type === "timeZoneName")?.value;
    return name ? `${city} — ${name}` : city;
  } catch {
    return zone;
  }
}

/** The form's starting values for a new cron: every day at 08:00, in the browser's time zone. */
export function newDraft(zone: string = browserZone()): CronDraft {
  return { name: "", schedule: scheduleToCron(DEFAULT_SCHEDULE), timezone: zone, task_description: "", model: "" };
}

/** The form's starting values for an existing cron. */
export function draftOf(cron: Cron): CronDraft {
  return { name: cron.name, schedule: cron.schedule, timezone: cron.timezone ?? "", task_description: cron.task_description, model: cron.model ?? "" };
}

/**
 * The request body for a new cron (with its Kin) or the changes to an existing one (only
 * the fields that differ, so a Kin's proposal is not re-proposed by an unchanged save).
 * Text is trimmed; an empty model means the Kin's own and an empty time zone KinBot's
 * default (`null` both).
 */
export function cronBody(draft: CronDraft, kinId: string, existing?: Cron): Record<string, string | null> {
  const wanted: Record<string, string | null> = {
    name: draft.name.trim(),
    schedule: draft.schedule.trim().replace(/\s+/g, " "),
    timezone: draft.timezone.trim() || null,
    task_description: draft.task_description.trim(),
    model: draft.model.trim() || null,
  };
  if (!existing) return { ...wanted, kin_id: kinId };
  const before: Record<string, string | null> = { ...draftOf(existing), timezone: existing.timezone, model: existing.model };
  return Object.fromEntries(Object.entries(wanted).filter(([key, value]) => before[key] !== value));
}

/** Which actions a cron offers in its state. */
export function cronActions(cron: Pick<Cron, "state">): { confirm: boolean; decline: boolean; pause: boolean; resume: boolean } {
  return {
    confirm: cron.state === "awaiting_confirmation",
    // A Kin's proposal is confirmed or declined (deleted), not paused.
    decline: cron.state === "awaiting_confirmation",
    pause: cron.state === "active",
    resume: cron.state === "inactive",
  };
}

/** The live events about crons (docs/api.md, "Live events"), with their data. */
export type CronEvent =
  | { type: "cron.created" | "cron.updated"; cron: Cron }
  | { type: "cron.deleted"; cron_id: string; kin_id: string };

function byAge(a: Cron, b: Cron): number {
  return a.created_at - b.created_at || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

/**
 * A Kin's crons after a live event: a created or changed cron of this Kin is put in (replacing
 * the one of the same id, oldest first as the API lists them), one moved to another Kin or
 * deleted is taken out. Events about other Kins' crons change nothing (the same array).
 */
export function applyCronEvent(crons: readonly Cron[], kinId: string, event: CronEvent): Cron[] {
  const id = event.type === "cron.deleted" ? event.cron_id : event.cron.id;
  const rest = crons.filter((cron) => cron.id !== id);
  if (event.type === "cron.deleted" || event.cron.kin_id !== kinId) {
    return rest.length === crons.length ? (crons as Cron[]) : rest;
  }
  return [...rest, event.cron].sort(byAge);
}

/**
 * The crons tab's list as a pure reducer. The list is loaded from the REST API and kept up to
 * date by live events. An event that arrives while a load is on its way may be older or newer
 * than what that load will answer (the API gives no version to tell), so it marks the list
 * `stale`: once no load is going, `needsReload` asks for one more.
 */
export interface CronsState {
  kinId: string;
  /** `null` until the first load answers. */
  crons: Cron[] | null;
  /** Loads on their way. */
  loading: number;
  stale: boolean;
}

export type CronsAction =
  | { type: "load" }
  | { type: "loaded"; crons: Cron[] }
  | { type: "failed" }
  | { type: "event"; event: CronEvent }
  /** The answer of the person's own change (the cron as it now is, or deleted). */
  | { type: "changed"; event: CronEvent };

export function initialCrons(kinId: string): CronsState {
  return { kinId, crons: null, loading: 0, stale: false };
}

export function cronsReducer(state: CronsState, action: CronsAction): CronsState {
  switch (action.type) {
    case "load":
      return { ...state, loading: state.loading + 1, stale: false };
    case "loaded":
      return { ...state, loading: Math.max(0, state.loading - 1), crons: action.crons.filter((cron) => cron.kin_id === state.kinId).sort(byAge) };
    case "failed":
      return { ...state, loading: Math.max(0, state.loading - 1) };
    case "event":
    case "changed": {
      const crons = state.crons ? applyCronEvent(state.crons, state.kinId, action.event) : null;
      const stale = state.stale || (action.type === "event" && state.loading > 0 && concerns(state, action.event));
      return crons === state.crons && stale === state.stale ? state : { ...state, crons, stale };
    }
  }
}

/** Whether an event is about this Kin's crons (one of them, or one moving to it). */
function concerns(state: CronsState, event: CronEvent): boolean {
  const [id, kinId] = event.type === "cron.deleted" ? [event.cron_id, event.kin_id] : [event.cron.id, event.cron.kin_id];
  return kinId === state.kinId || (state.crons?.some((cron) => cron.id === id) ?? false);
}

/** Whether the list must be loaded again (events came while a load was on its way). */
export function needsReload(state: CronsState): boolean {
  return state.stale && state.loading === 0;
}

/** A time of the API (seconds since the epoch) as a date and time in `locale`; `null` stays `null`. */
export function formatWhen(seconds: number | null, locale: string, timeZone?: string): string | null {
  if (seconds === null) return null;
  return new Intl.DateTimeFormat(locale, { dateStyle: "medium", timeStyle: "short", timeZone }).format(new Date(seconds * 1000));
}
