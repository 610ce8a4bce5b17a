import { describe, expect, it } from "vitest";

import i18n from "@/i18n";

import { starterPrompts, starterTopic } from "./starter-prompts";

describe("starterTopic", () => {
  it("takes the expertise's first phrase, lowered, without its full stop", () => {
    expect(starterTopic({ expertise: "Vegetarian cooking. Also baking.", role: "Family cook" })).toBe("vegetarian cooking");
  });
  it("keeps a name or an acronym as it is", () => {
    expect(starterTopic({ expertise: "NASA history", role: "" })).toBe("NASA history");
  });
  it("falls back to the role, then to nothing", () => {
    expect(starterTopic({ expertise: "  ", role: "Gardener of the balcony" })).toBe("gardener of the balcony");
    expect(starterTopic({ expertise: "", role: "" })).toBe("");
  });
  it("cuts a long expertise at a word", () => {
    const topic = starterTopic({ expertise: "Everything about the vegetable garden and the orchard and the flowers of every season", role: "" });
    expect(topic.length).toBeLessThanOrEqual(60);
    expect(topic.endsWith(" ")).toBe(false);
  });
});

describe("starterPrompts", () => {
  it("writes three prompts in the interface's language", async () => {
    await i18n.changeLanguage("fr");
    const prompts = starterPrompts(i18n.t.bind(i18n), { expertise: "Cuisine végétarienne.", role: "" });
    expect(prompts).toHaveLength(3);
    expect(prompts[0]).toBe("Que peux-tu faire pour moi côté cuisine végétarienne ?");
    await i18n.changeLanguage("en");
    expect(starterPrompts(i18n.t.bind(i18n), { expertise: "", role: "" })[0]).toBe("What can you do for me?");
  });
});
