/**
 * The browser's one Server-Sent Events stream (`GET /api/events`, docs/api.md "Live events").
 *
 * EventSource reconnects by itself and sends `Last-Event-ID`, so the server replays what was
 * missed. When the server no longer has it (`resync`), or when the browser had to open a new
 * stream after giving up (the old position is lost), subscribers are told to reload their state.
 */

import type { Approval } from "./approvals";
import type { Cron } from "./crons";
import type { Kin, KinState, Message, MessageStatus } from "./types";
import type { Budget } from "./usage";

/** Data of each event the stream carries that the front end uses. */
export interface EventMap {
  message: { message: Message };
  "message.redacted": { kin_id: string; id: number; content: string; redaction_pending?: boolean };
  "message.restored": { kin_id: string; id: number; content: string; redaction_pending: boolean };
  "message.status": { kin_id: string; id: number; status: MessageStatus };
  /** A retry's old reply: kept, dimmed, out of the Kin's context. */
  "message.superseded": { kin_id: string; ids: number[] };
  "kin.delta": { kin_id: string; turn: number; step: number; at: number; text: string };
  "kin.tool": { kin_id: string; turn: number; id: string; name: string; status: "running" | "done" | "error" };
  "kin.queue": { kin_id: string; queue_length: number };
  "kin.state": { kin_id: string; state: KinState; error: string | null; error_code?: string | null };
  "kin.created": { kin: Kin };
  "kin.updated": { kin: Kin };
  "kin.deleted": { kin_id: string };
  "task.updated": { task: Record<string, unknown> };
  "cron.created": { cron: Cron };
  "cron.updated": { cron: Cron };
  "cron.deleted": { cron_id: string; kin_id: string };
  "approval.requested": { kin_id: string; approval: Approval };
  "approval.decided": { kin_id: string; id: string; status: string };
  "usage.budget_warning": { budget: Budget; currency: string; kin_id?: string };
}

export type EventName = keyof EventMap;
export const EVENT_NAMES: readonly EventName[] = [
  "message",
  "message.redacted",
  "message.restored",
  "message.status",
  "message.superseded",
  "kin.delta",
  "kin.tool",
  "kin.queue",
  "kin.state",
  "kin.created",
  "kin.updated",
  "kin.deleted",
  "task.updated",
  "cron.created",
  "cron.updated",
  "cron.deleted",
  "approval.requested",
  "approval.decided",
  "usage.budget_warning",
];

export type ConnectionState = "connecting" | "open" | "reconnecting" | "closed";

/** What the stream needs of `EventSource` (the browser's, unless one is given). */
export interface EventSourceLike {
  readonly readyState: number;
  onopen: ((event: Event) => void) | null;
  onerror: ((event: Event) => void) | null;
  addEventListener(type: string, listener: (event: MessageEvent<string>) => void): void;
  close(): void;
}
export type EventSourceFactory = (url: string) => EventSourceLike;

const CLOSED = 2;

type Listener<K extends EventName> = (data: EventMap[K]) => void;

export interface EventStreamOptions {
  url?: string;
  /** Opens the connection; the browser's EventSource by default. */
  open?: EventSourceFactory;
  /** Delay before opening a new stream after the browser gave up on one, by attempt (ms). */
  retryDelay?: (attempt: number) => number;
}

/** How long a first load waits for the stream to open (it loads anyway after that). */
export const OPEN_WAIT_MS = 3000;

/** One live connection to `/api/events`, shared by every part of the app that listens. */
export class EventStream {
  private source: EventSourceLike | null = null;
  private readonly listeners = new Map<EventName, Set<Listener<EventName>>>();
  private readonly stateListeners = new Set<(state: ConnectionState) => void>();
  private readonly resyncListeners = new Set<() => void>();
  private retryTimer: ReturnType<typeof setTimeout> | null = null;
  private attempts = 0;
  private everOpened = false;
  private _state: ConnectionState = "closed";
  private readonly url: string;
  private readonly open: EventSourceFactory;
  private readonly retryDelay: (attempt: number) => number;

