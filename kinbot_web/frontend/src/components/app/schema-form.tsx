/**
 * A form generated from the JSON Schema of a settings model (`kinbot_core/schema_settings.py`,
 * `SchemaSettings.form_schema()`): a plugin's settings, a channel connection's.
 *
 * Each property becomes a field, in the schema's `order`: a string a text field (a text area with `"multiline": true`), a
 * number or integer a number field with its bounds, a boolean a switch, an `enum` a select (its
 * words from `"enum_titles"`), a secret (`"secret": true`) a password field that shows whether a
 * value is set and is only typed again to replace it. Titles and descriptions come from the
 * schema, in the interface's language when the schema carries `"i18n": {"fr": {"title",
 * "description", "enum_titles"}}` (docs/plugins.md, Plugin settings).
 *
 * The form is controlled: `value` is the draft, as the API's values (a secret's draft is
 * `{"set": bool}` while unchanged, a string when replaced, `null` when removed), so it can be
 * sent as it is: the server keeps a secret that is unchanged or left empty.
 */
import * as React from "react";
import { useTranslation } from "react-i18next";

import { Button } from "@/components/ui/button";
import { Input, Label } from "@/components/ui/input";
import { NativeSelect } from "@/components/ui/native-select";
import { Switch } from "@/components/ui/switch";
import { Textarea } from "@/components/ui/textarea";
import { ApiError } from "@/lib/api";
import { formatNumber } from "@/lib/format";

/** The words of a schema or a field in one language. */
export interface SchemaWords {
  title?: string;
  description?: string;
  enum_titles?: Record<string, string>;
}

/** One property of the schema, as `form_schema()` gives it. */
export interface FieldSchema extends SchemaWords {
  type?: "string" | "number" | "integer" | "boolean" | "null";
  default?: unknown;
  enum?: Array<string | number | boolean | null>;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  minLength?: number;
  maxLength?: number;
  multiline?: boolean;
  secret?: boolean;
  format?: string;
  nullable?: boolean;
  i18n?: Record<string, SchemaWords>;
}

/** The schema of a settings model. */
export interface FormSchema extends SchemaWords {
  properties: Record<string, FieldSchema>;
  /** The fields in the model's order (a JSON object's keys may arrive sorted). */
  order?: string[];
  required?: string[];
  i18n?: Record<string, SchemaWords>;
}

/** Whether a secret has a stored value (what the API shows instead of the value). */
export interface SecretState {
  set: boolean;
}

export type FormValues = Record<string, unknown>;

/** An invalid value, as the API reports it (`details.fields`): the field, the rule, its limits. */
export interface FieldProblem {
  field: string;
  type: string;
  [limit: string]: unknown;
}

/** Whether a property is a secret: marked by `form_schema()`, or pydantic's password format. */
export function isSecret(field: FieldSchema): boolean {
  return field.secret === true || field.format === "password";
}

/** A title, description or choice's words of `words` in `language`, else the schema's own. */
export function localized(words: SchemaWords & { i18n?: Record<string, SchemaWords> }, key: "title" | "description", language: string): string | undefined {
  const translated = words.i18n?.[language]?.[key] ?? words.i18n?.[language.slice(0, 2)]?.[key];
  return translated ?? words[key];
}

function choiceText(field: FieldSchema, choice: unknown, language: string): string {
  const value = String(choice);
  return field.i18n?.[language]?.enum_titles?.[value] ?? field.i18n?.[language.slice(0, 2)]?.enum_titles?.[value] ?? field.enum_titles?.[value] ?? value;
}

/** The invalid fields of a failed save (an `ApiError` with `details.fields`), else none. */
export function fieldProblems(error: unknown): FieldProblem[] {
  if (!(error instanceof ApiError)) return [];
  const fields = error.details?.fields;
  return Array.isArray(fields) ? fields.filter((item): item is FieldProblem => typeof item === "object" && item !== null && typeof (item as FieldProblem).field === "string") : [];
}

type Translate = (key: string, options?: Record<string, unknown>) => string;

/** A problem in words, such as "At most 20 characters" (the API's rules, `apiErrors.rules`). */
export function problemText(t: Translate, problem: FieldProblem, language: string): string {
  let rule = problem.type;
  if (rule === "string_too_short" && problem.min_length === 1) rule = "missing";
  if (t(`apiErrors.rules.${rule}`, { defaultValue: "" }) === "") rule = "invalid";
  const limits = Object.fromEntries(
    Object.entries(problem)
      .filter(([, value]) => typeof value === "number")
      .map(([key, value]) => [key, formatNumber(value as number, language)]),
  );
  const text = t(`apiErrors.rules.${rule}`, limits);
  return text.charAt(0).toLocaleUpperCase(language) + text.slice(1);
}

