/**
 * A failure as a sentence in the interface's language.
 *
 * The server answers errors as a stable `code` with `details` (see docs/api.md); the sentence
 * is the client's, from `apiErrors.codes` (i18n/errors.ts), with the details as its parameters
 * (a provider's `field` and a `capability` in the interface's words). The server's own
 * `message` is an English sentence for API clients: it only shows, as an explicit
 * "Details: …", for a code this interface does not know (a third-party plugin's). A provider's
 * own words (`detail`) show after the sentence as "The provider said: …".
 */
import type { TFunction } from "i18next";

import i18n from "@/i18n";
import { ApiError } from "@/lib/api";
import type { ConnectionReport } from "@/lib/types";

import { formatBytes, formatNumber } from "./format";
import { formatMoney } from "./money";

type Translate = TFunction | ((key: string, options?: Record<string, unknown>) => string);

interface InvalidField {
  field?: unknown;
  type?: unknown;
  [limit: string]: unknown;
}

function say(t: Translate, key: string, options?: Record<string, unknown>): string {
  return (t as (key: string, options?: Record<string, unknown>) => string)(key, options);
}

function has(t: Translate, key: string, options: Record<string, unknown> = {}): boolean {
  return say(t, key, { ...options, defaultValue: "" }) !== "";
}

/** The language `t` speaks: a fixed `t` knows it, the hook's follows the interface. */
function languageOf(t: Translate): string {
  return (t as { lng?: string | null }).lng ?? i18n.language;
}

/** An invalid field as "the name (at most 80 characters)"; its rule's limits as parameters. */
function fieldText(t: Translate, invalid: InvalidField): string {
  const path = typeof invalid.field === "string" ? invalid.field.split(".") : [];
  const name = [...path].reverse().find((part) => part !== "" && !/^\d+$/.test(part)) ?? "other";
  const label = has(t, `apiErrors.fields.${name}`) ? say(t, `apiErrors.fields.${name}`) : say(t, "apiErrors.fields.other");
  let rule = typeof invalid.type === "string" ? invalid.type : "invalid";
  if (rule === "string_too_short" && invalid.min_length === 1) rule = "missing";
  if (!has(t, `apiErrors.rules.${rule}`)) rule = "invalid";
  const limits = Object.fromEntries(
    Object.entries(invalid)
      .filter(([key, value]) => key !== "field" && key !== "type" && key !== "message" && typeof value === "number")
      .map(([key, value]) => [key, formatNumber(value as number, languageOf(t))]),
  );
  return say(t, "apiErrors.field", { label, rule: say(t, `apiErrors.rules.${rule}`, limits) });
}

/** An error's text and number details as its sentence's parameters, machine names in words. */
function sentenceParams(t: Translate, details: Record<string, unknown>): Record<string, string> {
  const language = languageOf(t);
  const params: Record<string, string> = {};
  for (const [key, value] of Object.entries(details)) {
    if (typeof value === "string") params[key] = value;
    else if (typeof value === "number") params[key] = formatNumber(value, language);
  }
  if (typeof details.currency === "string") {
    for (const key of ["limit", "spent"]) {
      if (typeof details[key] === "number") params[key] = formatMoney(details[key] as number, details.currency, language);
    }
  }
  if (typeof details.field === "string") {
    params.field = say(t, `firstRun.fields.${details.field}`, { defaultValue: params.label ?? details.field });
  }
  if (typeof details.capability === "string") {
    params.capability = say(t, `firstRun.capabilities.${details.capability}`, { defaultValue: details.capability });
  }
  return params;
}

function apiErrorText(t: Translate, error: ApiError): string {
  const details = error.details ?? {};
  if (!has(t, `apiErrors.codes.${error.code}`)) {
    const sentence = say(t, "apiErrors.unknown");
    return error.message ? `${sentence} ${say(t, "apiErrors.details", { details: error.message })}` : sentence;
  }
  const parts = [say(t, `apiErrors.codes.${error.code}`, sentenceParams(t, details))];
  // Why a connection test failed, then the provider's own words (provider_test_failed).
  if (typeof details.failure === "string" && details.failure !== error.code && has(t, `apiErrors.codes.${details.failure}`)) {
    parts.push(say(t, `apiErrors.codes.${details.failure}`, sentenceParams(t, details)));
  }
  const said = providerSaid(t, details.detail);
  if (said) parts.push(said);
  const fields = Array.isArray(details.fields) ? (details.fields as InvalidField[]) : [];
  if (error.code === "invalid_request" && fields.length > 0) {
    parts.splice(0, 1, say(t, "apiErrors.invalidFields", { fields: fields.map((field) => fieldText(t, field)).join(", ") }));
  }
  if (typeof details.retry_after === "number") parts.push(say(t, "apiErrors.retryIn", { count: details.retry_after }));
  if (typeof details.limit_bytes === "number") parts.push(say(t, "apiErrors.limit", { size: formatBytes(details.limit_bytes, languageOf(t)) }));
  return parts.join(" ");
}

/**
 * What went wrong, in the language of `t`: an `ApiError`'s code and details in words, a network
 * failure as "KinBot cannot be reached", anything else as a generic sentence.
 */
export function errorText(t: Translate, error: unknown): string {
  if (error instanceof ApiError) return apiErrorText(t, error);
  if (error instanceof TypeError) return say(t, "apiErrors.offline"); // fetch's network failure
  return say(t, "errors.generic");
}

/** "The provider said: …" for a provider's own words about a failure, or null without any. */
function providerSaid(t: Translate, detail: unknown): string | null {
  return typeof detail === "string" && detail.trim() !== "" ? say(t, "apiErrors.providerSaid", { detail: detail.trim() }) : null;
}

/** A failed connection test's second line: the provider's own words (`params.detail`), or null. */
export function connectionDetail(t: Translate, report: Pick<ConnectionReport, "ok" | "params">): string | null {
  return report.ok ? null : providerSaid(t, report.params?.detail);
}

/** A failed test's parameters for its sentence, the provider's own words left for the second line (`connectionDetail`). */
function withoutDetail(params: Record<string, unknown> | undefined): Record<string, unknown> {
  const { detail: _detail, ...rest } = params ?? {};
  return rest;
}

/** A connection test's result in words: its success code with parameters, or why it failed
 * (the provider's own words are `connectionDetail`'s second line). */
export function connectionText(t: Translate, report: Pick<ConnectionReport, "ok" | "code" | "params" | "message">): string {
  const params = { ...(report.params ?? {}) };
  const language = languageOf(t);
  for (const [key, value] of Object.entries(params)) {
    if (typeof value === "number" && key !== "count") params[key] = formatNumber(value, language);
  }
  if (report.ok) {
    return report.code && has(t, `apiErrors.connection.${report.code}`, params) ? say(t, `apiErrors.connection.${report.code}`, params) : say(t, "apiErrors.connection.ok");
  }
  const reason = apiErrorText(t, new ApiError(0, report.code || "provider_error", report.message, withoutDetail(report.params)));
  return say(t, "apiErrors.connection.failed", { reason });
}
