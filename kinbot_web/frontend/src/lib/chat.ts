/**
 * A Kin's chat as the browser holds it: the stored messages (deduplicated by id, in order)
 * plus what is streaming now. Pure functions, so history pages, live events and replays after
 * a reconnection can arrive in any order without losing or duplicating a message.
 */

import type { EventMap } from "./events";
import type { Message, MessageStatus } from "./types";

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

/** What live events said of messages, kept so that a snapshot read earlier (a history page,
 * the answer to a send) cannot take it back, even for a message not loaded yet. */
export interface LiveFacts {
  /** The latest `message.status` of each message. */
  statuses: Record<number, MessageStatus>;
  /** Messages a retry superseded. */
  superseded: Record<number, true>;
  /** For each turn, the newest reply it stored: text streamed before it is over. */
  stored: Record<number, number>;
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
  /** The id to ask for the next page with (`null`: the latest message is loaded). Set while
   * a window around an older message (a search result) is shown. */
  nextAfter: number | null;
  /** Whether at least one page of history was loaded. */
  loaded: boolean;
  live: LiveFacts;
}

const noFacts: LiveFacts = { statuses: {}, superseded: {}, stored: {} };
export const emptyChat: ChatState = { messages: [], streaming: {}, tools: {}, nextBefore: null, nextAfter: null, loaded: false, live: noFacts };

export type ChatAction =
  | { type: "page"; messages: Message[]; nextBefore: number | null; draft?: Draft | null }
  | { type: "reset" }
  /** A window of history around an older message: it replaces what is shown. */
  | { type: "window"; messages: Message[]; nextBefore: number | null; nextAfter: number | null }
  /** The page after the newest message shown (while a window is shown). */
  | { type: "newer"; messages: Message[]; nextAfter: number | null }
  | { type: "message"; message: Message }
  | { type: "superseded"; data: EventMap["message.superseded"] }
  | { type: "status"; data: EventMap["message.status"] }
  | { type: "redacted"; data: EventMap["message.redacted"] }
  | { type: "delta"; data: EventMap["kin.delta"] }
  | { type: "tool"; data: EventMap["kin.tool"] };

/** How far along an incoming message is: a status never goes back. */
const PROGRESS: Record<MessageStatus, number> = { queued: 0, processing: 1, waiting: 1.5, done: 2, failed: 2, cancelled: 2 };

function further(a: MessageStatus | null, b: MessageStatus | null | undefined): MessageStatus | null {
  if (!b) return a;
  if (!a) return b;
  return PROGRESS[b] > PROGRESS[a] ? b : a;
}

/** `message` as a snapshot gave it, with what is known to be newer: a status an event or an
 * earlier copy already moved on (the answer to a send can arrive after the reply), and the
 * supersession a retry announced. */
function freshest(message: Message, earlier: Message | undefined, live: LiveFacts): Message {
  const status = further(further(message.status, earlier?.status), live.statuses[message.id]);
  const superseded = Boolean(message.superseded || earlier?.superseded || live.superseded[message.id]);
  if (status === message.status && superseded === Boolean(message.superseded)) return message;
  return { ...message, status, superseded };
}

/** The messages of both lists, one per id in id order. A message a stored reply or error
 * answers (`turn_of`) is being answered at least: it is no longer waiting. */
