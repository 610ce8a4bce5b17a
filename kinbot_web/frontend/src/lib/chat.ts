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

/** A piece of streamed text and where it starts in its model call's text. */
interface Chunk {
  at: number;
  text: string;
}

/** The text a running turn's current model call has streamed so far. */
export interface Streamed {
  /** The model call (see `draft.step` in docs/api.md): later calls replace earlier ones. */
  step: number;
  /** The text from the start, without gaps. */
  text: string;
  /** Pieces that arrived before the text leading to them (a chat opened mid-reply). */
  pending: Chunk[];
}

/** What a running turn has not stored yet, as the latest history page gives it. */
export interface Draft {
  turn: number;
  step: number;
  text: string;
  tools: ToolActivity[];
}

export interface ChatState {
  /** Stored messages, oldest first, one per id. */
  messages: Message[];
  /** Text streamed so far for each running turn (by the id of the message that started it). */
  streaming: Record<number, Streamed>;
  /** Tool calls seen for each running turn. */
  tools: Record<number, ToolActivity[]>;
  /** The id to ask for the previous page with (`null`: the beginning is loaded). */
  nextBefore: number | null;
  /** Whether at least one page of history was loaded. */
  loaded: boolean;
}

export const emptyChat: ChatState = { messages: [], streaming: {}, tools: {}, nextBefore: null, loaded: false };

export type ChatAction =
  | { type: "page"; messages: Message[]; nextBefore: number | null; draft?: Draft | null }
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

/** `streamed` with `text` placed at offset `at` of model call `step`. Pieces may arrive in
 * any order and overlap (a draft and the deltas sent around the time it was read): each is
 * placed where it starts; a piece past the end waits until the text before it arrives. */
export function placeText(streamed: Streamed | undefined, step: number, at: number, text: string): Streamed {
  if (streamed && step < streamed.step) return streamed; // from a model call already over
  const base = streamed && step === streamed.step ? streamed : { step, text: "", pending: [] };
  let built = base.text;
  const pending: Chunk[] = [];
  for (const chunk of [...base.pending, { at, text }].sort((a, b) => a.at - b.at)) {
    if (chunk.at > built.length) pending.push(chunk);
    else if (chunk.at + chunk.text.length > built.length) built = built.slice(0, chunk.at) + chunk.text;
  }
  return { step, text: built, pending };
}

const FINISHED = ["done", "failed", "cancelled"];

/** Whether the chat already holds what `draft` would show (its reply was stored, or its turn
 * is over): the draft was read before that happened. */
function superseded(messages: Message[], draft: Draft): boolean {
  return messages.some(
    (message) =>
      (message.role === "assistant" && message.turn_of === draft.turn && message.id > draft.step) ||
      (message.id === draft.turn && message.status !== null && FINISHED.includes(message.status)),
  );
}

function withDraft(state: ChatState, draft: Draft): ChatState {
  if (superseded(state.messages, draft)) return state;
  const stored = new Set(state.messages.map((message) => message.tool_call_id).filter((id) => id !== null));
  const known = state.tools[draft.turn] ?? [];
  const running = draft.tools.filter((tool) => !stored.has(tool.id) && !known.some((other) => other.id === tool.id));
  return {
    ...state,
    streaming: { ...state.streaming, [draft.turn]: placeText(state.streaming[draft.turn], draft.step, 0, draft.text) },
    tools: running.length ? { ...state.tools, [draft.turn]: [...known, ...running] } : state.tools,
  };
}

/** Apply one history page or live event to a chat. */
export function chatReducer(state: ChatState, action: ChatAction): ChatState {
  switch (action.type) {
    case "reset":
      return emptyChat;
    case "page": {
      // The first page sets where to go back from; older pages move it further back.
      const first = !state.loaded;
      const next = {
        ...state,
        messages: merge(state.messages, action.messages),
        nextBefore: first || (state.nextBefore !== null && (action.nextBefore === null || action.nextBefore < state.nextBefore)) ? action.nextBefore : state.nextBefore,
        loaded: true,
      };
      return action.draft ? withDraft(next, action.draft) : next;
    }
    case "message": {
      const { message } = action;
      let { streaming, tools } = state;
      // A stored reply replaces the text its model call streamed; the next call starts anew.
      if (message.role === "assistant" && message.turn_of !== null && message.id > (streaming[message.turn_of]?.step ?? -1)) {
        streaming = without(streaming, message.turn_of);
      }
      // A finished incoming message ends its turn: nothing streams for it any more.
      if (message.role === "user" && message.status !== null && FINISHED.includes(message.status)) {
        streaming = without(streaming, message.id);
        tools = without(tools, message.id);
      }
      return { ...state, messages: merge(state.messages, [message]), streaming, tools };
    }
    case "status": {
      const { id, status } = action.data;
      const finished = FINISHED.includes(status);
      return {
        ...state,
        messages: state.messages.map((message) => (message.id === id ? { ...message, status } : message)),
        streaming: finished ? without(state.streaming, id) : state.streaming,
        tools: finished ? without(state.tools, id) : state.tools,
      };
    }
    case "redacted": {
      // A secret taken out of a message (redacted, stored in the Vault) or put back (not one).
      const { id, content, redaction_pending = false } = action.data;
      return { ...state, messages: state.messages.map((message) => (message.id === id ? { ...message, content, redaction_pending } : message)) };
    }
    case "delta": {
      const { turn, step, at, text } = action.data;
      return { ...state, streaming: { ...state.streaming, [turn]: placeText(state.streaming[turn], step, at, text) } };
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
