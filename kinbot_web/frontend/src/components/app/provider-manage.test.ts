import { describe, expect, it } from "vitest";

import i18n from "@/i18n";
import type { Provider, ProviderType } from "@/lib/types";

import { providerPatch, secretHintText } from "./provider-manage";

const type: ProviderType = {
  name: "openai", label: "OpenAI", default_name: "OpenAI", capabilities: ["llm"],
  config_fields: [
    { name: "api_key", label: "API key", required: true, secret: true, default: null, help: null },
    { name: "base_url", label: "Base URL", required: false, secret: false, default: null, help: null },
  ],
};
const provider: Provider = {
  id: "p1", kind: "ai", type: "openai", name: "OpenAI", capabilities: ["llm"],
  config: { base_url: "http://127.0.0.1:9/v1" }, secrets: { api_key: "…abcd" },
};

describe("providerPatch", () => {
  it("sends nothing when nothing changed, an empty secret being kept", () => {
    expect(providerPatch(provider, type, "OpenAI", { base_url: "http://127.0.0.1:9/v1", api_key: "" })).toEqual({});
  });

  it("sends a new name, a new secret and a changed address", () => {
    expect(providerPatch(provider, type, " Home ", { api_key: "sk-new", base_url: "http://127.0.0.1:9/v1" })).toEqual({ name: "Home", config: { api_key: "sk-new" } });
    expect(providerPatch(provider, type, "OpenAI", { base_url: "" })).toEqual({ config: { base_url: "" } });
  });
});

describe("secretHintText", () => {
  const en = i18n.getFixedT("en");
  const fr = i18n.getFixedT("fr");

  it("names the last characters of a saved key, in English and French", () => {
    expect(secretHintText(en, "…9f3a")).toBe("key ending in 9f3a");
    expect(secretHintText(fr, "…9f3a")).toBe("clé se terminant par 9f3a");
    expect(en("providers.secretKept", { hint: secretHintText(en, "…76") })).toBe("Leave empty to keep the current one (key ending in 76).");
  });

  it("says a short key is saved rather than showing a bare ellipsis", () => {
    for (const hint of ["…", "", undefined]) {
      expect(secretHintText(en, hint)).toBe("key saved");
      expect(secretHintText(fr, hint)).toBe("clé enregistrée");
    }
    expect(fr("providers.secretKept", { hint: secretHintText(fr, "…") })).toBe("Laissez vide pour garder l'actuelle (clé enregistrée).");
  });
});