  constructor(options: EventStreamOptions = {}) {
    this.url = options.url ?? "/api/events";
    this.open = options.open ?? ((url) => new EventSource(url, { withCredentials: true }) as unknown as EventSourceLike);
    this.retryDelay = options.retryDelay ?? ((attempt) => Math.min(30_000, 1000 * 2 ** Math.min(attempt, 5)));
  }

  get state(): ConnectionState {
    return this._state;
  }

  /** Open the stream (does nothing when it is open already). */
  connect(): void {
    if (this.source) return;
    this.setState(this.everOpened ? "reconnecting" : "connecting");
    const source = this.open(this.url);
    this.source = source;
    source.onopen = () => {
      this.everOpened = true;
      this.attempts = 0;
      this.setState("open");
      // A new stream (not the browser's own reconnection) starts from now: reload.
      if (this.pendingResync) {
        this.pendingResync = false;
        this.emitResync();
      }
    };
    source.onerror = () => {
      if (source.readyState === CLOSED) {
        // The browser gave up (the server refused, say): open a new stream later.
        this.source = null;
        this.pendingResync ||= this.everOpened;
        this.setState("reconnecting");
        this.retryTimer = setTimeout(() => {
          this.retryTimer = null;
          this.connect();
        }, this.retryDelay(this.attempts++));
      } else {
        this.setState("reconnecting"); // the browser retries by itself, with Last-Event-ID
      }
    };
    source.addEventListener("resync", () => this.emitResync());
    for (const name of EVENT_NAMES) {
      source.addEventListener(name, (event) => this.dispatch(name, event.data));
    }
  }

  private pendingResync = false;

  /**
   * Resolves `true` once the stream is open (the server then sends every later event), or
   * `false` after `limitMs`: state loaded before it opens may miss what happens meanwhile, so
   * a stream that opens later asks its subscribers to reload (`onResync`).
   */
  whenOpen(limitMs: number = OPEN_WAIT_MS): Promise<boolean> {
    if (this._state === "open") return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        off();
        if (this._state !== "open") this.pendingResync = true;
        resolve(this._state === "open");
      }, limitMs);
      const off = this.onState((state) => {
        if (state !== "open") return;
        clearTimeout(timer);
        off();
        resolve(true);
      });
    });
  }

  /** Close the stream for good (signing out). */
  close(): void {
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = null;
    this.source?.close();
    this.source = null;
    this.setState("closed");
  }

  /** Call `listener` with the data of every `name` event; returns the unsubscribe function. */
  on<K extends EventName>(name: K, listener: Listener<K>): () => void {
    let set = this.listeners.get(name);
    if (!set) {
      set = new Set();
      this.listeners.set(name, set);
    }
    set.add(listener as Listener<EventName>);
    return () => set.delete(listener as Listener<EventName>);
  }

  /** Call `listener` when state must be reloaded from the REST API (events were lost). */
  onResync(listener: () => void): () => void {
    this.resyncListeners.add(listener);
    return () => this.resyncListeners.delete(listener);
  }

  /** Call `listener` when the connection state changes. */
  onState(listener: (state: ConnectionState) => void): () => void {
    this.stateListeners.add(listener);
    return () => this.stateListeners.delete(listener);
  }

  private dispatch(name: EventName, raw: string): void {
    let data: unknown;
    try {
      data = JSON.parse(raw);
    } catch {
      console.warn(`KinBot: ignored an unreadable ${name} event`);
      return;
    }
    for (const listener of this.listeners.get(name) ?? []) listener(data as EventMap[EventName]);
  }

  private emitResync(): void {
    for (const listener of this.resyncListeners) listener();
  }

  private setState(state: ConnectionState): void {
    if (state === this._state) return;
    this._state = state;
    for (const listener of this.stateListeners) listener(state);
  }
}
