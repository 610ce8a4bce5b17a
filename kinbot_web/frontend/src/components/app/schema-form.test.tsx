// @vitest-environment jsdom
import { cleanup, fireEvent, render, screen } from "@testing-library/react";
import * as React from "react";
import { afterEach, describe, expect, it } from "vitest";

import i18n from "@/i18n";
import { ApiError } from "@/lib/api";

import { type FieldProblem, type FormSchema, type FormValues, SchemaForm, fieldProblems } from "./schema-form";

afterEach(cleanup);

/** What `SchemaSettings.form_schema()` gives for a model with one field of each kind. */
const SCHEMA: FormSchema = {
  title: "House rules",
  properties: {
    quiet_hours: {
      type: "string",
      title: "Quiet hours",
      description: "When Kins keep their answers short.",
      maxLength: 20,
      default: "",
      i18n: { fr: { title: "Heures calmes", description: "Quand les Kins répondent brièvement." } },
    },
    notes: { type: "string", title: "Notes", multiline: true, default: "" },
    retries: { type: "integer", title: "Retries", minimum: 0, maximum: 10, default: 3 },
    ratio: { type: "number", title: "Ratio", nullable: true, default: null },
    loud: { type: "boolean", title: "Loud", default: false },
    tone: {
      type: "string",
      title: "Tone",
      enum: ["calm", "cheerful"],
      enum_titles: { calm: "Calm", cheerful: "Cheerful" },
      i18n: { fr: { title: "Ton", enum_titles: { calm: "Posé", cheerful: "Enjoué" } } },
      default: "calm",
    },
    api_key: { type: "string", title: "API key", secret: true, nullable: true },
    token: { type: "string", title: "Token", secret: true },
  },
  required: ["token"],
};

const SAVED: FormValues = {
  quiet_hours: "22:00-07:00",
  notes: "",
  retries: 3,
  ratio: null,
  loud: false,
  tone: "calm",
  api_key: { set: true },
  token: { set: false },
};

function Holder({ seen, problems }: { seen: FormValues[]; problems?: FieldProblem[] }) {
  const [value, setValue] = React.useState<FormValues>(SAVED);
  return (
    <SchemaForm
      schema={SCHEMA}
      value={value}
      problems={problems}
      onChange={(next) => {
        seen.push(next);
        setValue(next);
      }}
    />
  );
}

