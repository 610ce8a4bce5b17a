/**
 * Amounts on a chart's axis: a scale that never makes a fraction of a cent look like a large
 * spend, and tick labels with as many decimals as their step needs, so no two read the same.
 */
import { formatNumber } from "./format";

/** Decimals `currency` writes (2 for USD and EUR, 0 for JPY). */
function currencyDigits(currency: string): number {
  try {
    return new Intl.NumberFormat("en", { style: "currency", currency }).resolvedOptions().maximumFractionDigits ?? 2;
  } catch {
    return 2;
  }
}

/** The smallest amount `currency` writes: a cent (0.01) for USD, a yen (1) for JPY. */
export function minorUnit(currency: string): number {
  return 10 ** -currencyDigits(currency);
}

/**
 * The top of an amount axis whose largest bar is `max`: a tenth above it, and never below
 * `floor` (the currency's minor unit), so that a tiny spend draws a short bar on a scale
 * that says how small it is.
 */
export function amountAxisMax(max: number, floor: number): number {
  return Math.max(max > 0 ? max * 1.1 : 0, floor);
}

/** Decimals that write `step` exactly (steps are 1, 2 or 5 times a power of ten, or 2.5). */
function stepDigits(step: number, least: number): number {
  let digits = least;
  while (digits < 8 && Math.abs(step * 10 ** digits - Math.round(step * 10 ** digits)) > 1e-6) digits += 1;
  return digits;
}

/**
 * The labels of an axis's `ticks` (amounts in `currency`), all with the same decimals: the
 * currency's own, or more when the step between ticks needs them ("$0.0025", "$0.0050").
 */
export function formatMoneyTicks(ticks: number[], currency: string, language?: string): string[] {
  const least = currencyDigits(currency);
  const steps = ticks.slice(1).map((tick, index) => Math.abs(tick - ticks[index]!)).filter((step) => step > 0);
  const digits = steps.length ? stepDigits(Math.min(...steps), least) : least;
  const options = { minimumFractionDigits: digits, maximumFractionDigits: digits };
  return ticks.map((tick) => {
    try {
      return formatNumber(tick, language, { style: "currency", currency, ...options });
    } catch {
      return `${formatNumber(tick, language, options)} ${currency}`;
    }
  });
}
