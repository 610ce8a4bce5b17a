/**
 * Tool calls waiting for a person's approval, per Kin: loaded when a chat opens, kept live by
 * `approval.requested` / `approval.decided` events, read by each tool call's card. A store
 * outside React state (useSyncExternalStore), like the chat's session store.
 */

import * as React from "react";

import { api } from "./api";
import type { EventStream } from "./events";

/** A request for approval as the API gives it (docs/api.md "Tool approvals"). */
export interface Approval {
  id: string;
  kin_id: string;
  turn: number;
  tool_call_id: string;
  tool_name: string;
  arguments: Record<string, unknown>;
  reason: string | null;
  status: string;
  created_at: number;
  expires_at: number;
}

export type Decision = "allow_once" | "always" | "decline";

const pending = new Map<string, Approval>();
const listeners = new Set<() => void>();
let version = 0;
/** Ids the live events added or removed, by the `version` they did it at: a list loaded
 * before them (its answer may arrive after the event) does not undo them. */
const liveChanges = new Map<string, { at: number; added: boolean }>();

function key(turn: number | null | undefined, callId: string): string {
  return `${turn ?? ""}:${callId}`;
}

function changed(): void {
  version += 1;
  for (const listener of listeners) listener();
}

function add(approval: Approval): void {
  pending.set(key(approval.turn, approval.tool_call_id), approval);
  liveChanges.set(approval.id, { at: version, added: true });
  changed();
}

function remove(id: string): void {
  for (const [name, approval] of pending) if (approval.id === id) pending.delete(name);
  liveChanges.set(id, { at: version, added: false });
  changed();
}

/** The Kin's pending requests as a list asked for at `asked` says, except what a live event
 * changed since. */
function replaceKin(kinId: string, approvals: Approval[], asked: number): void {
  const newer = (id: string) => (liveChanges.get(id)?.at ?? -1) >= asked;
  for (const [name, approval] of pending) {
    if (approval.kin_id === kinId && !newer(approval.id)) pending.delete(name);
  }
  for (const approval of approvals) {
    if (!newer(approval.id)) pending.set(key(approval.turn, approval.tool_call_id), approval);
  }
  changed();
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** Load the Kin's pending requests and follow them live while its chat is open. */
export function useApprovalFeed(kinId: string, stream: EventStream): void {
  React.useEffect(() => {
    const load = () => {
      const asked = version;
      void api<{ approvals: Approval[] }>(`/api/kins/${kinId}/approvals`)
        .then(({ approvals }) => replaceKin(kinId, approvals, asked))
        .catch(() => undefined); // the chat says when the server is unreachable
    };
    load();
    const off = [
      stream.on("approval.requested", ({ approval }) => approval.kin_id === kinId && add(approval)),
      stream.on("approval.decided", ({ kin_id, id }) => kin_id === kinId && remove(id)),
      stream.onResync(load),
    ];
    return () => off.forEach((unsubscribe) => unsubscribe());
  }, [kinId, stream]);
}

/** The pending request of one call of the turn of message `turn`, if any. */
export function usePendingApproval(turn: number | null | undefined, callId: string): Approval | undefined {
  React.useSyncExternalStore(subscribe, () => version);
  return pending.get(key(turn, callId));
}

/** Answer a request; it leaves the store at once (the event confirms it for other browsers). */
export async function decideApproval(approval: Approval, decision: Decision, reason?: string): Promise<void> {
  await api(`/api/approvals/${approval.id}/decision`, { method: "POST", body: { decision, reason: reason || undefined } });
  remove(approval.id);
}
