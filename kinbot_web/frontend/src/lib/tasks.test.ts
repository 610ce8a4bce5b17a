import { describe, expect, it } from "vitest";

import { isActive, pendingQuestion, splitTasks } from "./tasks";
import type { Message, Task, TaskStatus } from "./types";

function task(id: string, status: TaskStatus, created_at: number, fields: Partial<Task> = {}): Task {
  return {
    id, parent_kin_id: "k", kin_id: "k", session_kin_id: `s-${id}`, cron_id: null, title: id, description: "",
    mode: "await", status, awaiting_input: false, result: null, error: null, created_at, ...fields,
  };
}

function message(id: number, fields: Partial<Message> = {}): Message {
  return {
    id, kin_id: "s", role: "assistant", source: null, sender_id: null, sender_name: null, content: "",
    tool_calls: null, tool_call_id: null, is_error: false, status: null, turn_of: null, created_at: id, attachments: null,
    ...fields,
  };
}

describe("splitTasks", () => {
  it("lists the running tasks, then the latest finished ones, newest first and each once", () => {
    const running = [task("a", "in_progress", 5), task("b", "pending", 4)];
    const latest = [
      task("a", "in_progress", 5),
      task("c", "completed", 3),
      task("d", "failed", 6),
      task("e", "cancelled", 1),
      task("f", "completed", 2),
    ];
    const lists = splitTasks(running, latest, 3);
    expect(lists.running.map((t) => t.id)).toEqual(["a", "b"]);
    expect(lists.recent.map((t) => t.id)).toEqual(["d", "c", "f"]);
  });

  it("drops a task that ended since the running list was loaded from it", () => {
    const lists = splitTasks([task("a", "completed", 1)], [task("a", "completed", 1)]);
    expect(lists.running).toEqual([]);
    expect(lists.recent.map((t) => t.id)).toEqual(["a"]);
    expect(isActive(task("x", "pending", 0))).toBe(true);
    expect(isActive(task("x", "failed", 0))).toBe(false);
  });
});

describe("pendingQuestion", () => {
  const asked = [
    message(1, { tool_calls: [{ id: "c1", name: "request_input", arguments: { question: "Which city?" } }] }),
    message(2, { role: "tool", tool_call_id: "c1", content: "{}" }),
    message(3, { role: "user", content: "Rome" }),
    message(4, { tool_calls: [{ id: "c2", name: "web_search", arguments: {} }, { id: "c3", name: "request_input", arguments: '{"question": "Which day?"}' }] }),
  ];

  it("is the latest request_input question while the task awaits input", () => {
    expect(pendingQuestion({ awaiting_input: true }, asked)).toBe("Which day?");
    expect(pendingQuestion({ awaiting_input: true }, asked.slice(0, 3))).toBe("Which city?");
  });

  it("is null when nothing waits or no question is found", () => {
    expect(pendingQuestion({ awaiting_input: false }, asked)).toBeNull();
    expect(pendingQuestion({ awaiting_input: true }, [message(1, { content: "hi" })])).toBeNull();
    const broken = [message(1, { tool_calls: [{ id: "c", name: "request_input", arguments: "{not json" }] })];
    expect(pendingQuestion({ awaiting_input: true }, broken)).toBeNull();
  });
});
