/** Usage summaries, prices and budgets as the API gives them (docs/api.md, "Usage and
 * budgets"), and the periods the pages offer. */

export interface UsageTotals {
  calls: number;
  cost: number;
  input_tokens: number;
  output_tokens: number;
  units: number;
  unpriced_calls: number;
}

export interface UsageSummary {
  currency: string;
  period: { from: string; to: string };
  totals: UsageTotals;
  by_day: (UsageTotals & { day: string })[];
  by_user: (UsageTotals & { user_id: string | null; name: string | null })[];
  by_kin: (UsageTotals & { kin_id: string | null; name: string | null })[];
  by_model: (UsageTotals & { model: string; provider: string; priced: boolean })[];
  /** `/api/me/usage` only: the person's budget. */
  budget?: Budget | null;
}

export interface Price {
  model: string;
  input_per_million: number;
  output_per_million: number;
  per_unit: number;
}

export interface Budget {
  id: string;
  scope: "user" | "kin";
  target_id: string;
  name: string | null;
  monthly_limit: number;
  warn_percent: number;
  spent: number;
  warning: boolean;
  reached: boolean;
}

export type PeriodName = "thisMonth" | "last30" | "lastMonth";
export const PERIODS: readonly PeriodName[] = ["thisMonth", "last30", "lastMonth"];

function day(date: Date): string {
  return date.toISOString().slice(0, 10);
}

/** The `from` and `to` days (UTC, as budgets count) of a named period, on `now`. */
export function periodRange(name: PeriodName, now: Date = new Date()): { from: string; to: string } {
  const year = now.getUTCFullYear();
  const month = now.getUTCMonth();
  if (name === "lastMonth") return { from: day(new Date(Date.UTC(year, month - 1, 1))), to: day(new Date(Date.UTC(year, month, 0))) };
  if (name === "last30") return { from: day(new Date(now.getTime() - 29 * 86_400_000)), to: day(now) };
  return { from: day(new Date(Date.UTC(year, month, 1))), to: day(now) };
}

/** The query string of a summary request for `name`. */
export function periodQuery(name: PeriodName, now?: Date): string {
  const { from, to } = periodRange(name, now);
  return `from=${from}&to=${to}`;
}
