/** MCP server forms: the text areas for arguments and for env/header maps. */

export interface McpServerConfig {
  command?: string | null;
  args?: string[] | null;
  url?: string | null;
  env?: Record<string, string> | null;
  headers?: Record<string, string> | null;
}

/** `NAME=value` (env) or `Name: value` (headers) lines as a map; blank lines are skipped.
 * Throws on a line without the separator or with an empty name. */
export function parsePairs(text: string, separator: "=" | ":"): Record<string, string> {
  const pairs: Record<string, string> = {};
  for (const [index, raw] of text.split("\n").entries()) {
    const line = raw.trim();
    if (!line) continue;
    const at = line.indexOf(separator);
    const name = at > 0 ? line.slice(0, at).trim() : "";
    if (!name) throw new Error(`line ${index + 1}: "name${separator}value" expected`);
    pairs[name] = line.slice(at + 1).trim();
  }
  return pairs;
}

/** A map back as lines (stored secret values come masked from the API and stay so). */
export function formatPairs(pairs: Record<string, string> | null | undefined, separator: "=" | ":"): string {
  return Object.entries(pairs ?? {})
    .map(([name, value]) => (separator === "=" ? `${name}=${value}` : `${name}: ${value}`))
    .join("\n");
}

/** One argument a line, blank lines skipped. */
export function parseArgs(text: string): string[] {
  return text
    .split("\n")
    .map((line) => line.trim())
    .filter(Boolean);
}

/** An MCP server's health as the server reports it (`GET /api/mcp/servers`). */
export interface McpStatus {
  /** `stopped`: enabled, but not connected (its connection could not be set up). */
  state: "connecting" | "connected" | "failed" | "disabled" | "stopped";
  error: string | null;
  /** What went wrong, as a code worded by `statusCodes.mcp` (null when all is well). */
  error_code?: string | null;
  error_params?: { seconds?: number; detail?: string; command?: string };
}

type Translate = (key: string, options?: Record<string, unknown>) => string;

/** The line under a server's name: its tools' names (one line, cut when long), else what went
 * wrong or that it has none yet (a sentence: shown whole, wrapped). */
export function serverLine(t: Translate, status: McpStatus & { tools: { name: string }[] }): { text: string; sentence: boolean } {
  if (status.tools.length > 0) return { text: status.tools.map((tool) => tool.name).join(", "), sentence: false };
  return { text: mcpProblem(t, status) ?? t("kinTools.noServerTools"), sentence: true };
}

/** What went wrong with a server, in the UI language (with its own words, if it said any);
 * null when nothing did. */
export function mcpProblem(t: Translate, status: McpStatus): string | null {
  if (!status.error_code) return null;
  const problem = t(`statusCodes.mcp.${status.error_code}`, { ...status.error_params, defaultValue: t("statusCodes.mcp.mcp_failed") });
  const detail = status.error_params?.detail;
  return detail ? t("statusCodes.mcp.said", { problem, detail }) : problem;
}
