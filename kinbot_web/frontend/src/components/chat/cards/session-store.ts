/**
 * The messages shown in each Kin's chat, as their views mount: a tool call's card finds its
 * result here (the `role: tool` message with the call's id, which shows nowhere else), and a
 * reply learns whether it is the latest one (which offers "Answer again"). A store outside
 * React state, read with useSyncExternalStore: a message arriving re-renders only the views
 * that depend on it.
 */

import * as React from "react";

import type { Message } from "@/lib/types";

interface Session {
  byId: Map<number, Message>;
  byCall: Map<string, Message>;
  /** The newest id in `byId` (null: none). */
  latest: number | null;
}

const sessions = new Map<string, Session>();
/** The ids of the tool calls of the shown replies, in every chat (a call's card shows). */
const shownCalls = new Map<string, number>();
const listeners = new Set<() => void>();

function session(kinId: string): Session {
  let found = sessions.get(kinId);
  if (!found) {
    found = { byId: new Map(), byCall: new Map(), latest: null };
    sessions.set(kinId, found);
  }
  return found;
}

function changed(shown: Session): void {
  shown.latest = shown.byId.size ? Math.max(...shown.byId.keys()) : null;
  for (const listener of listeners) listener();
}

/** Show `message` to the cards of its chat while its view is mounted. */
export function useShownMessage(message: Message): void {
  React.useEffect(() => {
    const shown = session(message.kin_id);
    shown.byId.set(message.id, message);
    if (message.role === "tool" && message.tool_call_id) shown.byCall.set(message.tool_call_id, message);
    const calls = (message.tool_calls ?? []).map((call) => call.id);
    for (const id of calls) shownCalls.set(id, (shownCalls.get(id) ?? 0) + 1);
    changed(shown);
    return () => {
      if (shown.byId.get(message.id) === message) shown.byId.delete(message.id);
      if (message.tool_call_id && shown.byCall.get(message.tool_call_id) === message) shown.byCall.delete(message.tool_call_id);
      for (const id of calls) {
        const count = (shownCalls.get(id) ?? 1) - 1;
        if (count > 0) shownCalls.set(id, count);
        else shownCalls.delete(id);
      }
      changed(shown);
    };
  }, [message]);
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** The stored result of tool call `callId` in Kin `kinId`'s chat (undefined: not back yet). */
export function useToolResult(kinId: string, callId: string): Message | undefined {
  return React.useSyncExternalStore(subscribe, () => sessions.get(kinId)?.byCall.get(callId));
}

/** The message `id` of Kin `kinId`'s chat, when it is shown. */
export function useShownById(kinId: string, id: number | null): Message | undefined {
  return React.useSyncExternalStore(subscribe, () => (id === null ? undefined : sessions.get(kinId)?.byId.get(id)));
}

/** The id of the newest message shown in Kin `kinId`'s chat (null: none). */
export function useLatestShownId(kinId: string): number | null {
  return React.useSyncExternalStore(subscribe, () => sessions.get(kinId)?.latest ?? null);
}

/** Whether tool call `callId` shows as a card of a stored reply (in any chat). */
export function useCallShown(callId: string): boolean {
  return React.useSyncExternalStore(subscribe, () => shownCalls.has(callId));
}
