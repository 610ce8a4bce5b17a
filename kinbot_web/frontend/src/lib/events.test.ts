import { describe, expect, it, vi } from "vitest";

import { EventStream, type EventSourceLike } from "./events";

/** A scriptable EventSource: the test plays the server's side of the stream. */
class ScriptedSource implements EventSourceLike {
  readyState = 0;
  onopen: ((event: Event) => void) | null = null;
  onerror: ((event: Event) => void) | null = null;
  closed = false;
  private readonly handlers = new Map<string, ((event: MessageEvent<string>) => void)[]>();

  constructor(readonly url: string) {}

  addEventListener(type: string, listener: (event: MessageEvent<string>) => void): void {
    this.handlers.set(type, [...(this.handlers.get(type) ?? []), listener]);
  }
  close(): void {
    this.closed = true;
    this.readyState = 2;
  }
  open(): void {
    this.readyState = 1;
    this.onopen?.(new Event("open"));
  }
  send(type: string, data: unknown): void {
    const event = new MessageEvent<string>(type, { data: typeof data === "string" ? data : JSON.stringify(data) });
    for (const handler of this.handlers.get(type) ?? []) handler(event);
  }
  fail(giveUp: boolean): void {
    this.readyState = giveUp ? 2 : 0;
    this.onerror?.(new Event("error"));
  }
}

function scripted() {
  const sources: ScriptedSource[] = [];
  const stream = new EventStream({
    open: (url) => {
      const source = new ScriptedSource(url);
      sources.push(source);
      return source;
    },
    retryDelay: () => 1000,
  });
  return { stream, sources };
}

/** A scripted stream asked to connect, with a spy on its reload requests. */
function connected() {
  const { stream, sources } = scripted();
  const resync = vi.fn();
  stream.onResync(resync);
  stream.connect();
  return { stream, sources, resync };
}

describe("EventStream", () => {
  it("opens /api/events once and hands each event's data to its listeners", () => {
    const { stream, sources } = scripted();
    const deltas: string[] = [];
    const queues: number[] = [];
    stream.on("kin.delta", (data) => deltas.push(data.text));
    stream.on("kin.queue", (data) => queues.push(data.queue_length));
    stream.connect();
    stream.connect();
    expect(sources).toHaveLength(1);
    expect(sources[0].url).toBe("/api/events");
    sources[0].open();
    sources[0].send("kin.delta", { kin_id: "k", turn: 1, step: 1, at: 0, text: "Hel" });
    sources[0].send("kin.delta", { kin_id: "k", turn: 1, step: 1, at: 3, text: "lo" });
    sources[0].send("kin.queue", { kin_id: "k", queue_length: 2 });
    expect(deltas).toEqual(["Hel", "lo"]);
    expect(queues).toEqual([2]);
  });

  it("stops calling a listener once unsubscribed, and skips unreadable data", () => {
    const { stream, sources } = scripted();
    const seen: string[] = [];
    const off = stream.on("kin.delta", (data) => seen.push(data.text));
    stream.connect();
    const warn = vi.spyOn(console, "warn").mockImplementation(() => undefined);
    sources[0].send("kin.delta", "{not json");
    expect(warn).toHaveBeenCalledOnce();
    warn.mockRestore();
    sources[0].send("kin.delta", { kin_id: "k", turn: 1, step: 1, at: 0, text: "a" });
    off();
    sources[0].send("kin.delta", { kin_id: "k", turn: 1, step: 1, at: 1, text: "b" });
    expect(seen).toEqual(["a"]);
  });

  it("reports a dropped connection while the browser reconnects by itself, without reloading", () => {
    const { stream, sources } = scripted();
    const states: string[] = [];
    const resync = vi.fn();
    stream.onState((state) => states.push(state));
    stream.onResync(resync);
    stream.connect();
    sources[0].open();
    sources[0].fail(false); // EventSource retries with Last-Event-ID: the server replays
    sources[0].open();
    expect(states).toEqual(["connecting", "open", "reconnecting", "open"]);
    expect(sources).toHaveLength(1);
    expect(resync).not.toHaveBeenCalled();
  });

  it("tells listeners to reload when the server says resync", () => {
    const { sources, resync } = connected();
    sources[0].open();
    sources[0].send("resync", "{}");
    expect(resync).toHaveBeenCalledOnce();
  });

  it("opens a new stream after the browser gave up, and then asks for a reload", () => {
    vi.useFakeTimers();
    try {
      const { stream, sources, resync } = connected();
      sources[0].open();
      sources[0].fail(true);
      expect(stream.state).toBe("reconnecting");
      expect(sources).toHaveLength(1);
      vi.advanceTimersByTime(1000);
      expect(sources).toHaveLength(2);
      expect(resync).not.toHaveBeenCalled();
      sources[1].open();
      expect(resync).toHaveBeenCalledOnce();
      expect(stream.state).toBe("open");
    } finally {
      vi.useRealTimers();
    }
  });

  it("says when it is open, so that state loaded afterwards misses no event", async () => {
    const { stream, sources, resync } = connected();
    const opened = stream.whenOpen(3000);
    sources[0].open();
    await expect(opened).resolves.toBe(true);
    await expect(stream.whenOpen(3000)).resolves.toBe(true);
    expect(resync).not.toHaveBeenCalled();
  });

  it("asks for a reload when it opens after the wait for it ended", async () => {
    vi.useFakeTimers();
    try {
      const { stream, sources, resync } = connected();
      const opened = stream.whenOpen(3000);
      vi.advanceTimersByTime(3000);
      await expect(opened).resolves.toBe(false);
      sources[0].fail(true); // and the browser gives up once before it opens
      vi.advanceTimersByTime(1000);
      sources[1].open();
      expect(resync).toHaveBeenCalledOnce();
    } finally {
      vi.useRealTimers();
    }
  });

  it("closes for good: no new stream after close()", () => {
    vi.useFakeTimers();
    try {
      const { stream, sources } = scripted();
      stream.connect();
      sources[0].fail(true);
      stream.close();
      vi.advanceTimersByTime(60_000);
      expect(sources).toHaveLength(1);
      expect(stream.state).toBe("closed");
    } finally {
      vi.useRealTimers();
    }
  });
});
