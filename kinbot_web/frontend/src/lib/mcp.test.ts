import { describe, expect, it } from "vitest";

import i18n from "@/i18n";

import { formatPairs, mcpProblem, parseArgs, parsePairs, serverLine, type McpStatus } from "./mcp";

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

  it("words the common failures in their own sentence, without the system's text", () => {
    const failed = (error_code: string, error_params = {}): McpStatus => ({ state: "failed", error: "OSError: [Errno 2]", error_code, error_params });
    const en = i18n.getFixedT("en");
    const fr = i18n.getFixedT("fr");
    expect(mcpProblem(en, failed("mcp_command_not_found", { command: "nosuchcmd" }))).toBe("The command “nosuchcmd” was not found where KinBot runs. Check its name and that it is installed there.");
    expect(mcpProblem(fr, failed("mcp_command_not_found", { command: "nosuchcmd" }))).toBe("La commande « nosuchcmd » est introuvable sur le serveur KinBot. Vérifiez son nom et qu'elle y est bien installée.");
    expect(mcpProblem(fr, failed("mcp_unreachable"))).toBe("Le serveur à cette URL est injoignable. Vérifiez l'URL et que le serveur est démarré.");
    expect(mcpProblem(en, failed("mcp_unauthorized"))).toBe("The server refused KinBot's credentials. Check the authorization headers.");
    const codes = ["mcp_command_not_found", "mcp_command_not_runnable", "mcp_unreachable", "mcp_tls_failed", "mcp_unauthorized", "mcp_not_found"];
    for (const [t, fallback] of [[en, "Could not connect."], [fr, "Connexion impossible."]] as const) {
      for (const code of codes) {
        const text = mcpProblem(t, failed(code, { command: "/opt/mcp/run" }));
        expect(text, code).not.toBe(fallback);
        expect(text, code).not.toMatch(/It said|Il a dit|Errno|\{\{|statusCodes/);
      }
    }
  });

  it("lists a server's tools on one line, and says in a whole sentence why it has none", () => {
    const en = i18n.getFixedT("en");
    const connected = { state: "connected" as const, error: null, error_code: null, tools: [{ name: "now" }, { name: "convert" }] };
    expect(serverLine(en, connected)).toEqual({ text: "now, convert", sentence: false });
    const failed = { state: "failed" as const, error: "x", error_code: "mcp_unreachable", error_params: {}, tools: [] };
    expect(serverLine(en, failed)).toEqual({ text: "The server at this URL cannot be reached. Check the URL and that the server is running.", sentence: true });
    expect(serverLine(en, { ...connected, tools: [] })).toEqual({ text: "No tools yet.", sentence: true });
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