/** The schema's fields in its `order`, then any it does not list. */
function fieldOrder(schema: FormSchema): Array<[string, FieldSchema]> {
  const listed = (schema.order ?? []).filter((name) => name in schema.properties);
  const rest = Object.keys(schema.properties).filter((name) => !listed.includes(name));
  return [...listed, ...rest].map((name) => [name, schema.properties[name]]);
}

interface SchemaFormProps {
  schema: FormSchema;
  value: FormValues;
  onChange: (next: FormValues) => void;
  /** The invalid fields of the last save, shown on their field. */
  problems?: FieldProblem[];
  disabled?: boolean;
}

/** The fields of `schema`, in its order, for the draft `value`. */
export function SchemaForm({ schema, value, onChange, problems = [], disabled }: SchemaFormProps) {
  const { t, i18n } = useTranslation();
  const prefix = React.useId();
  const language = i18n.language;
  return (
    <div className="flex flex-col gap-4">
      {fieldOrder(schema).map(([name, field]) => {
        const problem = problems.find((item) => item.field === name || item.field.startsWith(`${name}.`));
        return (
          <SchemaField
            key={name}
            id={`${prefix}-${name}`}
            name={name}
            field={field}
            value={value[name]}
            onChange={(next) => onChange({ ...value, [name]: next })}
            error={problem ? problemText(t, problem, language) : undefined}
            language={language}
            disabled={disabled}
          />
        );
      })}
    </div>
  );
}

interface SchemaFieldProps {
  id: string;
  name: string;
  field: FieldSchema;
  value: unknown;
  onChange: (next: unknown) => void;
  error?: string;
  language: string;
  disabled?: boolean;
}

function SchemaField({ id, name, field, value, onChange, error, language, disabled }: SchemaFieldProps) {
  const { t } = useTranslation();
  const label = localized(field, "title", language) ?? name;
  const hint = localized(field, "description", language);
  const invalid = error ? true : undefined;
  const described = error || hint ? `${id}-hint` : undefined;
  if (isSecret(field)) {
    return <SecretField id={id} label={label} hint={hint} error={error} field={field} value={value} onChange={onChange} disabled={disabled} />;
  }
  if (field.type === "boolean") {
    return (
      <div className="flex flex-col gap-1.5">
        <div className="flex items-center justify-between gap-3">
          <Label htmlFor={id}>{label}</Label>
          <Switch id={id} checked={value === true} onCheckedChange={onChange} disabled={disabled} aria-invalid={invalid} aria-describedby={described} />
        </div>
        <FieldNote id={described} error={error} hint={hint} />
      </div>
    );
  }
  let control: React.ReactNode;
  if (Array.isArray(field.enum)) {
    const choices = field.enum.filter((choice) => choice !== null);
    const index = choices.findIndex((choice) => choice === value);
    control = (
      <NativeSelect id={id} value={index < 0 ? "" : String(index)} onChange={(event) => onChange(event.target.value === "" ? null : choices[Number(event.target.value)])} disabled={disabled} aria-invalid={invalid} aria-describedby={described}>
        {field.nullable || index < 0 ? <option value="">{t("pluginSettings.form.none")}</option> : null}
        {choices.map((choice, position) => (
          <option key={String(choice)} value={String(position)}>
            {choiceText(field, choice, language)}
          </option>
        ))}
      </NativeSelect>
    );
  } else if (field.type === "number" || field.type === "integer") {
    control = (
      <Input
        id={id}
        type="number"
        inputMode={field.type === "integer" ? "numeric" : "decimal"}
        step={field.type === "integer" ? 1 : "any"}
        min={field.minimum ?? field.exclusiveMinimum}
        max={field.maximum ?? field.exclusiveMaximum}
        value={typeof value === "number" ? String(value) : typeof value === "string" ? value : ""}
        onChange={(event) => {
          const text = event.target.value;
          onChange(text === "" ? null : Number.isFinite(Number(text)) ? Number(text) : text);
        }}
        disabled={disabled}
        aria-invalid={invalid}
        aria-describedby={described}
      />
    );
  } else {
    const text = typeof value === "string" ? value : value == null ? "" : String(value);
    const change = (next: string) => onChange(next === "" && field.nullable ? null : next);
    control = field.multiline ? (
      <Textarea id={id} value={text} maxLength={field.maxLength} onChange={(event) => change(event.target.value)} disabled={disabled} aria-invalid={invalid} aria-describedby={described} />
    ) : (
      <Input id={id} value={text} maxLength={field.maxLength} onChange={(event) => change(event.target.value)} disabled={disabled} aria-invalid={invalid} aria-describedby={described} />
    );
  }
  return (
    <div className="flex flex-col gap-1.5">
      <Label htmlFor={id}>{label}</Label>
      {control}
      <FieldNote id={described} error={error} hint={hint} />
    </div>
  );
}

