// Print the size of every built chunk and of what a first visit downloads (the entry and its
// static imports, gzipped); fail when that initial JavaScript passes the budget.
import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";

const BUDGET_KB = 300;
const outDir = fileURLToPath(new URL("../../static/", import.meta.url));
const manifest = JSON.parse(readFileSync(join(outDir, ".vite", "manifest.json"), "utf8"));

const gzipped = (file) => gzipSync(readFileSync(join(outDir, file)), { level: 9 }).length;
const kb = (bytes) => `${(bytes / 1024).toFixed(1)} KB`;

// What index.html loads: the entry chunk and, recursively, its static imports.
const entryKey = Object.keys(manifest).find((key) => manifest[key].isEntry);
function staticGraph(key, files = new Set(), css = new Set()) {
  const chunk = manifest[key];
  if (files.has(chunk.file)) return { files, css };
  files.add(chunk.file);
  for (const file of chunk.css ?? []) css.add(file);
  for (const imported of chunk.imports ?? []) staticGraph(imported, files, css);
  return { files, css };
}
const { files: initial, css } = staticGraph(entryKey);

const rows = Object.values(manifest)
  .filter((chunk) => chunk.file.endsWith(".js"))
  .map((chunk) => ({ file: chunk.file, raw: statSync(join(outDir, chunk.file)).size, gz: gzipped(chunk.file), initial: initial.has(chunk.file) }))
  .sort((a, b) => b.gz - a.gz);
console.log("\nJavaScript chunks (raw / gzipped):");
for (const row of rows) console.log(`  ${row.initial ? "*" : " "} ${row.file.padEnd(48)} ${kb(row.raw).padStart(10)} ${kb(row.gz).padStart(10)}`);

const initialJs = [...initial].reduce((sum, file) => sum + gzipped(file), 0);
const initialCss = [...css].reduce((sum, file) => sum + gzipped(file), 0);
const totalJs = rows.reduce((sum, row) => sum + row.gz, 0);
console.log(`\nInitial JavaScript (* above, gzipped): ${kb(initialJs)} (budget ${BUDGET_KB} KB)`);
console.log(`Initial CSS (gzipped): ${kb(initialCss)}; all JavaScript chunks (gzipped): ${kb(totalJs)}`);
// A first visit also fetches the chunks of the screen it opens (lazy routes of the entry),
// and what that screen loads lazily in turn (the Markdown renderer of the chat, say).
// Not counted: chunks a screen fetches only for some content, never for a plain first visit:
// highlight.js for a message with a fenced code block, KaTeX for one with math (see
// src/components/markdown.tsx). They are printed beside each screen.
const ON_DEMAND = [/(^|\/)node_modules\/rehype-highlight\//, /^src\/components\/katex-plugins\.ts$/];
const onDemand = (key) => ON_DEMAND.some((pattern) => pattern.test(key));
const routes = new Set(manifest[entryKey].dynamicImports ?? []);
function screenGraph(key, files, later) {
  const chunk = manifest[key];
  if (files.has(chunk.file)) return files;
  files.add(chunk.file);
  for (const imported of chunk.imports ?? []) screenGraph(imported, files, later);
  for (const imported of chunk.dynamicImports ?? []) {
    if (onDemand(imported)) later.add(imported);
    else if (!routes.has(imported)) screenGraph(imported, files, later);
  }
  return files;
}
const sum = (files) => [...files].reduce((total, file) => total + gzipped(file), 0);
console.log("First visit of each screen (entry + everything the screen loads, gzipped JavaScript; + what only some content loads):");
let heaviest = initialJs;
for (const key of routes) {
  const later = new Set();
  const files = screenGraph(key, new Set(initial), later);
  const total = sum(files);
  heaviest = Math.max(heaviest, total);
  const extra = new Set();
  for (const lazyKey of later) screenGraph(lazyKey, extra, new Set());
  for (const file of files) extra.delete(file);
  const names = [...later].map((lazyKey) => lazyKey.replace(/^.*node_modules\//, "").replace(/\/index\.js$/, "")).join(", ");
  const note = later.size ? `  (+ ${kb(sum(extra))} on demand: ${names})` : "";
  console.log(`  ${manifest[key].src.padEnd(40)} ${kb(total).padStart(10)}${note}`);
}
if (heaviest > BUDGET_KB * 1024) {
  console.error(`A first visit downloads more JavaScript than the ${BUDGET_KB} KB budget.`);
  process.exit(1);
}
