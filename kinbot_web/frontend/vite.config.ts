/// <reference types="vitest/config" />
import { fileURLToPath, URL } from "node:url";

import tailwindcss from "@tailwindcss/vite";
import react from "@vitejs/plugin-react";
import { defineConfig } from "vite";

// The build goes into the Python package (kinbot_web/static/, ignored by git), where the Quart
// app serves it; the manifest lets scripts/bundle-size.mjs find what a first visit loads.
export default defineConfig({
  plugins: [react(), tailwindcss()],
  resolve: {
    alias: { "@": fileURLToPath(new URL("./src", import.meta.url)) },
  },
  build: {
    outDir: "../static",
    emptyOutDir: true,
    manifest: true,
    target: "es2022",
  },
  server: {
    // `npm run dev` talks to a `kinbot serve` on the default port.
    proxy: { "/api": { target: "http://127.0.0.1:8787", changeOrigin: false } },
  },
  test: {
    // Tests that need a DOM say so in their first line (`// @vitest-environment jsdom`).
    environment: "node",
    include: ["src/**/*.test.{ts,tsx}"],
    css: false,
    setupFiles: ["src/test-setup.ts"],
    // A guard against a hung test, not a speed check: CI runs Vitest beside pytest on two cores.
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
