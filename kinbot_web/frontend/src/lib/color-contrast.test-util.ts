/** WCAG contrast of CSS `oklch(L C H)` colours, for the colour tests (test code only). */

export type Rgb = [number, number, number]; // gamma-encoded sRGB, 0..1

/** `oklch(L C H)` to sRGB (CSS Color 4), with whether it lies inside the sRGB gamut. */
export function oklch(css: string): { rgb: Rgb; inGamut: boolean } {
  const match = /^oklch\(([\d.]+)\s+([\d.]+)\s+([\d.]+)\)$/.exec(css);
  if (!match) throw new Error(`${css} is not oklch(L C H)`);
  const [l, c, h] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const a = c * Math.cos((h * Math.PI) / 180);
  const b = c * Math.sin((h * Math.PI) / 180);
  const l_ = (l + 0.3963377774 * a + 0.2158037573 * b) ** 3;
  const m_ = (l - 0.1055613458 * a - 0.0638541728 * b) ** 3;
  const s_ = (l - 0.0894841775 * a - 1.291485548 * b) ** 3;
  const linear = [
    4.0767416621 * l_ - 3.3077115913 * m_ + 0.2309699292 * s_,
    -1.2684380046 * l_ + 2.6097574011 * m_ - 0.3413193965 * s_,
    -0.0041960863 * l_ - 0.7034186147 * m_ + 1.707614701 * s_,
  ];
  const inGamut = linear.every((v) => v > -0.002 && v < 1.002);
  const encode = (v: number) => {
    const x = Math.min(1, Math.max(0, v));
    return x <= 0.0031308 ? 12.92 * x : 1.055 * x ** (1 / 2.4) - 0.055;
  };
  return { rgb: linear.map(encode) as Rgb, inGamut };
}

/** WCAG relative luminance of a gamma-encoded sRGB colour. */
export function luminance([r, g, b]: Rgb): number {
  const lin = (v: number) => (v <= 0.04045 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4);
  return 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b);
}

/** The WCAG contrast ratio of two sRGB colours (1 to 21). */
export function contrast(a: Rgb, b: Rgb): number {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (hi + 0.05) / (lo + 0.05);
}

/** The contrast ratio of two `oklch(…)` colours (1 to 21). */
export function contrastOf(first: string, second: string): number {
  return contrast(oklch(first).rgb, oklch(second).rgb);
}