describe("SchemaForm", () => {
  it("renders each kind of field from the schema and edits the draft", async () => {
    await i18n.changeLanguage("en");
    const seen: FormValues[] = [];
    render(<Holder seen={seen} />);
    const quiet = screen.getByLabelText("Quiet hours") as HTMLInputElement;
    expect(quiet.value).toBe("22:00-07:00");
    expect(quiet.maxLength).toBe(20);
    expect(screen.getByText("When Kins keep their answers short.")).toBeTruthy();
    expect(screen.getByLabelText("Notes").tagName).toBe("TEXTAREA");
    const retries = screen.getByLabelText("Retries") as HTMLInputElement;
    expect([retries.type, retries.min, retries.max, retries.step]).toEqual(["number", "0", "10", "1"]);
    fireEvent.change(retries, { target: { value: "5" } });
    expect(seen.at(-1)?.retries).toBe(5);
    fireEvent.change(screen.getByLabelText("Ratio"), { target: { value: "" } });
    expect(seen.at(-1)?.ratio).toBeNull();
    const loud = screen.getByLabelText("Loud");
    expect(loud.getAttribute("role")).toBe("switch");
    fireEvent.click(loud);
    expect(seen.at(-1)?.loud).toBe(true);
    const tone = screen.getByLabelText("Tone") as HTMLSelectElement;
    expect(Array.from(tone.options).map((option) => option.text)).toEqual(["Calm", "Cheerful"]);
    fireEvent.change(tone, { target: { value: "1" } });
    expect(seen.at(-1)?.tone).toBe("cheerful");
    expect(seen.at(-1)?.retries).toBe(5); // earlier edits stay in the draft
  });

  it("shows a secret as set or not set and only takes a value to replace it", async () => {
    await i18n.changeLanguage("en");
    const seen: FormValues[] = [];
    const { container } = render(<Holder seen={seen} />);
    expect(container.querySelectorAll('input[type="password"]')).toHaveLength(0);
    expect(screen.getByText("Set")).toBeTruthy();
    expect(screen.getByText("Not set")).toBeTruthy();
    fireEvent.click(screen.getByRole("button", { name: "Replace" }));
    const typed = screen.getByLabelText("API key", { selector: "input" }) as HTMLInputElement;
    expect(document.activeElement).toBe(typed); // asked for: the focus goes to it
    expect(typed.type).toBe("password");
    expect(typed.value).toBe(""); // never the stored value
    fireEvent.change(typed, { target: { value: "sk-new-value" } });
    expect(seen.at(-1)?.api_key).toBe("sk-new-value");
    fireEvent.click(screen.getByRole("button", { name: "Keep the current one" }));
    expect(seen.at(-1)?.api_key).toEqual({ set: true });
    fireEvent.click(screen.getByRole("button", { name: "Remove" }));
    expect(seen.at(-1)?.api_key).toBeNull();
    expect(screen.getByText("Will be removed")).toBeTruthy();
    fireEvent.click(screen.getByRole("button", { name: "Undo" }));
    expect(seen.at(-1)?.api_key).toEqual({ set: true });
    // A required secret that is not set offers to set it, and cannot be removed.
    expect(screen.getAllByRole("button", { name: "Remove" })).toHaveLength(1);
    fireEvent.click(screen.getByRole("button", { name: "Enter a value" }));
    fireEvent.change(screen.getByLabelText("Token", { selector: "input" }), { target: { value: "123:abc" } });
    expect(seen.at(-1)?.token).toBe("123:abc");
  });

  it("speaks the plugin's French words and shows a save's problems on their fields", async () => {
    await i18n.changeLanguage("fr");
    const error = new ApiError(400, "settings_invalid", "Some settings are not valid.", {
      fields: [
        { field: "quiet_hours", type: "string_too_long", message: "…", max_length: 20 },
        { field: "token", type: "missing", message: "…" },
        { field: "tone", type: "enum", message: "…" },
      ],
    });
    render(<Holder seen={[]} problems={fieldProblems(error)} />);
    const quiet = screen.getByLabelText("Heures calmes");
    expect(quiet.getAttribute("aria-invalid")).toBe("true");
    const alerts = screen.getAllByRole("alert").map((alert) => alert.textContent);
    expect(alerts).toEqual(["20 caractères au plus", "Non valide", "Obligatoire"]);
    // The description gives way to the problem on the same field.
    expect(screen.queryByText("Quand les Kins répondent brièvement.")).toBeNull();
    const tone = screen.getByLabelText("Ton") as HTMLSelectElement;
    expect(Array.from(tone.options).map((option) => option.text)).toEqual(["Posé", "Enjoué"]);
    expect(screen.getByText("Non défini")).toBeTruthy();
    expect(fieldProblems(new Error("network"))).toEqual([]);
  });

  it("does not move the focus to an empty secret of a new form", () => {
    const schema: FormSchema = { properties: { token: { type: "string", title: "Token", secret: true } }, required: ["token"] };
    render(<SchemaForm schema={schema} value={{ token: "" }} onChange={() => undefined} />);
    expect(screen.getByLabelText("Token", { selector: "input" })).toBeTruthy();
    expect(document.activeElement).toBe(document.body);
  });

  it("keeps the model's order of the fields, whatever the order of the keys", async () => {
    await i18n.changeLanguage("en");
    const schema: FormSchema = {
      properties: { alpha: { type: "string", title: "Alpha" }, zulu: { type: "string", title: "Zulu" }, mike: { type: "boolean", title: "Mike" } },
      order: ["zulu", "alpha"],
    };
    const { container } = render(<SchemaForm schema={schema} value={{}} onChange={() => undefined} />);
    expect(Array.from(container.querySelectorAll("label")).map((label) => label.textContent)).toEqual(["Zulu", "Alpha", "Mike"]);
  });
});
