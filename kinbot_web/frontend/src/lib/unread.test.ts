import { describe, expect, it } from "vitest";

import type { Attachment, Message } from "./types";
import { addUnread, clearUnread, isReply, MAX_TRACKED, titleWith, totalUnread, withoutIds } from "./unread";

function message(fields: Partial<Message>): Message {
  return {
    id: 1, kin_id: "chef", role: "assistant", source: null, sender_id: null, sender_name: null, content: "Soup tonight.",
    tool_calls: null, tool_call_id: null, is_error: false, status: null, turn_of: 1, created_at: 1, attachments: null,
    ...fields,
  };
}

describe("unread replies", () => {
  it("count each message once per Kin, and clear per Kin", () => {
    let unread = addUnread({}, "chef", 10);
    unread = addUnread(unread, "chef", 11);
    unread = addUnread(unread, "chef", 10); // the same message from another tab or a replay
    unread = addUnread(unread, "penny", 12);
    expect(totalUnread(unread, ["chef", "penny"])).toBe(3);
    expect(totalUnread(unread, ["chef"])).toBe(2); // a deleted Kin's do not count
    unread = clearUnread(unread, "chef");
    expect(unread).toEqual({ penny: [12] });
    expect(clearUnread(unread, "chef")).toBe(unread);
    // A retry's superseded reply is no longer waiting to be read.
    expect(withoutIds(addUnread(unread, "penny", 13), "penny", [12])).toEqual({ penny: [13] });
    expect(withoutIds(unread, "penny", [12])).toEqual({});
  });

  it("keep a bounded list per Kin", () => {
    let unread = {};
    for (let id = 0; id < MAX_TRACKED + 20; id++) unread = addUnread(unread, "chef", id);
    expect(totalUnread(unread, ["chef"])).toBe(MAX_TRACKED);
    expect(titleWith(MAX_TRACKED, "KinBot")).toBe("(99+) KinBot");
  });

  it("are what a Kin says, not tool calls, people's messages or superseded replies", () => {
    expect(isReply(message({}))).toBe(true);
    expect(isReply(message({ content: "", tool_calls: [{ id: "c", name: "web_search" }] }))).toBe(false);
    expect(isReply(message({ role: "user", source: "user" }))).toBe(false);
    expect(isReply(message({ role: "tool" }))).toBe(false);
    expect(isReply(message({ superseded: true }))).toBe(false);
    const sunset: Attachment = { id: "u1", filename: "sunset.png", mime_type: "image/png", kind: "image", size: 120, url: "/api/uploads/u1" };
    expect(isReply(message({ content: "", attachments: [sunset] }))).toBe(true);
    expect(isReply(message({ role: "system", is_error: true, content: "Could not answer" }))).toBe(true);
  });

  it("show in the title", () => {
    expect(titleWith(0, "KinBot")).toBe("KinBot");
    expect(titleWith(2, "KinBot")).toBe("(2) KinBot");
  });
});
