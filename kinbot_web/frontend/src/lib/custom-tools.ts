/** A Kin's custom tools as its Tools tab shows them (docs/api.md, "Custom tools"). */

export interface CustomTool {
  name: string;
  description: string;
  /** A JSON Schema of an object: the tool's named arguments. */
  parameters: Record<string, unknown>;
  path: string;
  created_at: number;
  updated_at: number;
}

/** One argument of a tool, in a few words. */
export interface ParameterLine {
  name: string;
  /** `integer`, `string | null`, `"a" | "b"`, `number[]`; `any` when the schema says nothing. */
  type: string;
  required: boolean;
  description: string | null;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function typeOf(schema: Record<string, unknown>): string {
  if (Array.isArray(schema.enum)) return schema.enum.map((value) => JSON.stringify(value)).join(" | ");
  if ("const" in schema) return JSON.stringify(schema.const);
  const type = schema.type;
  if (type === "array" && isRecord(schema.items)) return `${typeOf(schema.items)}[]`;
  if (typeof type === "string") return type;
  if (Array.isArray(type) && type.length > 0) return type.map(String).join(" | ");
  for (const key of ["anyOf", "oneOf"] as const) {
    const options = schema[key];
    if (Array.isArray(options) && options.length > 0) return options.map((option) => (isRecord(option) ? typeOf(option) : "any")).join(" | ");
  }
  return "any";
}

/**
 * The arguments a tool's schema declares, in the schema's order: name, type, whether required,
 * description. Anything that is not an object schema with properties gives none.
 */
export function parameterLines(schema: unknown): ParameterLine[] {
  if (!isRecord(schema) || !isRecord(schema.properties)) return [];
  const required = new Set(Array.isArray(schema.required) ? schema.required.filter((name): name is string => typeof name === "string") : []);
  return Object.entries(schema.properties).map(([name, property]) => {
    const described = isRecord(property) ? property : {};
    const description = typeof described.description === "string" && described.description.trim() ? described.description.trim() : null;
    return { name, type: typeOf(described), required: required.has(name), description };
  });
}

/** The list after removing the tool `name` (the same list when it was not there). */
export function withoutTool(tools: readonly CustomTool[], name: string): CustomTool[] {
  const rest = tools.filter((tool) => tool.name !== name);
  return rest.length === tools.length ? (tools as CustomTool[]) : rest;
}
