import { describe, expect, it } from "vitest";

import type { Provider, ProviderType } from "@/lib/types";

import { providerPatch } from "./provider-manage";

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
