import { describe, expect, it } from "vitest";

import i18n from "@/i18n";
import en from "@/i18n/en";

import { DESCRIBED_TOOLS, describeToolCall, QUOTE_LIMIT, quote } from "./tool-descriptions";

function say(name: string, args: unknown, language = "en"): string {
  const { key, params, keyParams = {} } = describeToolCall(name, args);
  const t = i18n.getFixedT(language);
  return t(key, { ...params, ...Object.fromEntries(Object.entries(keyParams).map(([k, v]) => [k, t(v)])) });
}

/** Every tool the server registers (kinbot_plugins: tools, memory, custom tools). */
const BUILT_IN = [
  "recall", "memorize", "update_memory", "forget", "list_memories", "search_history",
  "web_search", "fetch_page",
  "spawn_self", "spawn_kin", "respond_to_task", "cancel_task", "list_tasks", "report_to_parent", "update_task_status", "request_input",
  "send_message", "reply", "list_kins", "notify",
  "create_cron", "update_cron", "delete_cron", "list_crons",
  "get_secret", "store_secret", "redact_message",
  "get_contact", "search_contacts", "create_contact", "update_contact",
  "list_files", "read_file", "write_file", "delete_file", "download_file", "git_clone", "save_attachment",
  "register_tool", "run_custom_tool", "list_custom_tools", "update_custom_tool", "delete_custom_tool",
  "generate_image",
];

describe("describeToolCall", () => {
  it("says what the family's examples did, in English and French", () => {
    expect(say("memorize", { content: "Léo is allergic to peanuts", category: "fact" })).toBe("Remembered: Léo is allergic to peanuts");
    expect(say("web_search", { query: "weather Lyon" })).toBe("Looked up “weather Lyon”");
    expect(say("web_search", { query: "météo Lyon" }, "fr")).toBe("A cherché « météo Lyon »");
    expect(say("memorize", { content: "Léo est allergique aux cacahuètes" }, "fr")).toBe("Retenu : Léo est allergique aux cacahuètes");
    expect(say("notify", { title: "Train cancelled", body: "The 9:12 is cancelled." })).toBe("Sent a notification: Train cancelled");
    expect(say("notify", { title: "Train annulé" }, "fr")).toBe("A envoyé une notification : Train annulé");
  });

  it("covers every built-in tool with a sentence of its own in both languages", () => {
    expect([...DESCRIBED_TOOLS].sort()).toEqual([...BUILT_IN].sort());
    for (const name of BUILT_IN) {
      const { key } = describeToolCall(name, {});
      expect(key).not.toBe("cards.tool.unknown");
      for (const language of ["en", "fr"]) {
        expect(i18n.getFixedT(language)(key, { returnObjects: false })).not.toBe(key);
      }
    }
  });

  it("never puts an id or a secret's value in the sentence", () => {
    expect(say("spawn_kin", { kin_id: "k_9f3a", task_description: "Plan the picnic" })).toBe("Asked another Kin to: Plan the picnic");
    expect(say("send_message", { kin_id: "k_9f3a", message: "Dinner at 8?", type: "request" })).toBe("Asked another Kin: Dinner at 8?");
    expect(say("cancel_task", { task_id: "task_b5436225920d" })).toBe("Cancelled a task");
    expect(say("forget", { memory_id: 42 })).toBe("Forgot a memory");
    expect(say("get_secret", { key: "GITHUB_TOKEN" })).toBe("Used the secret GITHUB_TOKEN from the Vault");
    expect(say("fetch_page", { url: "https://www.example.org/recipes/soup?x=1" })).toBe("Read a web page on example.org");
  });

  it("translates a status argument and names MCP and unknown tools readably", () => {
    expect(say("update_task_status", { status: "completed" }, "fr")).toBe("A marqué sa tâche terminée");
    expect(say("update_task_status", { status: "<b>" })).toBe("Marked its task in progress");
    expect(say("weather__get_forecast", { city: "Lyon" })).toBe("Used get forecast from weather");
    expect(say("search_recipes", {})).toBe("Used a tool: search recipes");
    expect(say("toString", {})).toBe("Used a tool: toString");
    expect(say("memorize", "not an object")).toBe("Remembered: …");
  });

  it("cuts long quotes to one line", () => {
    const long = "word ".repeat(60);
    expect(quote(long).length).toBe(QUOTE_LIMIT);
    expect(quote(long).endsWith("…")).toBe(true);
    expect(quote("two\nlines")).toBe("two lines");
    expect(en.cards.tool.unknown).toContain("{{name}}");
  });
});
