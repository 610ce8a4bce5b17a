// @vitest-environment jsdom
import { describe, expect, it } from "vitest";

import { chatReducer, emptyChat, originOf, type ChatState, type Draft } from "./chat";
import type { Message } from "./types";

function message(id: number, fields: Partial<Message> = {}): Message {
  return {
    id, kin_id: "k", role: "user", source: "user", sender_id: "u-me", sender_name: "Nico", content: `m${id}`,
    tool_calls: null, tool_call_id: null, is_error: false, status: "done", turn_of: null, created_at: id, attachments: null,
    ...fields,
  };
}

function apply(state: ChatState, ...actions: Parameters<typeof chatReducer>[1][]): ChatState {
  return actions.reduce(chatReducer, state);
}

describe("chatReducer", () => {
  it("keeps one copy of each message, in id order, whatever the arrival order", () => {
    const state = apply(
      emptyChat,
      { type: "message", message: message(12) },
      { type: "page", messages: [message(10), message(11), message(12)], nextBefore: 10 },
      { type: "message", message: message(11) }, // replayed after a reconnection
      { type: "message", message: message(13) },
    );
    expect(state.messages.map((m) => m.id)).toEqual([10, 11, 12, 13]);
    expect(state.nextBefore).toBe(10);
  });

  it("moves back through history page by page until the beginning", () => {
    const state = apply(
      emptyChat,
      { type: "page", messages: [message(50), message(51)], nextBefore: 50 },
      { type: "page", messages: [message(48), message(49)], nextBefore: 48 },
      { type: "page", messages: [message(47)], nextBefore: null },
    );
    expect(state.messages.map((m) => m.id)).toEqual([47, 48, 49, 50, 51]);
    expect(state.nextBefore).toBeNull();
    // A reload of the latest page (after a resync) does not move the position back.
    expect(apply(state, { type: "page", messages: [message(51)], nextBefore: 51 }).nextBefore).toBeNull();
  });

  it("accumulates streamed text per turn and replaces it with the stored reply", () => {
    let state = apply(
      emptyChat,
      { type: "message", message: message(20, { status: "processing" }) },
      { type: "delta", data: { kin_id: "k", turn: 20, step: 20, at: 0, text: "Hel" } },
      { type: "delta", data: { kin_id: "k", turn: 20, step: 20, at: 3, text: "lo" } },
    );
    expect(state.streaming).toEqual({ 20: { step: 20, text: "Hello", pending: [] } });
    state = apply(state, { type: "message", message: message(21, { role: "assistant", source: null, content: "Hello", turn_of: 20 }) });
    expect(state.streaming).toEqual({});
    expect(state.messages.at(-1)?.content).toBe("Hello");
  });

  it("lines up a draft read mid-reply with the deltas around it, without gaps or repeats", () => {
    const delta = (at: number, text: string, step = 21) => ({ type: "delta" as const, data: { kin_id: "k", turn: 20, step, at, text } });
    const page = (draft: Draft) => ({ type: "page" as const, messages: [message(20, { status: "processing" }), message(21, { role: "assistant", source: null, content: "Let me look.", turn_of: 20 })], nextBefore: null, draft });
    // Deltas sent after the draft was read arrive first: they wait for the text before them.
    let state = apply(emptyChat, delta(15, " for dinner"), delta(26, "?"));
    expect(state.streaming[20].text).toBe("");
    state = apply(state, page({ turn: 20, step: 21, text: "What about", tools: [] }));
    expect(state.streaming[20].text).toBe("What about");
    state = apply(state, delta(10, " soup"));
    expect(state.streaming[20]).toEqual({ step: 21, text: "What about soup for dinner?", pending: [] });
    // A delta already in the draft changes nothing; one of an earlier model call is ignored.
    state = apply(state, delta(5, "about"), delta(0, "Old text", 20));
    expect(state.streaming[20].text).toBe("What about soup for dinner?");
    // The next model call starts its own text.
    state = apply(state, delta(0, "Risotto", 30));
    expect(state.streaming[20]).toEqual({ step: 30, text: "Risotto", pending: [] });
  });

  it("drops a draft whose reply is already stored, and keeps a later call's text when an earlier reply arrives", () => {
    const stored = message(22, { role: "assistant", source: null, content: "Done.", turn_of: 20 });
    let state = apply(
      emptyChat,
      { type: "message", message: stored },
      { type: "page", messages: [message(20, { status: "processing" })], nextBefore: null, draft: { turn: 20, step: 21, text: "Do", tools: [] } },
    );
    expect(state.streaming).toEqual({});
    state = apply(
      emptyChat,
      { type: "page", messages: [message(20, { status: "processing" })], nextBefore: null, draft: { turn: 20, step: 25, text: "Next", tools: [] } },
      { type: "message", message: stored }, // the reply of the call before (id 22 < 25)
    );
    expect(state.streaming[20].text).toBe("Next");
    // A finished turn has no draft left.
    state = apply(emptyChat, { type: "page", messages: [message(20, { status: "done" })], nextBefore: null, draft: { turn: 20, step: 20, text: "Hi", tools: [] } });
    expect(state.streaming).toEqual({});
  });

  it("shows a draft's running tool calls unless their results are already stored", () => {
    const running = (id: string) => ({ id, name: "web_search", status: "running" as const });
    const state = apply(emptyChat, {
      type: "page",
      messages: [message(20, { status: "processing" }), message(22, { role: "tool", source: null, tool_call_id: "c1", turn_of: 20 })],
      nextBefore: null,
      draft: { turn: 20, step: 22, text: "", tools: [running("c1"), running("c2")] },
    });
    expect(state.tools[20]).toEqual([running("c2")]);
  });

  it("tracks tool calls of a turn and forgets them when the turn ends", () => {
    let state = apply(
      emptyChat,
      { type: "tool", data: { kin_id: "k", turn: 20, id: "c1", name: "web_search", status: "running" } },
      { type: "tool", data: { kin_id: "k", turn: 20, id: "c1", name: "web_search", status: "done" } },
      { type: "tool", data: { kin_id: "k", turn: 20, id: "c2", name: "get_secret", status: "error" } },
    );
    expect(state.tools[20]).toEqual([
      { id: "c1", name: "web_search", status: "done" },
      { id: "c2", name: "get_secret", status: "error" },
    ]);
    state = apply(state, { type: "message", message: message(20, { status: "processing" }) }, { type: "status", data: { kin_id: "k", id: 20, status: "done" } });
    expect(state.tools).toEqual({});
    expect(state.messages[0].status).toBe("done");
  });

  it("updates a queued message's status and a redacted message's text in place", () => {
    const state = apply(
      emptyChat,
      { type: "message", message: message(30, { status: "queued", content: "token ghp_secret" }) },
      { type: "status", data: { kin_id: "k", id: 30, status: "processing" } },
      { type: "redacted", data: { kin_id: "k", id: 30, content: "token [SECRET: GITHUB_TOKEN]" } },
    );
    expect(state.messages).toHaveLength(1);
    expect(state.messages[0]).toMatchObject({ status: "processing", content: "token [SECRET: GITHUB_TOKEN]" });
  });

  it("clears or keeps the hidden-secret flag as the stored or restored text says", () => {
    const flagged = message(31, { content: "a [PENDING SECRET 1] b [PENDING SECRET 2]", redaction_pending: true });
    let state = apply(emptyChat, { type: "message", message: flagged }, {
      type: "redacted",
      data: { kin_id: "k", id: 31, content: "a 1234abcd b [PENDING SECRET 2]", redaction_pending: true },
    });
    expect(state.messages[0]).toMatchObject({ content: "a 1234abcd b [PENDING SECRET 2]", redaction_pending: true });
    state = apply(state, { type: "redacted", data: { kin_id: "k", id: 31, content: "a 1234abcd b [SECRET: KEY]", redaction_pending: false } });
    expect(state.messages[0].redaction_pending).toBe(false);
  });

  it("never shows a message as waiting again once an event said its turn took it", () => {
    const sent = message(40, { status: "queued", content: "Soup?" });
    const reply = message(41, { role: "assistant", source: null, content: "Leek soup.", turn_of: 40 });
    // The answer to the send arrives after the whole reply went by on the stream.
    let state = apply(
      emptyChat,
      { type: "message", message: sent },
      { type: "status", data: { kin_id: "k", id: 40, status: "processing" } },
      { type: "message", message: reply },
      { type: "status", data: { kin_id: "k", id: 40, status: "done" } },
      { type: "message", message: sent },
    );
    expect(state.messages.find((m) => m.id === 40)?.status).toBe("done");
    // A history page read before those events does not take them back either.
    state = apply(state, { type: "page", messages: [sent], nextBefore: null });
    expect(state.messages.find((m) => m.id === 40)?.status).toBe("done");
  });

  it("applies a status event that came before the page holding its message", () => {
    const state = apply(
      emptyChat,
      { type: "status", data: { kin_id: "k", id: 50, status: "processing" } },
      { type: "status", data: { kin_id: "k", id: 51, status: "done" } },
      { type: "page", messages: [message(50, { status: "queued" }), message(51, { status: "queued" }), message(52, { status: "queued" })], nextBefore: null },
    );
    expect(state.messages.map((m) => m.status)).toEqual(["processing", "done", "queued"]);
  });

  it("takes a message a stored reply answers as answered, whatever the order of events", () => {
    const state = apply(
      emptyChat,
      { type: "message", message: message(60, { status: "queued" }) },
      { type: "message", message: message(61, { status: "queued" }) },
      { type: "message", message: message(62, { role: "assistant", source: null, content: "For both of you: soup.", turn_of: 60, status: null }) },
    );
    expect(state.messages.map((m) => m.status)).toEqual(["processing", "queued", null]);
  });

  it("marks a retry's old reply superseded, even against a page read before the retry", () => {
    const old = message(71, { role: "assistant", source: null, content: "Oops", turn_of: 70 });
    let state = apply(emptyChat, { type: "superseded", data: { kin_id: "k", ids: [71, 72] } });
    state = apply(state, { type: "page", messages: [message(70), old], nextBefore: null });
    expect(state.messages.map((m) => Boolean(m.superseded))).toEqual([false, true]);
    state = apply(state, { type: "message", message: message(73, { role: "assistant", source: null, content: "Better", turn_of: 70, meta: null, superseded: false }) });
    expect(state.messages.map((m) => Boolean(m.superseded))).toEqual([false, true, false]);
    // A retry that queues the message again: its superseded reply does not make it answered.
    const requeued = apply(emptyChat, { type: "page", messages: [message(70, { status: "queued" }), { ...old, superseded: true }], nextBefore: null });
    expect(requeued.messages[0].status).toBe("queued");
  });

  it("clears a stopped turn's streamed text when its stored reply arrives, late text included", () => {
    const delta = (at: number, text: string) => ({ type: "delta" as const, data: { kin_id: "k", turn: 80, step: 80, at, text } });
    let state = apply(emptyChat, { type: "message", message: message(80, { status: "processing" }) }, delta(0, "Once upon"));
    state = apply(state, { type: "message", message: message(81, { role: "assistant", source: null, content: "Once upon", turn_of: 80, meta: { stopped: true } }) });
    expect(state.streaming).toEqual({});
    state = apply(state, delta(9, " a time"), { type: "tool", data: { kin_id: "k", turn: 80, id: "c", name: "web_search", status: "running" } });
    state = apply(state, { type: "status", data: { kin_id: "k", id: 80, status: "cancelled" } }, delta(16, "!"));
    expect(state.streaming).toEqual({});
    expect(state.messages.map((m) => m.content)).toEqual(["m80", "Once upon"]);
  });

  it("shows a window around an older message, and new messages only once the newer pages join it", () => {
    let state = apply(emptyChat, { type: "page", messages: [message(500), message(501)], nextBefore: 500 });
    state = apply(state, { type: "window", messages: [message(100), message(101), message(102)], nextBefore: 100, nextAfter: 102 });
    expect(state.messages.map((m) => m.id)).toEqual([100, 101, 102]);
    state = apply(state, { type: "message", message: message(502) }, { type: "status", data: { kin_id: "k", id: 101, status: "failed" } });
    expect(state.messages.map((m) => m.id)).toEqual([100, 101, 102]);
    expect(state.messages[1].status).toBe("failed");
    state = apply(state, { type: "newer", messages: [message(103), message(502)], nextAfter: null });
    expect(state.messages.map((m) => m.id)).toEqual([100, 101, 102, 103, 502]);
    state = apply(state, { type: "message", message: message(503) });
    expect(state.messages.at(-1)?.id).toBe(503);
  });
});

describe("originOf", () => {
  it("tells every source apart", () => {
    expect(originOf(message(1), "u-me")).toBe("me");
    expect(originOf(message(1, { sender_id: "u-marie" }), "u-me")).toBe("user");
    expect(originOf(message(1, { source: "kin", sender_id: "k-penny" }), "u-me")).toBe("kin");
    expect(originOf(message(1, { source: "task", sender_id: "t-1" }), "u-me")).toBe("task");
    expect(originOf(message(1, { source: "cron", sender_id: "t-2" }), "u-me")).toBe("cron");
    expect(originOf(message(1, { role: "assistant", source: null }), "u-me")).toBe("assistant");
    expect(originOf(message(1, { role: "tool", source: null }), "u-me")).toBe("tool");
    expect(originOf(message(1, { role: "system", source: "system" }), "u-me")).toBe("system");
    expect(originOf(message(1, { role: "system", source: "system", is_error: true }), "u-me")).toBe("error");
  });
});
