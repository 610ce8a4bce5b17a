// The colour tokens of index.css meet WCAG AA in both themes: every text colour the components
// put on a surface (4.5:1) and the focus ring and status marks (3:1, non-text). The CSS is
// parsed as written, so an edit of a token that breaks a pair fails here.
/// <reference types="node" />
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

import { describe, expect, it } from "vitest";

import { contrast, luminance, oklch, type Rgb } from "./lib/color-contrast.test-util";

const css = readFileSync(fileURLToPath(import.meta.url).replace(/[^/\\]+$/, "index.css"), "utf8");


/** The custom properties of the first rule whose selector list is `selector`. */
function tokensOf(selector: string): Record<string, string> {
  const start = css.indexOf(`${selector} {`);
  if (start < 0) throw new Error(`no ${selector} rule in index.css`);
  const body = css.slice(css.indexOf("{", start) + 1, css.indexOf("}", start));
  const tokens: Record<string, string> = {};
  for (const match of body.matchAll(/--([\w-]+):\s*([^;]+);/g)) tokens[match[1]] = match[2].trim();
  return tokens;
}

const THEMES = { light: tokensOf(":root,\n.light"), dark: { ...tokensOf(":root,\n.light"), ...tokensOf(".dark") } };

function resolve(theme: Record<string, string>, name: string): string {
  let value = theme[name];
  for (let depth = 0; value?.startsWith("var("); depth++) {
    if (depth > 5) throw new Error(`--${name} refers to itself`);
    value = theme[value.slice(6, -1)];
  }
  if (!value) throw new Error(`no --${name} token`);
  return value;
}

function color(theme: Record<string, string>, name: string): { rgb: Rgb; inGamut: boolean } {
  const value = resolve(theme, name);
  if (!value.startsWith("oklch(")) throw new Error(`--${name}: ${value} is not oklch(L C H)`);
  return oklch(value);
}

/** `token` or `token/alpha` (Tailwind's opacity modifier) composited over `under`. */
function paint(theme: Record<string, string>, spec: string, under: Rgb): Rgb {
  const [name, percent] = spec.split("/");
  const top = color(theme, name).rgb;
  const alpha = percent ? Number(percent) / 100 : 1;
  return top.map((v, i) => alpha * v + (1 - alpha) * under[i]) as Rgb;
}

/** A text (or mark) colour on a surface: `surface` may be `token/alpha` over `base`. */
interface Pair {
  fg: string;
  bg: string;
  base?: string;
  min: number;
}

const TEXT = 4.5;
const MARK = 3;
const text = (fg: string, bgs: string[], base?: string): Pair[] => bgs.map((bg) => ({ fg, bg, base, min: TEXT }));

const BUBBLES = ["bubble-user", "bubble-kin", "bubble-task", "bubble-cron", "bubble-assistant", "bubble-error"];
const SURFACES = ["background", "card", "popover", "muted", "sidebar", "secondary", "accent"];

