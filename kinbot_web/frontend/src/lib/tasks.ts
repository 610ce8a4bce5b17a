/** Task helpers: the sidebar's running and recent lists, the question a task waits on. */
import type { Message, Task } from "./types";

const ACTIVE = new Set(["pending", "in_progress"]);

/** Whether a task is still pending or running. */
export function isActive(task: Pick<Task, "status">): boolean {
  return ACTIVE.has(task.status);
}

/**
 * The sidebar's two lists: the running tasks (as given), then the `limit` most recently
 * created finished ones, without a task that is in both answers twice.
 */
export function splitTasks(running: Task[], latest: Task[], limit = 5): { running: Task[]; recent: Task[] } {
  const active = running.filter(isActive);
  const runningIds = new Set(active.map((task) => task.id));
  const recent = latest
    .filter((task) => !isActive(task) && !runningIds.has(task.id))
    .sort((a, b) => b.created_at - a.created_at)
    .slice(0, limit);
  return { running: active, recent };
}

/**
 * The question a task waits on: the latest `request_input` call of its session while the
 * task is awaiting input, else null.
 */
export function pendingQuestion(task: Pick<Task, "awaiting_input">, messages: Message[]): string | null {
  if (!task.awaiting_input) return null;
  for (let index = messages.length - 1; index >= 0; index -= 1) {
    const call = messages[index].tool_calls?.findLast((one) => one.name === "request_input");
    if (!call) continue;
    const args = typeof call.arguments === "string" ? safeParse(call.arguments) : call.arguments;
    const question = (args as { question?: unknown } | null)?.question;
    return typeof question === "string" ? question : null;
  }
  return null;
}

function safeParse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}
