/**
 * The structured facts the server adds to a message for the UI (`meta`, `superseded`: see
 * "The message contract" in docs/api.md), read defensively: a message stored before they
 * existed has `meta` null or absent, and its card falls back on the message's own fields,
 * never on its text (which names internal ids).
 */

import type { Message } from "@/lib/types";

/** A task's or a cron run's end, delivered into its parent's chat. */
export interface TaskMeta {
  task_title: string;
  worker_name: string;
  spawned_self: boolean;
  result: string | null;
  /** The server's English sentence: shown only for a message stored before `error_code`. */
  error: string | null;
  /** Why it failed or was cancelled, worded by the interface (`lib/task-end`). */
  error_code: string | null;
  /** The provider's or the sub-Kin's own words about the failure. */
  error_detail: string | null;
  cron_name: string | null;
}

/** Why a turn failed. */
export interface ErrorMeta {
  error_code: string;
  detail: string | null;
  retryable: boolean;
  /** The parameters of a refusal worded by `apiErrors.codes` (a spent budget). */
  params?: Record<string, unknown>;
}

/** A message as the contract gives it: `meta` and `superseded` may be missing on older servers. */
export type MessageWithMeta = Message & { meta?: Record<string, unknown> | null; superseded?: boolean };

export const TASK_ENDS = ["task_result", "task_failed", "task_cancelled"] as const;
export type TaskEnd = (typeof TASK_ENDS)[number];

/** How a task delivery ends, or null when `message` is not one. */
export function taskEndOf(message: Message): TaskEnd | null {
  const type = message.kin_message_type;
  return (TASK_ENDS as readonly string[]).includes(type ?? "") && (message.source === "task" || message.source === "cron") ? (type as TaskEnd) : null;
}

function text(value: unknown): string | null {
  return typeof value === "string" && value.trim() ? value : null;
}

/** What the server once wrote before a task's result or error ("Task task_… completed. …"). */
const LEGACY_PREFIX = /^(?:Scheduled run \(task \S+\)|Task \S+) (?:completed\.(?: Result:\n?)?|failed: ?|was cancelled\.? ?)/;

const TASK_ID = /\btask_[0-9a-f]/;

/** A task delivery's facts: its `meta`, or what its own fields say when it has none. */
export function taskMetaOf(message: MessageWithMeta): TaskMeta {
  const meta = message.meta ?? {};
  // Without meta, the text (after the server's fixed opening, if any) is the result or the
  // error, unless it names a task's id.
  const legacy = message.content.replace(LEGACY_PREFIX, "").trim();
  const fromText = legacy && !TASK_ID.test(legacy) ? legacy : null;
  const failed = message.kin_message_type !== "task_result";
  return {
    task_title: text(meta.task_title) ?? text(message.sender_name) ?? "",
    worker_name: text(meta.worker_name) ?? "",
    spawned_self: meta.spawned_self === true,
    result: "result" in meta ? text(meta.result) : failed ? null : fromText,
    error: "error" in meta ? text(meta.error) : failed ? fromText : null,
    error_code: failed ? text(meta.error_code) : null,
    error_detail: failed ? text(meta.error_detail) : null,
    cron_name: text(meta.cron_name) ?? (message.source === "cron" ? text(message.sender_name) : null),
  };
}

/** How the server once wrote a task's question, for the model to answer it. */
const LEGACY_QUESTION = /^Task \S+ asks you: ([\s\S]*)\nAnswer it with respond_to_task\([^\n]*\)\.$/;

/** A task's question as a person reads it (without the task's id or the model's instruction),
 * or null when `message` is not a task's question. */
export function taskQuestionOf(message: MessageWithMeta): string | null {
  if (message.kin_message_type !== "task_input") return null;
  return text(message.meta?.question) ?? text(LEGACY_QUESTION.exec(message.content)?.[1]?.trim());
}

/** A failed turn's facts, or null when `message` is not an error. */
export function errorMetaOf(message: MessageWithMeta): ErrorMeta | null {
  if (!message.is_error || message.role === "tool") return null;
  const meta = message.meta ?? {};
  // Without meta, the stored sentence's reason (machine addresses left out) is the detail.
  const legacy = message.content.replace(/^.*? could not answer: /s, "").replace(/\b\w+:\/\/\S+/g, "…").trim();
  return {
    error_code: text(meta.error_code) ?? "unknown",
    detail: message.meta ? text(meta.detail) : text(legacy),
    retryable: meta.retryable !== false,
    params: meta.params && typeof meta.params === "object" ? (meta.params as Record<string, unknown>) : undefined,
  };
}

/** Whether the user stopped this reply (its text is what had streamed). */
export function isStopped(message: MessageWithMeta): boolean {
  return message.meta?.stopped === true;
}

/** Whether a retry replaced this message. */
export function isSuperseded(message: MessageWithMeta): boolean {
  return message.superseded === true;
}

/** How a message from another Kin reads: a request, a reply to one, or an inform. */
export function kinMessageKind(message: Message): "request" | "reply" | "inform" | null {
  if (message.source !== "kin" || message.role !== "user") return null;
  switch (message.kin_message_type) {
    case "request":
      return "request";
    case "reply":
      return "reply";
    case "inform":
      return message.request_id ? "reply" : "inform";
    default:
      return null;
  }
}
