// Write Brotli (.br) and gzip (.gz) copies of the built text assets beside them, so that the
// server sends them precompressed (kinbot_web/blueprints/frontend.py picks the best one the
// browser accepts). Only copies that are smaller are kept.
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { brotliCompressSync, constants, gzipSync } from "node:zlib";

const ASSETS = fileURLToPath(new URL("../../static/assets/", import.meta.url));
const TEXT = /\.(js|css|svg|json)$/;

let files = 0;
for (const name of readdirSync(ASSETS)) {
  if (!TEXT.test(name)) continue;
  const data = readFileSync(join(ASSETS, name));
  const brotli = brotliCompressSync(data, { params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: data.length } });
  const gzip = gzipSync(data, { level: 9 });
  if (brotli.length < data.length) writeFileSync(join(ASSETS, `${name}.br`), brotli);
  if (gzip.length < data.length) writeFileSync(join(ASSETS, `${name}.gz`), gzip);
  files += 1;
}
console.log(`precompressed ${files} assets (.br, .gz)`);
