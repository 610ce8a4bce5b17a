// @vitest-environment jsdom
import { cleanup, render as renderBare, screen, within } from "@testing-library/react";
import * as React from "react";
import { afterEach, describe, expect, it } from "vitest";

import "@/i18n";
import type { Attachment, Message } from "@/lib/types";

import { formatTime } from "@/components/ui/chat-bubble";
import { ToastProvider } from "@/components/ui/toast";

import { MessageView } from "./message-view";

const kin = { id: "k-chef", name: "Chef", avatar_url: null };
const me = { id: "u-nico" };

function message(fields: Partial<Message>): Message {
  return {
    id: 1, kin_id: "k-chef", role: "user", source: "user", sender_id: "u-nico", sender_name: "Nico", content: "Hello",
    tool_calls: null, tool_call_id: null, is_error: false, status: "done", turn_of: null, created_at: 1796217600,
    attachments: null, ...fields,
  };
}

/** Rendered as the app does: under the toasts' provider (a retry's refusal shows as a toast). */
function render(element: React.ReactElement) {
  return renderBare(element, { wrapper: ToastProvider });
}

function bubble(fields: Partial<Message>) {
  const { container } = render(<MessageView message={message(fields)} me={me} kin={kin} />);
  return container.querySelector<HTMLElement>("[data-origin]");
}

afterEach(cleanup);

/** How long to wait for a lazily loaded renderer at most (a busy machine loads it slowly). */
const LAZY = { timeout: 15_000 };

describe("MessageView with secrets hidden on arrival", () => {
  const hidden = { content: "my token is [PENDING SECRET 1], keep it", redaction_pending: true };

  it("shows a chip where the secret was and says it was hidden; the sender gets its actions", () => {
    const element = bubble(hidden);
    const chip = element!.querySelector<HTMLElement>("[data-pending-secret='1']");
    expect(chip?.textContent).toBe("Secret 1 hidden");
    expect(chip?.tagName).toBe("BUTTON");
    expect(element!.textContent).not.toContain("[PENDING SECRET 1]");
    expect(element!.querySelector("[data-secret-note]")?.textContent).toContain("Chef can store it in the Vault");
  });

  it("gives another member a plain chip, and an administrator the actions", () => {
    const { container } = render(<MessageView message={message({ ...hidden, sender_id: "u-marie", sender_name: "Marie" })} me={me} kin={kin} />);
    expect(container.querySelector("[data-pending-secret='1']")?.tagName).toBe("SPAN");
    cleanup();
    const admin = render(<MessageView message={message({ ...hidden, sender_id: "u-marie" })} me={{ id: "u-nico", role: "admin" }} kin={kin} />);
    expect(admin.container.querySelector("[data-pending-secret='1']")?.tagName).toBe("BUTTON");
  });

  it("shows the text as usual once nothing is hidden any more", () => {
    const element = bubble({ content: "my token is [SECRET: GITHUB_TOKEN], keep it", redaction_pending: false });
    expect(element!.querySelector("[data-pending-secret]")).toBeNull();
    expect(element!.querySelector("[data-secret-note]")).toBeNull();
  });
});

