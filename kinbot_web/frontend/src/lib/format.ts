/**
 * Dates, times, numbers and sizes in the interface's language (i18n.language), never the
 * browser's locale: a French interface in an English browser reads "3 déc. 2026, 11:37".
 *
 * Times of the API are seconds since the epoch. Every function takes the language last, with
 * the current interface language as its default, so a component re-rendered on a language
 * change formats in the new one.
 */
import i18n from "@/i18n";

/** A time of the API: seconds since the epoch, a Date, or an ISO string. */
export type When = number | Date | string;

function dateOf(when: When): Date {
  if (when instanceof Date) return when;
  return typeof when === "number" ? new Date(when * 1000) : new Date(when);
}

function current(language?: string): string {
  return language ?? i18n.language ?? "en";
}

// Building an Intl formatter costs far more than using one: keep one per language and style.
const cache = new Map<string, Intl.DateTimeFormat | Intl.NumberFormat | Intl.RelativeTimeFormat>();

function cached<T extends Intl.DateTimeFormat | Intl.NumberFormat | Intl.RelativeTimeFormat>(key: string, make: () => T): T {
  let formatter = cache.get(key) as T | undefined;
  if (!formatter) {
    formatter = make();
    cache.set(key, formatter);
  }
  return formatter;
}

function dateTimeFormat(language: string, options: Intl.DateTimeFormatOptions): Intl.DateTimeFormat {
  return cached(`dt:${language}:${JSON.stringify(options)}`, () => new Intl.DateTimeFormat(language, options));
}

/** A date and time, e.g. "3 déc. 2026, 11:37" (fr) or "Dec 3, 2026, 11:37 AM" (en). */
export function formatDateTime(when: When, language?: string): string {
  return dateTimeFormat(current(language), { dateStyle: "medium", timeStyle: "short" }).format(dateOf(when));
}

/** A date, e.g. "3 déc. 2026" (fr) or "Dec 3, 2026" (en). */
export function formatDate(when: When, language?: string): string {
  return dateTimeFormat(current(language), { dateStyle: "medium" }).format(dateOf(when));
}

/** Whether the language writes times on a 24-hour clock ("fr": 14:05; "en": 2:05 PM). */
export function uses24HourClock(language?: string): boolean {
  return !current(language).startsWith("en");
}

/**
 * A time of day, e.g. "14:05" (fr) or "2:05 PM" (en). Written by hand rather than with Intl:
 * the chat shows one per message, and the first Intl formatter of a page costs tens of
 * milliseconds on its first render.
 */
export function formatTime(when: When, language?: string): string {
  const date = dateOf(when);
  const minutes = String(date.getMinutes()).padStart(2, "0");
  if (uses24HourClock(language)) return `${String(date.getHours()).padStart(2, "0")}:${minutes}`;
  return `${date.getHours() % 12 || 12}:${minutes} ${date.getHours() < 12 ? "AM" : "PM"}`;
}

const RELATIVE_UNITS: readonly [Intl.RelativeTimeFormatUnit, number][] = [
  ["year", 365 * 24 * 3600],
  ["month", 30 * 24 * 3600],
  ["week", 7 * 24 * 3600],
  ["day", 24 * 3600],
  ["hour", 3600],
  ["minute", 60],
  ["second", 1],
];

/** How far `when` is from `now`, e.g. "il y a 5 minutes", "in 2 hours", "yesterday". */
export function formatRelative(when: When, language?: string, now: When = new Date()): string {
  const seconds = (dateOf(when).getTime() - dateOf(now).getTime()) / 1000;
  const format = cached(`rt:${current(language)}`, () => new Intl.RelativeTimeFormat(current(language), { numeric: "auto" }));
  for (const [unit, size] of RELATIVE_UNITS) {
    if (Math.abs(seconds) >= size || unit === "second") return format.format(Math.round(seconds / size), unit);
  }
  return format.format(0, "second");
}

/** A number with the language's separators, e.g. "12 345,6" (fr) or "12,345.6" (en). */
export function formatNumber(value: number, language?: string, options: Intl.NumberFormatOptions = {}): string {
  return cached(`n:${current(language)}:${JSON.stringify(options)}`, () => new Intl.NumberFormat(current(language), options)).format(value);
}

const BYTE_UNITS = ["byte", "kilobyte", "megabyte", "gigabyte", "terabyte"] as const;

/** A size in bytes in the largest fitting unit (powers of 1024), e.g. "1,5 Mo" (fr) or "1.5 MB" (en), "512 octets". */
export function formatBytes(bytes: number, language?: string): string {
  let value = bytes;
  let unit = 0;
  while (Math.abs(value) >= 1024 && unit < BYTE_UNITS.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return formatNumber(value, language, { style: "unit", unit: BYTE_UNITS[unit], unitDisplay: unit === 0 ? "long" : "short", maximumFractionDigits: unit === 0 ? 0 : 1 });
}