const PAIRS: Pair[] = [
  ...text("foreground", [...SURFACES, "bubble-kin", "bubble-task", "bubble-cron", "bubble-assistant", "bubble-error"]),
  ...text("card-foreground", ["card"]),
  ...text("popover-foreground", ["popover"]),
  ...text("muted-foreground", SURFACES),
  ...text("muted-foreground", ["muted/70", "warning/15", "warning/20"], "card"),
  // A task's question (a warning tint) inside the bubbles that carry one: its title, hint and link.
  ...BUBBLES.filter((bubble) => bubble !== "bubble-user").flatMap((base) => [...text("muted-foreground", ["warning/15"], base), ...text("foreground", ["warning/15"], base)]),
  // Buttons, badges and the onboarding steps, at rest and hovered.
  ...text("primary-foreground", ["primary"]),
  ...text("primary-foreground", ["primary/90"], "background"),
  ...text("primary-foreground", ["primary/90"], "card"),
  ...text("secondary-foreground", ["secondary", "secondary/80"]),
  ...text("secondary-foreground", ["secondary/80"], "card"),
  ...text("accent-foreground", ["accent"]),
  ...text("destructive-foreground", ["destructive"]),
  ...text("destructive-foreground", ["destructive/90"], "background"),
  ...text("destructive-foreground", ["destructive/90"], "card"),
  // Links (Markdown in every bubble, the link button) and coral text.
  ...text("link", ["background", "card", "popover", "muted", "sidebar", ...BUBBLES]),
  // Errors and their badge, alerts and menu items.
  ...text("destructive", ["background", "card", "popover", "bubble-error"]),
  ...["card", "background", "muted", "popover"].flatMap((base) => text("destructive", ["destructive/15", "destructive/10"], base)),
  // Success text and badge, the steps done.
  ...text("success", ["background", "card", "popover"]),
  ...["card", "background", "muted"].flatMap((base) => text("success", ["success/15", "success/20"], base)),
  // Warning banners and badges carry the foreground.
  ...text("foreground", ["warning/15", "warning/20"], "background"),
  ...text("foreground", ["warning/15", "warning/20"], "card"),
  // Message origins: the user's bubble, the origin markers (badges) on their bubbles.
  ...text("bubble-user-foreground", ["bubble-user"]),
  ...text("bubble-kin-accent", ["bubble-kin", "card"]),
  ...text("bubble-task-accent", ["bubble-task", "card"]),
  ...text("bubble-cron-accent", ["bubble-cron", "card"]),
  ...text("bubble-error-accent", ["bubble-error"]),
  // Highlighted code: on the code block (muted) in every bubble.
  ...["code-keyword", "code-string", "code-number", "code-title", "muted-foreground"].flatMap((fg) => text(fg, ["muted", "card"])),
  // Placeholder text in fields.
  ...text("muted-foreground/80", ["card"]),
  // Avatar initials on every fallback tint.
  ...["bubble-user", "bubble-kin", "bubble-task", "bubble-cron", "accent", "secondary"].map((bg) => ({ fg: "foreground/75", bg, min: TEXT })),
  // Non-text: the focus ring, the status dots and icons.
  ...["background", "card", "sidebar", "popover", "muted"].map((bg) => ({ fg: "ring", bg, min: MARK })),
  ...["card", "sidebar", "background"].map((bg) => ({ fg: "warning", bg, min: MARK })),
  ...["card", "sidebar", "background"].map((bg) => ({ fg: "success", bg, min: MARK })),
  ...["card", "sidebar", "background"].map((bg) => ({ fg: "destructive", bg, min: MARK })),
];

/** The ratio of a pair in a theme. */
function ratioOf(theme: Record<string, string>, pair: Pair): number {
  const base = color(theme, pair.base ?? "background").rgb;
  const surface = paint(theme, pair.bg, base);
  return contrast(paint(theme, pair.fg, surface), surface);
}

describe("colour tokens", () => {
  it("computes the WCAG ratio of known colours", () => {
    expect(contrast([0, 0, 0], [1, 1, 1])).toBeCloseTo(21, 5);
    // #767676 on white is the classic 4.54:1.
    const grey = 0x76 / 255;
    expect(contrast([grey, grey, grey], [1, 1, 1])).toBeCloseTo(4.54, 2);
    // oklch(0.628 0.2577 29.23) is #ff0000.
    const red = oklch("oklch(0.628 0.2577 29.23)");
    expect(red.rgb.map((v) => Math.round(v * 255))).toEqual([255, 0, 0]);
  });

  for (const [name, theme] of Object.entries(THEMES)) {
    it(`keeps every token of the ${name} theme inside sRGB`, () => {
      const outside = Object.keys(theme).filter((token) => /^oklch/.test(resolve(theme, token)) && !color(theme, token).inGamut);
      expect(outside).toEqual([]);
    });

    it(`meets WCAG AA for every pair in the ${name} theme`, () => {
      const failing = PAIRS.map((pair) => ({ pair, ratio: ratioOf(theme, pair) }))
        .filter(({ pair, ratio }) => ratio < pair.min)
        .map(({ pair, ratio }) => `${pair.fg} on ${pair.bg}${pair.base ? ` over ${pair.base}` : ""}: ${ratio.toFixed(2)} < ${pair.min}`);
      expect(failing).toEqual([]);
    });
  }

  it("keeps the dark theme warm and never pure black", () => {
    const dark = THEMES.dark;
    for (const token of ["background", "card", "sidebar", "muted"]) {
      const [r, , b] = color(dark, token).rgb;
      expect(luminance([r, r, b])).toBeGreaterThan(0.005);
      expect(r).toBeGreaterThan(b);
    }
  });
});
