/**
 * A Kin's chat as the browser holds it: the stored messages (deduplicated by id, in order)
 * plus what is streaming now. Pure functions, so history pages, live events and replays after
 * a reconnection can arrive in any order without losing or duplicating a message.
 */

import type { EventMap } from "./events";
import type { Message } from "./types";

export interface ToolActivity {
  id: string;
  name: string;
  status: "running" | "done" | "error";
}

export interface ChatState {
  /** Stored messages, oldest first, one per id. */
  messages: Message[];
  /** Text streamed so far for each running turn (by the id of the message that started it). */
  streaming: Record<number, string>;
  /** Tool calls seen for each running turn. */
  tools: Record<number, ToolActivity[]>;
  /** The id to ask for the previous page with (`null`: the beginning is loaded). */
  nextBefore: number | null;
  /** Whether at least one page of history was loaded. */
  loaded: boolean;
}

export const emptyChat: ChatState = { messages: [], streaming: {}, tools: {}, nextBefore: null, loaded: false };

export type ChatAction =
  | { type: "page"; messages: Message[]; nextBefore: number | null }
  | { type: "reset" }
  | { type: "message"; message: Message }
  | { type: "status"; data: EventMap["message.status"] }
  | { type: "redacted"; data: EventMap["message.redacted"] }
  | { type: "delta"; data: EventMap["kin.delta"] }
  | { type: "tool"; data: EventMap["kin.tool"] };

function merge(existing: Message[], incoming: Message[]): Message[] {
  const byId = new Map<number, Message>();
  for (const message of existing) byId.set(message.id, message);
  for (const message of incoming) byId.set(message.id, message);
  return [...byId.values()].sort((a, b) => a.id - b.id);
}

function without<T>(record: Record<number, T>, key: number): Record<number, T> {
  if (!(key in record)) return record;
  const copy = { ...record };
  delete copy[key];
  return copy;
}

/** Apply one history page or live event to a chat. */
export function chatReducer(state: ChatState, action: ChatAction): ChatState {
  switch (action.type) {
    case "reset":
      return emptyChat;
    case "page": {
      // The first page sets where to go back from; older pages move it further back.
      const first = !state.loaded;
      return {
        ...state,
        messages: merge(state.messages, action.messages),
        nextBefore: first || (state.nextBefore !== null && (action.nextBefore === null || action.nextBefore < state.nextBefore)) ? action.nextBefore : state.nextBefore,
        loaded: true,
      };
    }
    case "message": {
      const { message } = action;
      let { streaming, tools } = state;
      // A stored reply replaces the text streamed so far for its turn; later deltas start anew.
      if (message.role === "assistant" && message.turn_of !== null) {
        streaming = without(streaming, message.turn_of);
      }
      // A finished incoming message ends its turn: nothing streams for it any more.
      if (message.role === "user" && message.status !== null && ["done", "failed", "cancelled"].includes(message.status)) {
        streaming = without(streaming, message.id);
        tools = without(tools, message.id);
      }
      return { ...state, messages: merge(state.messages, [message]), streaming, tools };
    }
    case "status": {
      const { id, status } = action.data;
      const finished = status === "done" || status === "failed" || status === "cancelled";
      return {
        ...state,
        messages: state.messages.map((message) => (message.id === id ? { ...message, status } : message)),
        streaming: finished ? without(state.streaming, id) : state.streaming,
        tools: finished ? without(state.tools, id) : state.tools,
      };
    }
    case "redacted": {
      const { id, content } = action.data;
      return { ...state, messages: state.messages.map((message) => (message.id === id ? { ...message, content } : message)) };
    }
    case "delta": {
      const { turn, text } = action.data;
      return { ...state, streaming: { ...state.streaming, [turn]: (state.streaming[turn] ?? "") + text } };
    }
    case "tool": {
      const { turn, id, name, status } = action.data;
      const current = state.tools[turn] ?? [];
      const next = current.some((tool) => tool.id === id)
        ? current.map((tool) => (tool.id === id ? { id, name, status } : tool))
        : [...current, { id, name, status }];
      return { ...state, tools: { ...state.tools, [turn]: next } };
    }
  }
}

/** Where a message comes from, which decides how its bubble looks. */
export type Origin = "me" | "user" | "kin" | "task" | "cron" | "assistant" | "tool" | "system" | "error";

/** The origin of `message` for the signed-in user `meId`. */
export function originOf(message: Message, meId: string | null): Origin {
  if (message.role === "system") return message.is_error ? "error" : "system";
  if (message.is_error) return "error";
  if (message.role === "assistant") return "assistant";
  if (message.role === "tool") return "tool";
  switch (message.source) {
    case "kin":
      return "kin";
    case "task":
      return "task";
    case "cron":
      return "cron";
    case "user":
      return message.sender_id !== null && message.sender_id === meId ? "me" : "user";
    default:
      return "system";
  }
}
