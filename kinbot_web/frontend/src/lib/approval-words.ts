/**
 * What a call waiting for approval would do, in words (an i18n key and its parameters): a
 * sentence of its own for the tools worth asking about (`approvals.card.actions`), the
 * translated name of any other built-in tool ("Write a file", `toolNames`, as Settings ›
 * Approvals names it), "Use {{tool}} from {{server}}" for an MCP server's, "Use the tool
 * {{name}}" for any other. Ids in the arguments never become parameters.
 */

import { en as toolWords } from "@/i18n/tool-names";

import { quote, readableName } from "./tool-descriptions";

type Args = Record<string, unknown>;

/** The i18n key and parameters of the sentence. */
export interface ActionWords {
  key: string;
  params: Record<string, string>;
}

const ACTIONS: Record<string, (args: Args) => Record<string, string>> = {
  delete_file: (args) => ({ path: quote(args.path) || "…" }),
  delete_cron: () => ({}),
  delete_custom_tool: (args) => ({ name: quote(args.name) || "…" }),
  forget: () => ({}),
  notify: (args) => ({ title: quote(args.title) || "…" }),
  send_message: (args) => ({ message: quote(args.message) || "…" }),
  run_custom_tool: (args) => ({ name: readableName(String(args.tool_name ?? "")) || "…" }),
  git_clone: (args) => ({ repository: quote(args.url) || "…" }),
  download_file: (args) => ({ path: quote(args.path) || quote(args.url) || "…" }),
};

/** The sentence saying what a call of `name` with `args` would do. */
export function actionWords(name: string, args: Args): ActionWords {
  const action = Object.prototype.hasOwnProperty.call(ACTIONS, name) ? ACTIONS[name] : undefined;
  if (action) return { key: `approvals.card.actions.${name}`, params: action(args) };
  if (Object.prototype.hasOwnProperty.call(toolWords.toolNames, name)) return { key: `toolNames.${name}.label`, params: {} };
  const separator = name.indexOf("__");
  if (separator > 0 && separator < name.length - 2) {
    return { key: "approvals.card.actions.mcp", params: { tool: readableName(name.slice(separator + 2)), server: readableName(name.slice(0, separator)) } };
  }
  return { key: "approvals.card.actions.unknown", params: { name: readableName(name) } };
}

/** The call's arguments as lines: `name` (the argument's own, for a translated label when
 * there is one), `label` (the name made readable) and `value` (text as it is, others as JSON). */
export function argumentLines(args: Args): { name: string; label: string; value: string }[] {
  return Object.entries(args).map(([name, value]) => ({
    name,
    label: readableName(name),
    value: typeof value === "string" ? value : JSON.stringify(value),
  }));
}
