/**
 * How a person reads provider types, fields and capabilities: the server names them by id
 * (with a plugin's English labels); a built-in one gets its words in the user's language, a
 * plugin's unknown one keeps the server's.
 */
import i18n, { type TFunction } from "i18next";

import type { ProviderConfigField, ProviderType } from "@/lib/types";

/** "chat model" for `llm`, "memory search" for `embedding`… (an unknown id as it is). */
export function capabilityWord(t: TFunction, capability: string): string {
  return t(`firstRun.capabilities.${capability}`, { defaultValue: capability });
}

/** The capabilities as one phrase: "chat model, memory search, images". */
export function capabilityList(t: TFunction, capabilities: string[]): string {
  return capabilities.map((capability) => capabilityWord(t, capability)).join(", ");
}

/** The type's name in the list ("Ollama, LM Studio or another OpenAI-compatible server"). */
export function typeLabel(t: TFunction, type: Pick<ProviderType, "name" | "label">): string {
  return t(`firstRun.types.${type.name}`, { defaultValue: type.label });
}

export function fieldLabel(t: TFunction, field: ProviderConfigField): string {
  return t(`firstRun.fields.${field.name}`, { defaultValue: field.label });
}

/** The hint under a field, saying what its validation expects (the plugin's own for a field this client does not know). */
export function fieldHint(t: TFunction, type: ProviderType, field: ProviderConfigField): string | undefined {
  const specific = `firstRun.hints.${type.name}.${field.name}`;
  if (i18n.exists(specific)) return t(specific);
  if (field.name === "base_url") return t(field.required ? "firstRun.hints.baseUrlRequired" : "firstRun.hints.baseUrlOptional");
  if (field.name === "api_key" && !field.required) return t("firstRun.hints.optionalKey");
  if (!field.required && field.default && field.name in FIELDS_WITH_WORDS) return t("firstRun.hints.optionalDefault", { value: field.default });
  return field.help ?? undefined;
}

const FIELDS_WITH_WORDS = { embedding_model: true, image_model: true, model: true };

/** The values a new configuration starts with: a required field's suggested value (Ollama's address, say). */
export function initialConfig(type: ProviderType | undefined): Record<string, string> {
  return Object.fromEntries((type?.config_fields ?? []).filter((field) => field.required && field.default).map((field) => [field.name, field.default as string]));
}

/** The name a new provider gets when none is typed: the type's (in the user's language for a built-in one), numbered when taken. */
export function defaultProviderName(t: TFunction, type: ProviderType, taken: string[]): string {
  const base = t(`firstRun.defaultNames.${type.name}`, { defaultValue: type.default_name || type.name });
  const used = new Set(taken.map((name) => name.toLowerCase()));
  if (!used.has(base.toLowerCase())) return base;
  for (let number = 2; ; number++) {
    const candidate = `${base} ${number}`;
    if (!used.has(candidate.toLowerCase())) return candidate;
  }
}

/** Whether setting the type up needs an account with someone (a required secret: an API key). */
export function needsAccount(type: ProviderType): boolean {
  return type.config_fields.some((field) => field.secret && field.required);
}
