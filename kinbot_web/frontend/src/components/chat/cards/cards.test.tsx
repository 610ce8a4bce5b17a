// @vitest-environment jsdom
import { act, cleanup, fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";

import i18n from "@/i18n";
import { ToastProvider } from "@/components/ui/toast";
import type { Message } from "@/lib/types";

import { LiveTurns, MessageView } from "../message-view";
import { formatSize } from "./attachments";
import type { MessageWithMeta } from "./meta";

const kin = { id: "k-chef", name: "Chef", avatar_url: null };
const me = { id: "u-nico" };

function message(fields: Partial<MessageWithMeta>): MessageWithMeta {
  return {
    id: 1, kin_id: "k-chef", role: "user", source: "user", sender_id: "u-nico", sender_name: "Nico", content: "Hello",
    tool_calls: null, tool_call_id: null, is_error: false, status: "done", turn_of: null, created_at: 1796217600,
    attachments: null, meta: null, superseded: false, ...fields,
  };
}

/** The messages as a chat shows them, under the toasts' provider. */
function show(...messages: Partial<MessageWithMeta>[]) {
  return render(
    <ToastProvider>
      {messages.map((fields, index) => {
        const shown = message({ id: index + 1, ...fields });
        return <MessageView key={shown.id} message={shown as Message} me={me} kin={kin} />;
      })}
    </ToastProvider>,
  ).container;
}

const soup = { task_title: "Leek and potato soup", worker_name: "Chef", spawned_self: true, result: "Leeks, potatoes, **cream**.", error: null, cron_name: null };
const delivery = { role: "user" as const, source: "task", sender_id: "task_b5436225920d", sender_name: "Leek and potato soup", task_id: "task_b5436225920d", status: "done" as const };

afterEach(async () => {
  cleanup();
  vi.unstubAllGlobals();
  await i18n.changeLanguage("en");
});

describe("task and cron cards", () => {
  it("says whose helper finished what, links to the task, and expands to the result", async () => {
    const page = show({ ...delivery, kin_message_type: "task_result", content: "Task task_b5436225920d completed. Result:\nLeeks…", meta: soup });
    const card = page.querySelector<HTMLElement>("[data-task-card='task_result']")!;
    expect(card.dataset.origin).toBe("task");
    expect(within(card).getByText("Chef's helper finished: Leek and potato soup")).toBeTruthy();
    expect(within(card).getByRole("link", { name: "Open the task" }).getAttribute("href")).toBe("/tasks/task_b5436225920d");
    const summary = within(card).getByText("Show the result");
    expect(summary.closest("details")?.open).toBe(false);
    fireEvent.click(summary);
    // The Markdown renderer loads lazily (slowly on a busy machine).
    expect(await within(card).findByText("cream", { selector: "strong" }, { timeout: 15_000 })).toBeTruthy();
    expect(card.textContent).not.toMatch(/task_/);
  });

  it("names another Kin doing the task, and says it failed or was cancelled", () => {
    const page = show(
      { ...delivery, kin_message_type: "task_failed", content: "Task task_1 failed: no leeks", meta: { ...soup, worker_name: "Léa", spawned_self: false, result: null, error: "No leeks left." } },
      { ...delivery, kin_message_type: "task_cancelled", content: "Task task_1 was cancelled.", meta: { ...soup, worker_name: "Léa", spawned_self: false, result: null } },
    );
    const failed = page.querySelector<HTMLElement>("[data-task-card='task_failed']")!;
    expect(within(failed).getByText("Léa could not finish: Leek and potato soup")).toBeTruthy();
    expect(within(failed).getByText("What went wrong")).toBeTruthy();
    expect(failed.querySelector("[data-task-body]")?.textContent).toContain("No leeks left.");
    const cancelled = page.querySelector<HTMLElement>("[data-task-card='task_cancelled']")!;
    expect(within(cancelled).getByText("Task cancelled: Leek and potato soup (Léa)")).toBeTruthy();
    expect(cancelled.querySelector("details")).toBeNull();
  });

  it("names a cron's run by the cron, in French too", async () => {
    const cron = { ...delivery, source: "cron", sender_name: "Morning briefing", kin_message_type: "task_result", content: "Scheduled run (task task_e98) completed. Result:\nSunny.", meta: { ...soup, task_title: "Morning briefing", cron_name: "morning briefing", result: "Sunny." } };
    let card = show(cron).querySelector<HTMLElement>("[data-task-card]")!;
    expect(card.dataset.origin).toBe("cron");
    expect(within(card).getByText("Scheduled: morning briefing finished")).toBeTruthy();
    cleanup();
    await act(() => i18n.changeLanguage("fr"));
    card = show(cron).querySelector<HTMLElement>("[data-task-card]")!;
    expect(within(card).getByText("Programmé : morning briefing terminé")).toBeTruthy();
    cleanup();
    card = show({ ...delivery, kin_message_type: "task_result", content: "x", meta: soup }).querySelector<HTMLElement>("[data-task-card]")!;
    expect(within(card).getByText("L'assistant de Chef a terminé : Leek and potato soup")).toBeTruthy();
    expect(within(card).getByRole("link", { name: "Ouvrir la tâche" })).toBeTruthy();
  });

  it("words a failure from its code in the reader's language, as the task's page does", async () => {
    const english = "OpenAI is unavailable (500). Internal Server Error (fake OpenAI).";
    const failed = {
      ...delivery, source: "cron", sender_name: "Menu du jour", kin_message_type: "task_failed", content: `Scheduled run failed: ${english}`,
      meta: { ...soup, task_title: "Menu du jour", cron_name: "Menu du jour", result: null, error: english, error_code: "provider_failed", error_detail: "Internal Server Error (fake OpenAI)." },
    };
    await act(() => i18n.changeLanguage("fr"));
    const card = show(failed).querySelector<HTMLElement>("[data-task-card='task_failed']")!;
    fireEvent.click(within(card).getByText("Ce qui n'a pas marché"));
    const body = card.querySelector<HTMLElement>("[data-task-body]")!;
    expect(body.textContent).toContain("Le fournisseur d'IA n'a pas su répondre au Kin qui s'en chargeait.");
    expect(body.textContent).toContain("Le fournisseur a répondu : Internal Server Error (fake OpenAI).");
    expect(body.textContent).not.toContain("unavailable (500)");
    cleanup();
    // One stored before codes keeps the sentence it has.
    const old = show({ ...failed, meta: { ...failed.meta, error_code: undefined, error_detail: undefined } }).querySelector<HTMLElement>("[data-task-body]")!;
    expect(old.textContent).toContain(english);
  });

  it("reads a delivery stored before meta existed without showing its ids", () => {
    const page = show(
      { ...delivery, kin_message_type: "task_result", content: "Task task_b5436225920d completed. Result:\nThree soups." },
      { ...delivery, source: "cron", sender_name: "Sunday plan", kin_message_type: "task_failed", content: "Scheduled run (task task_e98a) failed: The model was down." },
      { ...delivery, kin_message_type: "task_cancelled", content: "Task task_b5436225920d was cancelled. Its parent task ended." },
    );
    const cards = [...page.querySelectorAll<HTMLElement>("[data-task-card]")];
    expect(cards.map((card) => card.getAttribute("aria-label"))).toEqual([
      "A task finished: Leek and potato soup",
      "Scheduled: Sunday plan failed",
      "Task cancelled: Leek and potato soup (A task)",
    ]);
    expect(cards[0].querySelector("[data-task-body]")?.textContent).toContain("Three soups.");
    expect(cards[1].querySelector("[data-task-body]")?.textContent).toContain("The model was down.");
    expect(page.textContent).not.toMatch(/task_/);
  });
});

describe("messages from other Kins", () => {
  it("say whether they ask, answer or inform", () => {
    const from = { role: "user" as const, source: "kin", sender_id: "k-lea", sender_name: "Léa", content: "Dinner at 8?" };
    const page = show(
      { ...from, kin_message_type: "request", request_id: "req_1" },
      { ...from, kin_message_type: "inform", request_id: "req_2", content: "Yes." },
      { ...from, kin_message_type: "inform", request_id: null, content: "FYI." },
    );
    expect([...page.querySelectorAll("[data-kin-message]")].map((line) => line.textContent)).toEqual(["Request from Léa", "Reply from Léa", "Message from Léa"]);
    expect(page.textContent).not.toContain("req_");
  });
});

describe("tool cards", () => {
  const call = (id: string, name: string, args: unknown) => ({ id, name, arguments: args });
  const trigger = { id: 1, role: "user" as const, content: "Remember that Léo is allergic to peanuts", status: "processing" as const };

  it("pair each call with its result, expandable to both", () => {
    const page = show(
      trigger,
      { role: "assistant", source: null, content: "", turn_of: 1, tool_calls: [call("c1", "memorize", { content: "Léo is allergic to peanuts", category: "fact" }), call("c2", "web_search", { query: "weather Lyon" })] },
      { role: "tool", source: "kin", sender_name: "memorize", content: '{"id": 7, "status": "stored"}', tool_call_id: "c1", turn_of: 1 },
      { role: "tool", source: "kin", sender_name: "web_search", content: "No search provider.", tool_call_id: "c2", turn_of: 1, is_error: true },
    );
    const remembered = page.querySelector<HTMLElement>("[data-tool-card='memorize']")!;
    expect(remembered.dataset.state).toBe("done");
    expect(within(remembered).getByText("Remembered: Léo is allergic to peanuts")).toBeTruthy();
    expect(remembered.querySelector("[data-tool-result]")?.textContent).toContain('"status": "stored"');
    expect(remembered.textContent).toContain('"category": "fact"');
    expect(remembered.tagName).toBe("DETAILS");
    const search = page.querySelector<HTMLElement>("[data-tool-card='web_search']")!;
    expect(search.dataset.state).toBe("failed");
    expect(within(search).getByText("Failed")).toBeTruthy();
    expect(search.querySelector("[data-tool-result]")?.textContent).toBe("No search provider.");
    // The results show in their cards only.
    expect(page.querySelectorAll("[data-origin]").length).toBe(1);
  });

  it("show a call running until its result arrives, and without result once the turn ended", () => {
    const calls = { role: "assistant" as const, source: null, content: "", turn_of: 1, tool_calls: [call("c1", "spawn_self", { task_description: "Find a soup" })] };
    let card = show(trigger, calls).querySelector<HTMLElement>("[data-tool-card]")!;
    expect(card.dataset.state).toBe("running");
    expect(within(card).getByText("Running")).toBeTruthy();
    expect(within(card).getByText("Asked a helper to: Find a soup")).toBeTruthy();
    cleanup();
    card = show({ ...trigger, status: "failed" }, calls).querySelector<HTMLElement>("[data-tool-card]")!;
    expect(card.dataset.state).toBe("none");
  });

  it("replace the running turn's tool line once the reply with the call shows", () => {
    const tools = { 1: [{ id: "c1", name: "spawn_self", status: "running" as const }, { id: "c9", name: "wait_for_oven", status: "running" as const }] };
    const { container } = render(
      <ToastProvider>
        <MessageView message={message(trigger)} me={me} kin={kin} />
        <MessageView message={message({ id: 2, role: "assistant", source: null, content: "", turn_of: 1, tool_calls: [call("c1", "spawn_self", { task_description: "Find a soup" })] })} me={me} kin={kin} />
        <LiveTurns chat={{ streaming: {}, tools }} name="Chef" />
      </ToastProvider>,
    );
    expect([...container.querySelectorAll("[data-running-tool]")].map((element) => element.tagName + ":" + element.getAttribute("data-running-tool"))).toEqual([
      "DETAILS:spawn_self",
      "LI:wait_for_oven",
    ]);
    expect(container.querySelector("li[data-running-tool]")?.textContent).toBe("Running wait for oven…");
  });

  it("never show what the Vault gave", () => {
    const page = show(
      trigger,
      { role: "assistant", source: null, content: "", turn_of: 1, tool_calls: [call("c1", "get_secret", { key: "WIFI_PASSWORD" })] },
      { role: "tool", source: "kin", sender_name: "get_secret", content: "[SECRET: WIFI_PASSWORD]", tool_call_id: "c1", turn_of: 1 },
    );
    const card = page.querySelector<HTMLElement>("[data-tool-card='get_secret']")!;
    expect(card.dataset.state).toBe("done");
    expect(card.textContent).toContain("Hidden: secrets never show in the chat.");
    expect(card.textContent).not.toContain("[SECRET");
  });
});

describe("errors, retries and replaced replies", () => {
  const failure = { role: "system" as const, source: "system", is_error: true, content: "Chef could not answer: The server at http://127.0.0.1:9/v1 failed (ClientResponseError)" };

  it("say what happened, keep the provider's words, and retry", async () => {
    const fetch = vi.fn(async () => new Response(JSON.stringify({ superseded: [2] }), { status: 202 }));
    vi.stubGlobal("fetch", fetch);
    const page = show({ id: 1, content: "Soup?" }, { ...failure, meta: { error_code: "provider_rate_limited", detail: "Rate limit reached for gpt-4o", retryable: true } });
    const alert = screen.getByRole("alert");
    expect(alert.textContent).toContain("Chef's AI provider is busy: too many requests for now.");
    expect(alert.querySelector("[data-error-detail]")?.textContent).toBe("The provider said: Rate limit reached for gpt-4o");
    fireEvent.click(within(alert).getByRole("button", { name: "Retry" }));
    await waitFor(() => expect(fetch).toHaveBeenCalledWith("/api/kins/k-chef/retry", expect.objectContaining({ method: "POST" })));
    expect(page.textContent).not.toContain("127.0.0.1");
  });

  it("show a refused retry as a toast in the user's language", async () => {
    vi.stubGlobal("fetch", vi.fn(async () => new Response(JSON.stringify({ error: { code: "kin_busy", message: "Chef is busy." } }), { status: 409 })));
    await act(() => i18n.changeLanguage("fr"));
    show({ id: 1, content: "Soup?" }, { ...failure, meta: { error_code: "provider_unreachable", detail: null, retryable: true } });
    expect(screen.getByRole("alert").textContent).toContain("Chef n'a pas pu joindre son fournisseur d'IA.");
    fireEvent.click(screen.getByRole("button", { name: "Réessayer" }));
    expect(await screen.findByText("Chef est en train de répondre ; réessayez quand il aura fini.")).toBeTruthy();
  });

  it("offer Retry on the latest error only, and not when it cannot help", () => {
    show({ ...failure, meta: { error_code: "provider_auth_failed", detail: null, retryable: false } });
    expect(screen.queryByRole("button", { name: "Retry" })).toBeNull();
    cleanup();
    show({ ...failure, meta: { error_code: "provider_failed", detail: null, retryable: true } }, { content: "Again?" });
    expect(screen.queryByRole("button", { name: "Retry" })).toBeNull();
  });

  it("dim a replaced reply, mark a stopped one, and offer to answer the latest again", async () => {
    const fetch = vi.fn(async () => new Response("{}", { status: 202 }));
    vi.stubGlobal("fetch", fetch);
    const page = show(
      { content: "Soup?" },
      { role: "assistant", source: null, content: "Leek soup.", superseded: true, turn_of: 1 },
      { role: "assistant", source: null, content: "Pumpkin so", meta: { stopped: true }, turn_of: 1 },
    );
    const [old, stopped] = [...page.querySelectorAll<HTMLElement>("[data-origin='assistant']")];
    expect(old.className).toContain("opacity-70");
    expect(within(old).getByText("Replaced")).toBeTruthy();
    expect(old.querySelector("[data-regenerate]")).toBeNull();
    expect(within(stopped).getByText("Stopped")).toBeTruthy();
    fireEvent.click(within(stopped).getByRole("button", { name: "Answer again" }));
    await waitFor(() => expect(fetch).toHaveBeenCalledWith("/api/kins/k-chef/retry", expect.objectContaining({ method: "POST" })));
  });

  it("offer neither Answer again nor Retry in a task's session, which is only read", () => {
    const reply = message({ id: 1, role: "assistant", source: null, content: "Booked." });
    const failed = message({ id: 2, role: "assistant", source: null, content: "", is_error: true, meta: { error_code: "provider_failed", detail: null, retryable: true } });
    for (const shown of [reply, failed]) {
      render(
        <ToastProvider>
          <MessageView message={shown as Message} me={me} kin={kin} readOnly />
        </ToastProvider>,
      );
      expect(screen.queryByRole("button", { name: "Answer again" })).toBeNull();
      expect(screen.queryByRole("button", { name: "Retry" })).toBeNull();
      cleanup();
    }
  });
});

describe("copying and attachments", () => {
  it("copies a message's text and says so", async () => {
    // jsdom has no clipboard and is no secure context: a recording clipboard stands in.
    const writeText = vi.fn(async () => undefined);
    Object.defineProperty(window, "isSecureContext", { value: true, configurable: true });
    Object.defineProperty(navigator, "clipboard", { value: { writeText }, configurable: true });
    show({ content: "Leeks, **potatoes**" });
    fireEvent.click(screen.getByRole("button", { name: "Copy the message" }));
    expect(await screen.findByText("Copied")).toBeTruthy();
    expect(screen.getByRole("status").textContent).toBe("Copied");
    expect(writeText).toHaveBeenCalledWith("Leeks, **potatoes**");
  });

  it("shows an image as a thumbnail opening a preview, and a file as a chip with its size", async () => {
    show({
      content: "Look",
      attachments: [
        { id: "u1", filename: "soup.jpg", mime_type: "image/jpeg", kind: "image", size: 120_000, url: "/api/uploads/u1" },
        { id: "u2", filename: "recipes.pdf", mime_type: "application/pdf", kind: "pdf", size: 1_500_000, url: "/api/uploads/u2" },
      ],
    });
    expect(screen.getByRole("link", { name: /recipes\.pdf/ }).textContent).toContain("PDF · 1.5 MB");
    fireEvent.click(screen.getByRole("button", { name: "Show soup.jpg larger" }));
    const dialog = await screen.findByRole("dialog", { name: "soup.jpg" });
    expect(within(dialog).getByRole("img", { name: "soup.jpg" }).getAttribute("src")).toBe("/api/uploads/u1");
    fireEvent.keyDown(dialog, { key: "Escape" });
    await waitFor(() => expect(screen.queryByRole("dialog")).toBeNull());
  });

  it("writes sizes as the UI language does", () => {
    const size = (bytes: number, language: string) => formatSize(bytes, language).replace(/\s/gu, " ");
    expect(size(1_500_000, "fr")).toBe("1,5 Mo");
    expect(size(2048, "en")).toBe("2 kB");
    expect(size(512, "en")).toBe("0.5 kB");
    expect(size(3_200_000_000, "fr")).toBe("3,2 Go");
  });
});