describe("MessageView", () => {
  it("shows the signed-in user's message as theirs, on the right", () => {
    const element = bubble({});
    expect(element?.dataset.origin).toBe("me");
    expect(element?.className).toContain("flex-row-reverse");
    expect(within(element!).getByText("You")).toBeTruthy();
  });

  it("names another user", () => {
    const element = bubble({ sender_id: "u-marie", sender_name: "Marie" });
    expect(element?.dataset.origin).toBe("user");
    expect(within(element!).getByText("Marie")).toBeTruthy();
  });

  it("shows a task's question with how to answer it and a link to the task", () => {
    const element = bubble({
      source: "task", sender_id: "task_1", sender_name: "Book a flight", content: "Which city?",
      kin_message_type: "task_input", task_id: "task_1", status: "queued",
    })!;
    const hint = element.querySelector<HTMLElement>("[data-task-question]")!;
    expect(within(hint).getByText("Book a flight asks a question")).toBeTruthy();
    expect(within(hint).getByText(/Chef passes your answer on/)).toBeTruthy();
    expect(within(hint).getByRole("link", { name: "Open the task" }).getAttribute("href")).toBe("/tasks/task_1");
    const report = bubble({ source: "task", sender_name: "Book a flight", kin_message_type: "task_report", task_id: "task_1" })!;
    expect(report.querySelector("[data-task-question]")).toBeNull();
  });

  it("shows a task's question without the task's id or the model's instruction", () => {
    const stored = "Task task_0c53 asks you: Which city?\nAnswer it with respond_to_task(task_id='task_0c53', answer).";
    for (const meta of [{ question: "Which city?" }, null]) {
      const element = bubble({ source: "task", sender_name: "Book a flight", content: stored, kin_message_type: "task_input", task_id: "task_0c53", meta })!;
      expect(within(element).getByText("Which city?")).toBeTruthy();
      expect(element.textContent).not.toContain("task_0c53");
      expect(element.textContent).not.toContain("respond_to_task");
      cleanup();
    }
  });

  it("marks another Kin, a task and a cron with their names", () => {
    expect(within(bubble({ source: "kin", sender_id: "k-penny", sender_name: "Penny" })!).getByText("Penny")).toBeTruthy();
    cleanup();
    const task = bubble({ source: "task", sender_id: "t-1", sender_name: "Compare flights" })!;
    expect(task.dataset.origin).toBe("task");
    expect(within(task).getByText(/Task · Compare flights/)).toBeTruthy();
    cleanup();
    const cron = bubble({ source: "cron", sender_id: "t-2", sender_name: "Sunday meal plan" })!;
    expect(cron.dataset.origin).toBe("cron");
    expect(within(cron).getByText(/Scheduled · Sunday meal plan/)).toBeTruthy();
  });

  it("names the Kin on its own replies", () => {
    const element = bubble({ role: "assistant", source: null, sender_id: null, sender_name: null, content: "Curry?" })!;
    expect(element.dataset.origin).toBe("assistant");
    expect(within(element).getByText("Chef")).toBeTruthy();
  });

  it("shows the files a Kin attached to its reply: images inline, others as a download", () => {
    const files: Attachment[] = [
      { id: "u1", filename: "sunset.png", mime_type: "image/png", kind: "image", size: 2048, url: "/api/uploads/u1" },
      { id: "u2", filename: "list.txt", mime_type: "text/plain", kind: "document", size: 12, url: "/api/uploads/u2" },
    ];
    const element = bubble({ role: "assistant", source: "kin", sender_id: "k-chef", sender_name: "Chef", content: "", attachments: files })!;
    expect(element.dataset.origin).toBe("assistant");
    expect(element.querySelector<HTMLImageElement>("[data-attachment-image] img")!.getAttribute("src")).toBe("/api/uploads/u1");
    expect(element.querySelector<HTMLAnchorElement>("[data-attachment-file]")!.getAttribute("href")).toBe("/api/uploads/u2");
  });

  it("shows errors as alerts and queued messages as waiting", () => {
    const error = bubble({ role: "system", source: "system", is_error: true, content: "Chef could not answer: The provider failed." })!;
    expect(error.dataset.origin).toBe("error");
    expect(screen.getByRole("alert").textContent).toContain("Chef could not answer.");
    expect(screen.getByRole("alert").textContent).toContain("The provider said: The provider failed.");
    cleanup();
    const queued = bubble({ status: "queued" })!;
    expect(within(queued).getByText("Waiting")).toBeTruthy();
  });

  it("renders Markdown without raw HTML, event handlers or script links", async () => {
    const content = 'Hi **there** <img src=x onerror="alert(1)"> [click](javascript:alert(2)) <script>alert(3)</script>';
    const element = bubble({ content })!;
    // The renderer is loaded lazily; the stored text shows meanwhile.
    expect(await within(element).findByText("there", { selector: "strong" }, LAZY)).toBeTruthy();
    expect(element.querySelector("img")).toBeNull();
    expect(element.querySelector("script")).toBeNull();
    expect(element.innerHTML).not.toContain("onerror");
    const link = within(element).getByText("click").closest("a");
    expect(link?.getAttribute("href") ?? "").not.toContain("javascript:");
  });

  it("writes a message's time of day as the language does", () => {
    const afternoon = new Date(2026, 11, 3, 14, 5).getTime() / 1000;
    const morning = new Date(2026, 11, 3, 0, 30).getTime() / 1000;
    expect(formatTime(afternoon, "12h")).toBe("2:05 PM");
    expect(formatTime(morning, "12h")).toBe("12:30 AM");
    expect(formatTime(afternoon, "24h")).toBe("14:05");
    expect(formatTime(morning, "24h")).toBe("00:30");
    const element = bubble({ created_at: afternoon })!;
    expect(element.querySelector("time")?.textContent).toBe("2:05 PM");
  });

  it("highlights a fenced code block's language, and only through the sanitiser's classes", async () => {
    const content = "Try:\n\n```python\ndef soup(): return 'leek'\n```";
    const element = bubble({ content })!;
    // highlight.js arrives after the Markdown renderer, for messages with code only.
    const keyword = await within(element).findByText("def", { selector: "span.hljs-keyword" }, LAZY);
    expect(keyword.closest("code")?.className).toContain("language-python");
    expect(within(element).getByText("'leek'", { selector: "span.hljs-string" })).toBeTruthy();
  });
});