function FieldNote({ id, error, hint }: { id?: string; error?: string; hint?: string }) {
  if (error) {
    return (
      <p id={id} className="text-xs font-medium text-destructive" role="alert">
        {error}
      </p>
    );
  }
  return hint ? (
    <p id={id} className="text-xs text-muted-foreground">
      {hint}
    </p>
  ) : null;
}

interface SecretFieldProps {
  id: string;
  label: string;
  hint?: string;
  error?: string;
  field: FieldSchema;
  value: unknown;
  onChange: (next: unknown) => void;
  disabled?: boolean;
}

/**
 * A secret: "Set" or "Not set" and a button to type a new value. While replaced, the draft is
 * the typed string; "Keep the current one" goes back to `{"set": true}`. An optional secret
 * that is set may be removed (the draft `null`).
 */
function SecretField({ id, label, hint, error, field, value, onChange, disabled }: SecretFieldProps) {
  const { t } = useTranslation();
  // What the server holds: the draft's own state until replaced or removed (then the last seen).
  const last = React.useRef<SecretState>({ set: false });
  if (isSecretState(value)) last.current = value;
  const stored = last.current;
  const replacing = typeof value === "string";
  const clearing = value === null;
  // Focus moves to the new value's field only when the person asked to replace the secret, not
  // when a form for a new connection opens with it empty (the page would jump to it).
  const [asked, setAsked] = React.useState(false);
  const described = error || hint ? `${id}-hint` : undefined;
  const status = stored.set ? t("pluginSettings.form.secretSet") : t("pluginSettings.form.secretNotSet");
  return (
    <div className="flex flex-col gap-1.5" role="group" aria-labelledby={`${id}-label`} data-secret-field={stored.set ? "set" : "unset"}>
      <Label id={`${id}-label`} htmlFor={replacing ? id : undefined}>
        {label}
      </Label>
      <div className="flex flex-wrap items-center gap-2">
        <span className={stored.set ? "text-sm font-medium" : "text-sm text-muted-foreground"} id={`${id}-status`}>
          {clearing ? t("pluginSettings.form.willClear") : status}
        </span>
        {clearing ? (
          <Button type="button" variant="ghost" size="sm" onClick={() => onChange(stored)} disabled={disabled}>
            {t("pluginSettings.form.undo")}
          </Button>
        ) : replacing ? (
          stored.set ? (
            <Button type="button" variant="ghost" size="sm" onClick={() => onChange(stored)} disabled={disabled}>
              {t("pluginSettings.form.keep")}
            </Button>
          ) : null
        ) : (
          <>
            <Button
              type="button"
              variant="outline"
              size="sm"
              id={`${id}-replace`}
              aria-describedby={`${id}-status`}
              onClick={() => {
                setAsked(true);
                onChange("");
              }}
              disabled={disabled}
            >
              {stored.set ? t("pluginSettings.form.replace") : t("pluginSettings.form.setSecret")}
            </Button>
            {stored.set && field.nullable ? (
              <Button type="button" variant="ghost" size="sm" onClick={() => onChange(null)} disabled={disabled}>
                {t("pluginSettings.form.clear")}
              </Button>
            ) : null}
          </>
        )}
      </div>
      {replacing ? (
        <Input
          id={id}
          type="password"
          autoComplete="new-password"
          autoFocus={asked}
          value={value}
          onChange={(event) => onChange(event.target.value)}
          disabled={disabled}
          aria-invalid={error ? true : undefined}
          aria-describedby={described}
        />
      ) : null}
      <FieldNote id={described} error={error} hint={hint} />
    </div>
  );
}

function isSecretState(value: unknown): value is SecretState {
  return typeof value === "object" && value !== null && typeof (value as SecretState).set === "boolean";
}