function merge(existing: Message[], incoming: Message[], live: LiveFacts): Message[] {
  const byId = new Map<number, Message>();
  for (const message of existing) byId.set(message.id, message);
  for (const message of incoming) byId.set(message.id, freshest(message, byId.get(message.id), live));
  const answered = new Set<number>();
  // A superseded reply answers nothing any more: a retry may queue its message again.
  for (const message of byId.values()) if (message.turn_of !== null && message.role !== "user" && !message.superseded) answered.add(message.turn_of);
  const merged = [...byId.values()].sort((a, b) => a.id - b.id);
  return merged.map((message) => (message.status === "queued" && answered.has(message.id) ? { ...message, status: "processing" } : message));
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
function draftOutdated(messages: Message[], draft: Draft): boolean {
  return messages.some(
    (message) =>
      (message.role === "assistant" && message.turn_of === draft.turn && message.id > draft.step) ||
      (message.id === draft.turn && message.status !== null && FINISHED.includes(message.status)),
  );
}

function withDraft(state: ChatState, draft: Draft): ChatState {
  if (draftOutdated(state.messages, draft)) return state;
  const stored = new Set(state.messages.map((message) => message.tool_call_id).filter((id) => id !== null));
  const known = state.tools[draft.turn] ?? [];
  const running = draft.tools.filter((tool) => !stored.has(tool.id) && !known.some((other) => other.id === tool.id));
  return {
    ...state,
    streaming: { ...state.streaming, [draft.turn]: placeText(state.streaming[draft.turn], draft.step, 0, draft.text) },
    tools: running.length ? { ...state.tools, [draft.turn]: [...known, ...running] } : state.tools,
  };
}

/** The turn `message` ends or continues: the ids it makes older than any streamed text. */
function noteStored(live: LiveFacts, message: Message): LiveFacts {
  if (message.role === "user" || message.turn_of === null) return live;
  if ((live.stored[message.turn_of] ?? -1) >= message.id) return live;
  return { ...live, stored: { ...live.stored, [message.turn_of]: message.id } };
}

/** Whether the stopped reply `message` or a finished status ended turn `turn`. */
function turnOver(live: LiveFacts, turn: number): boolean {
  const status = live.statuses[turn];
  return status !== undefined && FINISHED.includes(status);
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
        messages: merge(state.messages, action.messages, state.live),
        nextBefore: first || (state.nextBefore !== null && (action.nextBefore === null || action.nextBefore < state.nextBefore)) ? action.nextBefore : state.nextBefore,
        loaded: true,
      };
      return action.draft ? withDraft(next, action.draft) : next;
    }
    case "window":
      // What streams and the live facts stay: only the shown messages change.
      return { ...state, messages: merge([], action.messages, state.live), nextBefore: action.nextBefore, nextAfter: action.nextAfter, loaded: true };
    case "newer":
      return { ...state, messages: merge(state.messages, action.messages, state.live), nextAfter: action.nextAfter };
    case "message": {
      const { message } = action;
      let { streaming, tools } = state;
      const live = noteStored(state.live, message);
      // A stored reply replaces the text its model call streamed; the next call starts anew.
      if (message.role !== "user" && message.turn_of !== null && message.id > (streaming[message.turn_of]?.step ?? -1)) {
        streaming = without(streaming, message.turn_of);
      }
      // A stopped reply, or a finished incoming message, ends its turn: nothing streams for it any more.
      const ended = message.meta?.stopped === true ? message.turn_of : message.role === "user" && message.status !== null && FINISHED.includes(message.status) ? message.id : null;
      if (ended !== null) {
        streaming = without(streaming, ended);
        tools = without(tools, ended);
      }
      // Past the window shown (a search result's): it comes with the newer pages.
      const beyond = state.nextAfter !== null && message.id > (state.messages.at(-1)?.id ?? 0) && !state.messages.some((other) => other.id === message.id);
      return { ...state, messages: beyond ? state.messages : merge(state.messages, [message], live), streaming, tools, live };
    }
    case "status": {
      const { id, status } = action.data;
      const finished = FINISHED.includes(status);
      return {
        ...state,
        messages: state.messages.map((message) => (message.id === id ? { ...message, status } : message)),
        streaming: finished ? without(state.streaming, id) : state.streaming,
        tools: finished ? without(state.tools, id) : state.tools,
        live: { ...state.live, statuses: { ...state.live.statuses, [id]: status } },
      };
    }
    case "superseded": {
      const ids = new Set(action.data.ids);
      const superseded = { ...state.live.superseded };
      for (const id of ids) superseded[id] = true;
      return {
        ...state,
        messages: state.messages.map((message) => (ids.has(message.id) ? { ...message, superseded: true } : message)),
        live: { ...state.live, superseded },
      };
    }
    case "redacted": {
      // A secret taken out of a message (redacted, stored in the Vault) or put back (not one).
      const { id, content, redaction_pending = false } = action.data;
      return { ...state, messages: state.messages.map((message) => (message.id === id ? { ...message, content, redaction_pending } : message)) };
    }
    case "delta": {
      const { turn, step, at, text } = action.data;
      // Late text of a model call whose reply is stored, or of a turn that is over, would
      // show that reply twice.
      if (step < (state.live.stored[turn] ?? -1) || turnOver(state.live, turn)) return state;
      return { ...state, streaming: { ...state.streaming, [turn]: placeText(state.streaming[turn], step, at, text) } };
    }
    case "tool": {
      const { turn, id, name, status } = action.data;
      if (turnOver(state.live, turn)) return state;
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
    case "webhook": // a service writing through an inbound webhook: shown as its sender's bubble
      return "user";
    default:
      return "system";
  }
}
