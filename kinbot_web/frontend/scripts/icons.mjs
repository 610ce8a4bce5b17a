// Render the PWA's PNG icons from public/favicon.svg into public/ with Debian's Chromium
// (apt-get install chromium). The PNGs are committed, so a build needs no browser; run this
// again after changing the SVG:
//
//   node scripts/icons.mjs            # CHROMIUM=/path/to/chromium to use another binary
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

import { chromium } from "playwright-core";

const PUBLIC = fileURLToPath(new URL("../public/", import.meta.url));
const CHROMIUM = process.env.CHROMIUM ?? "/usr/bin/chromium";
const svg = readFileSync(`${PUBLIC}favicon.svg`, "utf8");
// The maskable icon keeps the face inside the safe zone (the central 80%) on a full-bleed tile.
const maskable = svg.replace('<rect width="64" height="64" rx="18"', '<rect width="64" height="64"').replace("<svg ", '<svg transform="scale(0.8)" ');
const ICONS = [
  { file: "icon-192.png", size: 192, source: svg },
  { file: "icon-512.png", size: 512, source: svg },
  { file: "icon-maskable-512.png", size: 512, source: maskable, background: "#ef7d5e" },
  { file: "apple-touch-icon.png", size: 180, source: maskable, background: "#ef7d5e" },
];

const browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox", "--disable-gpu"] });
try {
  for (const icon of ICONS) {
    const page = await browser.newPage({ viewport: { width: icon.size, height: icon.size } });
    const background = icon.background ?? "transparent";
    await page.setContent(`<html><body style="margin:0;background:${background}"><div style="width:${icon.size}px;height:${icon.size}px;display:flex;align-items:center;justify-content:center">${icon.source.replace("<svg ", `<svg width="${icon.size}" height="${icon.size}" `)}</div></body></html>`);
    await page.screenshot({ path: `${PUBLIC}${icon.file}`, omitBackground: !icon.background });
    console.log(`wrote public/${icon.file}`);
    await page.close();
  }
} finally {
  await browser.close();
}
