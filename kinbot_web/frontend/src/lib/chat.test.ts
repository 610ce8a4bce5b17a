import { describe, expect, it } from "vitest";

import { chatReducer, emptyChat, originOf, type ChatState } from "./chat";
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
      { type: "delta", data: { kin_id: "k", turn: 20, text: "Hel" } },
      { type: "delta", data: { kin_id: "k", turn: 20, text: "lo" } },
    );
    expect(state.streaming).toEqual({ 20: "Hello" });
    state = apply(state, { type: "message", message: message(21, { role: "assistant", source: null, content: "Hello", turn_of: 20 }) });
    expect(state.streaming).toEqual({});
    expect(state.messages.at(-1)?.content).toBe("Hello");
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
