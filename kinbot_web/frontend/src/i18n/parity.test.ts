import { describe, expect, it } from "vitest";

import i18n from "./index";
import en from "./en";
import fr from "./fr";

/** Every key path of a strings tree, with its value. */
function leaves(tree: object, prefix = ""): Map<string, unknown> {
  const found = new Map<string, unknown>();
  for (const [key, value] of Object.entries(tree)) {
    const path = prefix ? `${prefix}.${key}` : key;
    if (value !== null && typeof value === "object") for (const [inner, leaf] of leaves(value as object, path)) found.set(inner, leaf);
    else found.set(path, value);
  }
  return found;
}

describe("English and French strings", () => {
  it("have the same keys, each a non-empty string with the same placeholders", () => {
    const english = leaves(en);
    const french = leaves(fr);
    expect([...french.keys()].sort()).toEqual([...english.keys()].sort());
    const placeholders = (text: unknown) => [...String(text).matchAll(/\{\{\s*(\w+)/g)].map((match) => match[1]).sort();
    for (const [key, text] of english) {
      expect(typeof text, key).toBe("string");
      expect(String(text).trim(), key).not.toBe("");
      expect(String(french.get(key)).trim(), key).not.toBe("");
      expect(placeholders(french.get(key)), key).toEqual(placeholders(text));
    }
  });

  it("elide French 'de' and 'que' before a name that starts with a vowel", () => {
    for (const [key, text] of leaves(fr)) {
      expect(String(text), key).not.toMatch(/\b(de|que) \{\{(name|kin|server|repository|provider|model)\}\}/);
    }
    const inFrench = i18n.getFixedT("fr");
    expect(inFrench("chat.beginning", { name: "Atlas" })).toBe("Ici commence l'histoire d'Atlas.");
    expect(inFrench("chat.beginning", { name: "Chef" })).toBe("Ici commence l'histoire de Chef.");
    expect(inFrench("kinSettings.networkHint", { name: "Émile" })).toContain("les scripts qu'Émile écrit");
    expect(inFrench("chat.answerIn", { name: "Home Assistant" })).toBe("Répondez-y dans le chat de Home Assistant");
  });

  it("keep French double punctuation and guillemets on their word's line (a no-break space)", () => {
    for (const [key, text] of leaves(fr)) {
      expect(String(text), key).not.toMatch(/ [:;!?»]|« /);
    }
  });
});
