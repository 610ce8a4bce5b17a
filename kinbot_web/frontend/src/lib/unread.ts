/**
 * Unread replies per Kin: what a Kin said while its chat was not the one open (or the tab was
 * hidden), counted per Kin and in the tab's title, cleared when the chat is opened. Kept per
 * browser in localStorage, by message id so that two tabs (or a replay after a reconnection)
 * never count a message twice, and shared by the browser's tabs.
 */
import * as React from "react";

import type { EventStream } from "./events";
import type { Message } from "./types";

/** Unread message ids by Kin id. */
export type Unread = Record<string, number[]>;

/** Ids kept per Kin: the badge shows "99+" past this anyway. */
export const MAX_TRACKED = 100;

/** Whether `message` is something a Kin said that a person would want to read. */
export function isReply(message: Message): boolean {
  if (message.superseded) return false;
  if (message.role === "assistant") return message.content.trim() !== "" || Boolean(message.attachments?.length);
  return message.role === "system" && message.is_error;
}

export function addUnread(unread: Unread, kinId: string, messageId: number): Unread {
  const ids = unread[kinId] ?? [];
  if (ids.includes(messageId)) return unread;
  return { ...unread, [kinId]: [...ids, messageId].slice(-MAX_TRACKED) };
}

export function clearUnread(unread: Unread, kinId: string): Unread {
  if (!unread[kinId]?.length) return unread;
  const copy = { ...unread };
  delete copy[kinId];
  return copy;
}

/** `unread` without messages `ids` of Kin `kinId` (superseded by a retry, say). */
export function withoutIds(unread: Unread, kinId: string, ids: number[]): Unread {
  const kept = (unread[kinId] ?? []).filter((id) => !ids.includes(id));
  if (kept.length === (unread[kinId]?.length ?? 0)) return unread;
  return kept.length ? { ...unread, [kinId]: kept } : clearUnread(unread, kinId);
}

/** Unread messages of the Kins in `kinIds` (a deleted Kin's do not count). */
export function totalUnread(unread: Unread, kinIds: Iterable<string>): number {
  let total = 0;
  for (const id of kinIds) total += unread[id]?.length ?? 0;
  return total;
}

/** The tab's title with the unread count in front: "(2) KinBot". */
export function titleWith(count: number, title: string): string {
  return count > 0 ? `(${count > 99 ? "99+" : count}) ${title}` : title;
}

function storageKey(userId: string): string {
  return `kinbot.unread.${userId}`;
}

function parse(raw: string | null): Unread {
  try {
    const value: unknown = raw ? JSON.parse(raw) : {};
    if (typeof value !== "object" || value === null || Array.isArray(value)) return {};
    const unread: Unread = {};
    for (const [kinId, ids] of Object.entries(value)) {
      if (Array.isArray(ids)) unread[kinId] = ids.filter((id): id is number => Number.isInteger(id)).slice(-MAX_TRACKED);
    }
    return unread;
  } catch {
    return {}; // a damaged entry: start again rather than break the app
  }
}

function load(userId: string): Unread {
  try {
    return parse(localStorage.getItem(storageKey(userId)));
  } catch {
    return {}; // storage refused (private mode): counts live in this tab only
  }
}

function save(userId: string, unread: Unread): void {
  try {
    localStorage.setItem(storageKey(userId), JSON.stringify(unread));
  } catch {
    // storage refused or full: the counts still work in this tab
  }
}

/**
 * The unread counts of user `userId`, fed by the event stream; `openKinId` is the chat on
 * screen, whose count is cleared (and stays clear while the tab is visible).
 */
export function useUnread(userId: string | null, stream: EventStream, openKinId: string | null): Unread {
  const [unread, setUnread] = React.useState<Unread>({});
  const open = React.useRef(openKinId);
  open.current = openKinId;

  const update = React.useCallback(
    (change: (current: Unread) => Unread) => {
      if (!userId) return;
      // Read again first: another tab may have changed the counts.
      const current = load(userId);
      const next = change(current);
      if (next !== current) save(userId, next);
      setUnread(next);
    },
    [userId],
  );

  React.useEffect(() => {
    if (!userId) return;
    setUnread(load(userId));
    const fromOtherTab = (event: StorageEvent) => event.key === storageKey(userId) && setUnread(parse(event.newValue));
    window.addEventListener("storage", fromOtherTab);
    return () => window.removeEventListener("storage", fromOtherTab);
  }, [userId]);

  React.useEffect(() => {
    const seen = () => document.visibilityState === "visible" && open.current && update((current) => clearUnread(current, open.current ?? ""));
    document.addEventListener("visibilitychange", seen);
    const off = [
      stream.on("message", ({ message }) => {
        if (!isReply(message)) return;
        if (message.kin_id === open.current && document.visibilityState === "visible") return;
        update((current) => addUnread(current, message.kin_id, message.id));
      }),
      stream.on("message.superseded", ({ kin_id, ids }) => update((current) => withoutIds(current, kin_id, ids))),
      stream.on("kin.deleted", ({ kin_id }) => update((current) => clearUnread(current, kin_id))),
    ];
    return () => {
      document.removeEventListener("visibilitychange", seen);
      off.forEach((unsubscribe) => unsubscribe());
    };
  }, [stream, update]);

  React.useEffect(() => {
    if (openKinId) update((current) => clearUnread(current, openKinId));
  }, [openKinId, update]);

  return unread;
}
