import { describe, expect, it } from "vitest";

import { formatPairs, parseArgs, parsePairs } from "./mcp";

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
