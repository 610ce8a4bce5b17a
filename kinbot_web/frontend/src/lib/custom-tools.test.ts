import { describe, expect, it } from "vitest";

import { parameterLines, withoutTool, type CustomTool } from "./custom-tools";

describe("parameterLines", () => {
  it("lists each argument with its type, whether required, and its description", () => {
    const schema = {
      type: "object",
      properties: {
        n: { type: "integer", description: " The number to double. " },
        unit: { enum: ["g", "kg"] },
        tags: { type: "array", items: { type: "string" } },
        note: { type: ["string", "null"], description: "" },
        mode: { anyOf: [{ const: "fast" }, { type: "number" }] },
        free: {},
      },
      required: ["n", "tags", 3],
    };
    expect(parameterLines(schema)).toEqual([
      { name: "n", type: "integer", required: true, description: "The number to double." },
      { name: "unit", type: '"g" | "kg"', required: false, description: null },
      { name: "tags", type: "string[]", required: true, description: null },
      { name: "note", type: "string | null", required: false, description: null },
      { name: "mode", type: '"fast" | number', required: false, description: null },
      { name: "free", type: "any", required: false, description: null },
    ]);
  });

  it("gives nothing for a tool without arguments or a schema it cannot read", () => {
    expect(parameterLines({ type: "object", properties: {} })).toEqual([]);
    expect(parameterLines({ type: "object" })).toEqual([]);
    expect(parameterLines(null)).toEqual([]);
    expect(parameterLines("n: integer")).toEqual([]);
    expect(parameterLines({ type: "object", properties: { odd: 5 } })).toEqual([{ name: "odd", type: "any", required: false, description: null }]);
  });
});

describe("withoutTool", () => {
  const tool = (name: string): CustomTool => ({ name, description: "", parameters: {}, path: `tools/${name}.py`, created_at: 1, updated_at: 1 });

  it("takes the removed tool out, and leaves the list alone for an unknown name", () => {
    const list = [tool("double"), tool("halve")];
    expect(withoutTool(list, "double").map((t) => t.name)).toEqual(["halve"]);
    expect(withoutTool(list, "triple")).toBe(list);
  });
});
