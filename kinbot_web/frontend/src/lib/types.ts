/** The API objects the front end reads (docs/api.md is the reference). */

export type Language = "en" | "fr";

export interface User {
  id: string;
  email: string;
  first_name: string;
  last_name: string;
  pseudonym: string;
  language: Language;
  role: "admin" | "member";
  is_active: boolean;
  avatar_url: string | null;
  created_at: number;
}

export type KinState = "idle" | "thinking" | "error";

export type KinAccessLevel = "everyone" | "members" | "private";

export interface Kin {
  id: string;
  name: string;
  role: string;
  avatar_url: string | null;
  character: string;
  expertise: string;
  model: string;
  tools: string[];
  /** Whether its own code (custom tools) may reach the network, through KinBot's proxy. */
  network_access: boolean;
  /** The user who created it (`null` once that account is gone). */
  created_by: string | null;
  /** Who may use it: everyone, chosen members, or one person. */
  access?: KinAccessLevel;
  /** The models of its background work: a model, "@kin" (its own), or null (KinBot's choice). */
  memory_extraction_model?: string | null;
  compacting_model?: string | null;
  state: KinState;
  last_error: string | null;
  /** Why the last reply failed, as a code the interface words (`cards.error.<code>`). */
  last_error_code: string | null;
  queue_length: number;
  created_at: number;
  updated_at: number;
}

export type MessageRole = "user" | "assistant" | "tool" | "system";
export type MessageSource = "user" | "kin" | "task" | "cron" | "system" | "webhook" | string;
export type MessageStatus = "queued" | "processing" | "done" | "failed" | "cancelled" | "waiting";

export interface Attachment {
  id: string;
  filename: string;
  mime_type: string;
  kind: "image" | "pdf" | "document" | "audio";
  size: number;
  url: string;
}

export interface ToolCall {
  id: string;
  name: string;
  arguments?: unknown;
}

export interface Message {
  id: number;
  kin_id: string;
  role: MessageRole;
  source: MessageSource | null;
  sender_id: string | null;
  sender_name: string | null;
  content: string;
  tool_calls: ToolCall[] | null;
  tool_call_id: string | null;
  is_error: boolean;
  status: MessageStatus | null;
  turn_of: number | null;
  created_at: number;
  kin_message_type?: string | null;
  request_id?: string | null;
  chain_depth?: number | null;
  task_id?: string | null;
  attachments: Attachment[] | null;
  /** Secrets detected on arrival are hidden in `content` as `[PENDING SECRET n]`. */
  redaction_pending?: boolean;
  /** Structured facts for the UI (docs/api.md): a task's delivery, a failed turn's error
   * code, a stopped reply's `{"stopped": true}`. */
  meta?: MessageMeta | null;
  /** A retry replaced this reply: it stays visible, dimmed, out of the Kin's context. */
  superseded?: boolean;
}

/** The `meta` of a message; which fields are set depends on the message (docs/api.md). */
export interface MessageMeta {
  task_title?: string;
  worker_name?: string;
  spawned_self?: boolean;
  result?: string | null;
  error?: string | null;
  cron_name?: string | null;
  error_code?: string;
  detail?: string | null;
  retryable?: boolean;
  stopped?: boolean;
  /** A tool call's result: a person declined the call, or nobody approved it in time. */
  approval?: { status: "declined" | "expired"; reason?: string };
  [key: string]: unknown;
}

export interface ProviderConfigField {
  name: string;
  label: string;
  required: boolean;
  secret: boolean;
  default: string | null;
  help: string | null;
}

export interface ProviderType {
  name: string;
  label: string;
  /** The name a provider of this type gets when none is typed (valid for the server). */
  default_name: string;
  capabilities: string[];
  config_fields: ProviderConfigField[];
}

export interface Provider {
  id: string;
  kind: "ai" | "search";
  type: string;
  name: string;
  capabilities: string[];
  config: Record<string, unknown>;
  secrets: Record<string, string>;
  /** Its settings were saved under another master key (a backup restored without its key):
   * they show empty and must be entered again. */
  unreadable?: boolean;
}

export interface ProviderModel {
  id: string;
  capability: string;
  label?: string | null;
  /** The model's context window in tokens, when the provider's list says it. */
  context_window?: number | null;
}

export interface ConnectionReport {
  ok: boolean;
  capabilities: string[];
  /** English, for API clients: the interface words `code` with `params` (lib/errors.ts). */
  message: string;
  code?: string;
  params?: Record<string, string | number>;
  models?: ProviderModel[];
}

export interface Coverage {
  capabilities: Record<string, string[]>;
  ready: boolean;
  missing_required: string[];
  disabled_features: Record<string, string>;
}

export type TaskStatus = "pending" | "in_progress" | "completed" | "failed" | "cancelled";

export interface Task {
  id: string;
  parent_kin_id: string;
  kin_id: string;
  session_kin_id: string;
  cron_id: string | null;
  title: string;
  description: string;
  mode: "await" | "async" | "cron";
  status: TaskStatus;
  awaiting_input: boolean;
  result: string | null;
  /** English, for API clients: the interface words `error_code` (`taskErrors.codes`). */
  error: string | null;
  error_code?: string | null;
  /** Someone's own words about the failure (the provider's, the sub-Kin's; without a code: the reason stored before codes existed), or null. */
  error_detail?: string | null;
  created_at: number;
}
