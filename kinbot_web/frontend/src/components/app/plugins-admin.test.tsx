// @vitest-environment jsdom
import { act, cleanup, render, screen } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";

import { ToastProvider } from "@/components/ui/toast";
import i18n from "@/i18n";

import { type Plugin, PluginsAdmin, pluginWords } from "./plugins-admin";

afterEach(async () => {
  cleanup();
  vi.unstubAllGlobals();
  await act(() => i18n.changeLanguage("en"));
});

const BASE = { version: "0.1.0", hooks: ["register_tools"], enabled: true, required: null, required_code: null, error: null, error_code: null };
const PLUGINS: Plugin[] = [
  { ...BASE, name: "kin_directory", builtin: true, description: null },
  { ...BASE, name: "sqlite_memory", builtin: true, description: null, required: "the only memory backend", required_code: "only_memory_backends" },
  { ...BASE, name: "plant_care", version: "2.0", builtin: false, description: { en: "Waters the plants.", fr: "Arrose les plantes." } },
  { ...BASE, name: "mystery", version: null, builtin: false, description: null },
];

async function show(language: "en" | "fr") {
  await act(() => i18n.changeLanguage(language));
  vi.stubGlobal(
    "fetch",
    vi.fn(async () => new Response(JSON.stringify({ plugins: PLUGINS }), { status: 200 })),
  );
  render(
    <ToastProvider>
      <PluginsAdmin />
    </ToastProvider>,
  );
}

/** The text of a plugin's row outside its "Advanced" disclosure, and inside it. */
function row(name: string): { shown: string; advanced: string } {
  const item = document.querySelector(`[data-plugin="${name}"]`) as HTMLElement;
  const advanced = item.querySelector("[data-advanced]")?.textContent ?? "";
  return { shown: (item.textContent ?? "").replace(advanced, ""), advanced };
}

describe("Settings › Plugins", () => {
  it("names each built-in plugin and says what it does, its package name only under Advanced", async () => {
    await show("en");
    expect(await screen.findByText("Kin directory")).toBeTruthy();
    expect(screen.getByText("Lets a Kin see the other Kins, to know whom to ask.")).toBeTruthy();
    expect(screen.getByRole("switch", { name: "Enable Kin directory" })).toBeTruthy();
    for (const name of ["kin_directory", "sqlite_memory"]) {
      expect(row(name).shown).not.toContain(name);
      expect(row(name).advanced).toContain(`Plugin name: ${name} · version 0.1.0`);
    }
    expect(row("sqlite_memory").shown).toContain("Memory");
    expect(row("sqlite_memory").advanced).toContain("Hooks: register_tools");
    // Listed in the order of their names for people.
    const order = [...document.querySelectorAll("[data-plugin]")].map((item) => item.getAttribute("data-plugin"));
    expect(order).toEqual(["kin_directory", "sqlite_memory", "mystery", "plant_care"]);
  });

  it("reads in French, a third-party plugin by its own description, else by its name", async () => {
    await show("fr");
    expect(await screen.findByText("Annuaire des Kins")).toBeTruthy();
    expect(screen.getByText("Permet à un Kin de voir les autres Kins, pour savoir à qui demander.")).toBeTruthy();
    expect(row("sqlite_memory").advanced).toContain("Nom du plugin : sqlite_memory");
    expect(row("sqlite_memory").advanced).toContain("Hooks : register_tools");
    expect(row("plant_care").shown).toContain("Arrose les plantes.");
    expect(row("mystery").shown).toContain("mystery");
  });

  it("words a plugin from its name and its own description", () => {
    const en = i18n.getFixedT("en");
    expect(pluginWords(en, "en", { name: "telegram", builtin: true, description: null })).toEqual({ label: "Telegram", description: "Lets people talk with the Kins from Telegram." });
    // A third-party plugin is not taken for a built-in one of the same name.
    expect(pluginWords(en, "en", { name: "telegram", builtin: false, description: { en: "Another bot." } })).toEqual({ label: "telegram", description: "Another bot." });
    expect(pluginWords(en, "de", { name: "x", builtin: false, description: { en: "English.", fr: "Français." } }).description).toBe("English.");
  });
});
