/** Amounts of the instance's currency in the interface's language ("1,50 $US", "$1.50"). */
import { formatNumber } from "./format";

/** Decimals of the smallest amounts written (a hundred-millionth). */
const MOST_DECIMALS = 8;

/** Decimals that keep `value`'s first two significant digits, at least four. */
function smallDecimals(value: number): number {
  return Math.min(MOST_DECIMALS, Math.max(4, 1 - Math.floor(Math.log10(Math.abs(value)))));
}

/**
 * An amount in `currency` (ISO 4217). Small amounts keep up to four decimals, and a tinier
 * one its first two significant digits ("$0.00003"), so that a fraction of a cent spent on a
 * few calls does not read as nothing.
 */
export function formatMoney(value: number, currency: string, language?: string): string {
  const small = value !== 0 && Math.abs(value) < 1;
  try {
    return formatNumber(value, language, {
      style: "currency",
      currency,
      minimumFractionDigits: 2,
      maximumFractionDigits: small ? smallDecimals(value) : 2,
    });
  } catch {
    return `${formatNumber(value, language, { maximumFractionDigits: 4 })} ${currency}`;
  }
}
