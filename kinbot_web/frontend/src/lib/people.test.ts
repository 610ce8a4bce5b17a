// Other people's bubble tints: readable in both themes, stable per person, never one's own.
/// <reference types="node" />
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

import { describe, expect, it } from "vitest";

import { contrastOf, oklch } from "./color-contrast.test-util";
import { PERSON_TINTS, personTintOf } from "./people";

const css = readFileSync(fileURLToPath(import.meta.url).replace(/lib[/\\][^/\\]+$/, "index.css"), "utf8");
/** One's own bubble colour in the light and the dark theme, as index.css writes it. */
const own = [...css.matchAll(/--bubble-user:\s*(oklch\([^)]+\));/g)].map((match) => match[1]);
/** Links in a bubble (Markdown), light then dark. */
const links = [...css.matchAll(/--link:\s*(oklch\([^)]+\));/g)].map((match) => match[1]);

describe("person tints", () => {
  it.each(PERSON_TINTS.map((tint) => [tint.name, tint] as const))("%s keeps text at 4.5:1 in light and dark mode, inside sRGB", (_, tint) => {
    for (const theme of [tint.light, tint.dark]) {
      expect(contrastOf(theme.text, theme.background)).toBeGreaterThanOrEqual(4.5);
      expect(oklch(theme.background).inGamut).toBe(true);
      expect(oklch(theme.text).inGamut).toBe(true);
    }
  });

  it.each(PERSON_TINTS.map((tint) => [tint.name, tint] as const))("%s keeps links in a message at 4.5:1", (_, tint) => {
    expect(links).toHaveLength(2);
    expect(contrastOf(links[0], tint.light.background)).toBeGreaterThanOrEqual(4.5);
    expect(contrastOf(links[1], tint.dark.background)).toBeGreaterThanOrEqual(4.5);
  });

  it("are told apart from one's own bubble and from one another", () => {
    expect(own).toHaveLength(2);
    const hueOf = (color: string) => Number(/([\d.]+)\)$/.exec(color)![1]);
    const hues = PERSON_TINTS.map((tint) => hueOf(tint.light.background));
    for (const hue of hues) {
      const apart = Math.min(Math.abs(hue - hueOf(own[0])), 360 - Math.abs(hue - hueOf(own[0])));
      expect(apart).toBeGreaterThanOrEqual(30);
    }
    expect(new Set(hues).size).toBe(PERSON_TINTS.length);
  });

  it("are the same for the same person, and spread over people", () => {
    expect(personTintOf("u-marie")).toBe(personTintOf("u-marie"));
    const used = new Set(Array.from({ length: 60 }, (_, n) => personTintOf(`user-${n}`).name));
    expect(used.size).toBe(PERSON_TINTS.length);
  });
});
