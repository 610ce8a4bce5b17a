import { describe, expect, it } from "vitest";

import i18n from "@/i18n";

import { formatPairs, mcpProblem, parseArgs, parsePairs, type McpStatus } from "./mcp";

describe("MCP form helpers", () => {
  it("reads env and header lines, keeping masked values as they are", () => {
    expect(parsePairs("TOKEN=${vault:PANTRY}\n\n MODE = fast=yes \nOLD=********", "=")).toEqual({ TOKEN: "${vault:PANTRY}", MODE: "fast=yes", OLD: "********" });
    expect(parsePairs("Authorization: Bearer x:y", ":")).toEqual({ Authorization: "Bearer x:y" });
  });

  it("refuses a line without a name", () => {
    expect(() => parsePairs("OK=1\n=2", "=")).toThrow(/line 2/);
    expect(() => parsePairs("no separator", ":")).toThrow(/line 1/);
  });

  it("writes maps back as lines and reads arguments one a line", () => {
    expect(formatPairs({ A: "1", B: "********" }, "=")).toBe("A=1\nB=********");
    expect(formatPairs({ Authorization: "********" }, ":")).toBe("Authorization: ********");
    expect(formatPairs(null, "=")).toBe("");
    expect(parseArgs(" -y \n\n@pantry/mcp\n")).toEqual(["-y", "@pantry/mcp"]);
  });
});

describe("mcpProblem", () => {
  it("words a server's failure in the UI language, with its own words but no class name", async () => {
    const { default: i18n } = await import("@/i18n");
    const status = { state: "failed" as const, error: "OSError: No such file", error_code: "mcp_failed", error_params: { detail: "No such file" } };
    await i18n.changeLanguage("fr");
    expect(mcpProblem(i18n.t, status)).toBe("Connexion impossible. Il a dit : No such file");
    await i18n.changeLanguage("en");
    expect(mcpProblem(i18n.t, { state: "connecting", error: "No answer within 5 seconds.", error_code: "mcp_no_answer", error_params: { seconds: 5 } })).toBe("No answer within 5 seconds.");
    expect(mcpProblem(i18n.t, { state: "connected", error: null, error_code: null })).toBeNull();
  });

  it("words every state a server can be in, in both languages", () => {
    // A record, so that a state added to McpStatus without its words does not compile.
    const states: Record<McpStatus["state"], true> = { connecting: true, connected: true, failed: true, disabled: true, stopped: true };
    for (const language of ["en", "fr"]) {
      const t = i18n.getFixedT(language);
      for (const state of Object.keys(states)) expect(t(`kinTools.state.${state}`), `${language} ${state}`).not.toContain("kinTools.");
    }
  });
});
