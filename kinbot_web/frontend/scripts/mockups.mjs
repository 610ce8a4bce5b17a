// Screenshot the mock-up routes (/design/mockups/...) and the design page, in light and dark,
// into docs/design/. Serves the current build (npm run build first) with Vite's preview server
// and drives Debian's Chromium (apt-get install chromium); no browser is downloaded.
//
//   node scripts/mockups.mjs            # CHROMIUM=/path/to/chromium to use another binary
import { mkdirSync } from "node:fs";
import { fileURLToPath } from "node:url";

import { chromium } from "playwright-core";
import { preview } from "vite";

const OUT = fileURLToPath(new URL("../../../docs/design/", import.meta.url));
const CHROMIUM = process.env.CHROMIUM ?? "/usr/bin/chromium";
const FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic"];
const SHOTS = [
  { name: "onboarding", path: "/design/mockups/onboarding", viewport: { width: 1280, height: 960 } },
  { name: "chat", path: "/design/mockups/chat", viewport: { width: 1440, height: 900 } },
  { name: "chat-phone", path: "/design/mockups/chat", viewport: { width: 390, height: 844 } },
  { name: "settings", path: "/design/mockups/settings", viewport: { width: 1280, height: 900 } },
];

const server = await preview({ configFile: fileURLToPath(new URL("../vite.config.ts", import.meta.url)), preview: { port: 4179, host: "127.0.0.1" }, logLevel: "warn" });
const base = server.resolvedUrls?.local[0]?.replace(/\/$/, "");
const browser = await chromium.launch({ executablePath: CHROMIUM, args: FLAGS });
mkdirSync(OUT, { recursive: true });
try {
  for (const theme of ["light", "dark"]) {
    for (const shot of SHOTS) {
      const page = await browser.newPage({ viewport: shot.viewport, reducedMotion: "reduce", colorScheme: theme });
      await page.goto(`${base}${shot.path}?theme=${theme}`, { waitUntil: "networkidle" });
      await page.evaluate(() => document.fonts.ready);
      const file = `${OUT}${shot.name}-${theme}.png`;
      await page.screenshot({ path: file });
      console.log(`wrote ${file}`);
      await page.close();
    }
  }
  const page = await browser.newPage({ viewport: { width: 1440, height: 900 }, reducedMotion: "reduce" });
  await page.goto(`${base}/design?theme=light`, { waitUntil: "networkidle" });
  await page.evaluate(() => document.fonts.ready);
  await page.screenshot({ path: `${OUT}design-system.png`, fullPage: true });
  console.log(`wrote ${OUT}design-system.png`);
} finally {
  await browser.close();
  await new Promise((resolve) => server.httpServer.close(resolve));
}
