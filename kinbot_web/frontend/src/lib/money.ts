/** Amounts of the instance's currency in the interface's language ("1,50 $US", "$1.50"). */
import { formatNumber } from "./format";

/**
 * An amount in `currency` (ISO 4217). Small amounts keep up to four decimals, so that a
 * fraction of a cent spent on a few calls does not read as nothing.
 */
export function formatMoney(value: number, currency: string, language?: string): string {
  const small = value !== 0 && Math.abs(value) < 1;
  try {
    return formatNumber(value, language, {
      style: "currency",
      currency,
      minimumFractionDigits: 2,
      maximumFractionDigits: small ? 4 : 2,
    });
  } catch {
    return `${formatNumber(value, language, { maximumFractionDigits: 4 })} ${currency}`;
  }
}
