/** Messaging channels as the API shows them (docs/api.md, "Channels"), and the small rules
 * the Channels tab and My account share. */
import type { FormSchema, FormValues } from "@/components/app/schema-form";

/** What a connection is doing (`kinbot_core/channels/runtime.py`). */
export type ChannelState = "running" | "starting" | "retrying" | "failing" | "stopped" | "unavailable";

export interface ChannelType {
  name: string;
  label: string;
  plugin: string;
  max_message_length: number;
  settings_schema: FormSchema;
}

export interface Channel {
  id: string;
  type: string;
  label: string;
  enabled: boolean;
  state: ChannelState;
  /** Why it is retrying or failing, worded for its type by `lib/channel-problems`. */
  last_error_code: string | null;
  last_error_at: number | null;
  /** Replies given up in the last 7 days (a person blocked the bot, say), and why the latest was. */
  undelivered: number;
  undelivered_code: string | null;
  kin_ids: string[];
  /** Its settings, secrets as `{"set": bool}`. */
  settings: FormValues;
  created_at: number;
  updated_at: number;
}

export interface Pairing {
  id: string;
  connection_id: string;
  connection_label: string;
  channel_type: string;
  display_name: string;
  created_at: number;
  expires_at: number;
}

export interface ChannelIdentity {
  id: string;
  connection_id: string;
  connection_label: string;
  channel_type: string;
  display_name: string;
  user_id: string | null;
  user_name: string | null;
  contact_id: string | null;
  contact_name: string | null;
  kin_id: string | null;
  created_at: number;
}

export interface ChannelContact {
  id: string;
  name: string;
  kin_id: string;
}

/** The badge tone of a state. */
export function stateTone(state: ChannelState): "success" | "warning" | "destructive" | "outline" {
  if (state === "running") return "success";
  if (state === "failing") return "destructive";
  if (state === "retrying" || state === "starting") return "warning";
  return "outline";
}

/** The first draft of a new connection's settings: each field's default, a secret to type. */
export function initialSettings(schema: FormSchema): FormValues {
  return Object.fromEntries(
    Object.entries(schema.properties).map(([name, field]) => [name, field.secret || field.format === "password" ? "" : (field.default ?? null)]),
  );
}

/** The settings of a new connection as the API takes them (secrets never typed left out). */
export function settingsToCreate(values: FormValues): FormValues {
  return Object.fromEntries(Object.entries(values).filter(([, value]) => !(typeof value === "object" && value !== null) && value !== null));
}

/** Seconds since the epoch as a Date. */
export function when(seconds: number): Date {
  return new Date(seconds * 1000);
}
