import { describe, expect, it } from "vitest";

import i18n from "@/i18n";

import { actionWords, argumentLines } from "./approval-words";

function say(name: string, args: Record<string, unknown>, language = "en"): string {
  const { key, params } = actionWords(name, args);
  return i18n.getFixedT(language)(key, params);
}

/** The tools Settings suggests asking about (kinbot_core/approvals/catalog.py SUGGESTED). */
const SUGGESTED = ["notify", "send_message", "run_custom_tool", "delete_file", "delete_cron", "delete_custom_tool", "forget", "git_clone", "download_file"];

describe("what a call waiting for approval would do", () => {
  it("says it in words in both languages, for every suggested tool", () => {
    for (const name of SUGGESTED) {
      for (const language of ["en", "fr"]) {
        const sentence = say(name, { path: "notes.md", title: "Dinner", message: "Hi", tool_name: "sum_bills", name: "sum_bills", url: "https://example.org/a/b.git" }, language);
        expect(sentence).not.toContain("approvals.");
        expect(sentence).not.toContain(name);
      }
    }
    expect(say("delete_file", { path: "notes.md" })).toBe("Delete notes.md from its workspace");
    expect(say("delete_file", { path: "notes.md" }, "fr")).toBe("Supprimer notes.md de son espace de travail");
    expect(say("run_custom_tool", { tool_name: "sum_bills" })).toBe("Run its own tool sum bills");
  });

  it("names another built-in tool as the interface does, in the reader's language", () => {
    expect(say("write_file", { path: "notes.md", content: "Soup" }, "fr")).toBe("Écrire un fichier");
    expect(say("write_file", { path: "notes.md", content: "Soup" })).toBe("Write a file");
    expect(say("fetch_page", { url: "https://example.org" }, "fr")).toBe("Lire une page web");
  });

  it("names an MCP server's tool and any other tool without its id", () => {
    expect(say("home__turn_on_light", { room: "kitchen" })).toBe("Use turn on light from home");
    expect(say("sum_bills", { month: "May" }, "fr")).toBe("Utiliser l'outil sum bills");
    expect(say("constructor", {}, "fr")).toBe("Utiliser l'outil constructor");
  });

  it("lists the arguments with readable labels", () => {
    expect(argumentLines({ path: "a.txt", recursive: true })).toEqual([
      { name: "path", label: "path", value: "a.txt" },
      { name: "recursive", label: "recursive", value: "true" },
    ]);
  });
});
