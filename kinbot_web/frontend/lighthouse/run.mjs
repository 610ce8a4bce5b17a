// Lighthouse on the chat screen, printed: accessibility, performance, best practices.
// Serves the current build (kinbot_web/static, `npm run build` first) the way the Quart app
// does (SPA fallback, the same cache headers, precompressed assets) and drives Debian's
// Chromium.
//
//   npm ci --prefix kinbot_web/frontend/lighthouse && npm run lighthouse --prefix kinbot_web/frontend
//
// Each page runs in the light theme, then the dark one (Chromium told the system prefers dark,
// which the app follows while nobody chose a theme). By default the page is the chat mock-up
// (/design/mockups/chat): the real components and bundle with sample messages. Given a full URL instead (and the Cookie header to send in
// LIGHTHOUSE_COOKIE), it audits that page of a running KinBot: benchmarks/lighthouse_chat.py
// does so on the live chat of a signed-in user.
import { readFile, stat, writeFile } from "node:fs/promises";
import http from "node:http";
import { extname, join, normalize } from "node:path";
import { fileURLToPath } from "node:url";

import * as chromeLauncher from "chrome-launcher";
import lighthouse from "lighthouse";

const ROOT = fileURLToPath(new URL("../../static/", import.meta.url));
const PAGE = process.argv[2] ?? "/design/mockups/chat";
const TYPES = { ".html": "text/html", ".js": "text/javascript", ".css": "text/css", ".svg": "image/svg+xml", ".woff2": "font/woff2", ".webmanifest": "application/manifest+json", ".json": "application/json" };
const FLAGS = ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic"];

async function file(path) {
  try {
    const full = normalize(join(ROOT, path));
    if (!full.startsWith(ROOT) || !(await stat(full)).isFile()) return null;
    return full;
  } catch {
    return null;
  }
}

const server = http.createServer(async (request, response) => {
  const path = decodeURIComponent(new URL(request.url, "http://x").pathname).replace(/^\/+/, "");
  const found = (path && (await file(path))) || join(ROOT, "index.html");
  const hashed = path.startsWith("assets/") && found.endsWith(path);
  // As the server does: the precompressed copy the browser accepts, for hashed assets.
  const brotli = hashed && /\bbr\b/.test(request.headers["accept-encoding"] ?? "") && (await file(`${path}.br`));
  response.writeHead(200, {
    "Content-Type": TYPES[extname(found)] ?? "application/octet-stream",
    "Cache-Control": hashed ? "public, max-age=31536000, immutable" : "no-cache",
    ...(brotli ? { "Content-Encoding": "br", Vary: "Accept-Encoding" } : {}),
  });
  response.end(await readFile(brotli || found));
});
const live = /^https?:\/\//.test(PAGE);
let url = PAGE;
if (!live) {
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${server.address().port}${PAGE}`;
}
const extraHeaders = process.env.LIGHTHOUSE_COOKIE ? { Cookie: process.env.LIGHTHOUSE_COOKIE } : undefined;

const categories = ["performance", "accessibility", "best-practices"];
for (const theme of ["light", "dark"]) {
  // Blink's preferredColorScheme: 0 is dark, 1 light.
  const flags = [...FLAGS, `--blink-settings=preferredColorScheme=${theme === "dark" ? 0 : 1}`];
  const chrome = await chromeLauncher.launch({ chromePath: process.env.CHROMIUM ?? "/usr/bin/chromium", chromeFlags: flags });
  try {
    for (const formFactor of ["mobile", "desktop"]) {
      const settings = formFactor === "desktop" ? { formFactor, screenEmulation: { mobile: false, width: 1350, height: 940, deviceScaleFactor: 1, disabled: false }, throttling: { rttMs: 40, throughputKbps: 10240, cpuSlowdownMultiplier: 1 } } : { formFactor };
      const result = await lighthouse(url, { port: chrome.port, output: "json", logLevel: "error", onlyCategories: categories, extraHeaders }, { extends: "lighthouse:default", settings });
      const { lhr } = result;
      // LIGHTHOUSE_JSON=<folder> keeps each full report, to see what a score is made of.
      if (process.env.LIGHTHOUSE_JSON) await writeFile(join(process.env.LIGHTHOUSE_JSON, `${theme}-${formFactor}.json`), result.report);
      console.log(`\nLighthouse ${lhr.lighthouseVersion}, ${PAGE}, ${theme}, ${formFactor}:`);
      for (const id of categories) console.log(`  ${lhr.categories[id].title.padEnd(16)} ${Math.round(lhr.categories[id].score * 100)}`);
      for (const metric of ["first-contentful-paint", "largest-contentful-paint", "total-blocking-time", "cumulative-layout-shift"]) {
        console.log(`  ${lhr.audits[metric].title.padEnd(28)} ${lhr.audits[metric].displayValue}`);
      }
      const failing = Object.values(lhr.audits).filter((audit) => audit.score !== null && audit.score < 0.9 && audit.scoreDisplayMode !== "informative" && audit.scoreDisplayMode !== "manual");
      if (failing.length) console.log(`  below 90: ${failing.map((audit) => audit.id).join(", ")}`);
      for (const item of lhr.audits["color-contrast"].details?.items ?? []) console.log(`  low contrast: ${item.node.snippet.slice(0, 100)} (${item.node.explanation?.split("\n")[1]?.trim() ?? ""})`);
    }
  } finally {
    await chrome.kill();
  }
}
if (!live) server.close();
