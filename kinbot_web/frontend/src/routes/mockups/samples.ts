/** Sample objects for the design page and the mock-ups (shaped exactly like the API's). */
import type { Kin, Message, User } from "@/lib/types";

const now = 1796217600;

export const sampleMe: User = {
  id: "u-nico", email: "nicolas@example.org", first_name: "Nicolas", last_name: "Durand", pseudonym: "Nico",
  language: "en", role: "admin", is_active: true, avatar_url: null, created_at: now,
};

function kin(id: string, name: string, role: string, extra: Partial<Kin> = {}): Kin {
  return {
    id, name, role, avatar_url: null, character: "", expertise: "", model: "gpt-4o", tools: [], network_access: false, created_by: "u-nico",
    state: "idle", last_error: null, last_error_code: null, queue_length: 0, created_at: now, updated_at: now, ...extra,
  };
}

export const sampleKins: Kin[] = [
  kin("k-chef", "Chef", "Family cook", { state: "thinking", queue_length: 2 }),
  kin("k-penny", "Penny", "Budget keeper"),
  kin("k-atlas", "Atlas", "Travel planner", { state: "error", last_error: "The provider did not answer.", last_error_code: "provider_unreachable" }),
  kin("k-scribe", "Scribe", "Writing partner"),
];

export const sampleTasks = [
  { id: "t-1", title: "Compare flights to Rome", kinName: "Atlas", status: "running" },
  { id: "t-2", title: "Weekly shopping list", kinName: "Chef", status: "waiting for input" },
];

let nextId = 100;
function message(fields: Partial<Message> & { meta?: Record<string, unknown>; superseded?: boolean }): Message {
  return {
    id: nextId++, kin_id: "k-chef", role: "user", source: "user", sender_id: "u-nico", sender_name: "Nico", content: "",
    tool_calls: null, tool_call_id: null, is_error: false, status: "done", turn_of: null, created_at: now + nextId * 60,
    attachments: null, ...fields,
  };
}

export const sampleMessages: Message[] = [
  message({ content: "What could we cook tonight? Something vegetarian, ready in 30 minutes." }),
  message({
    role: "assistant", source: null, sender_id: null, sender_name: null, status: null, turn_of: 100,
    content: "How about a **coconut chickpea curry**? You have everything but fresh coriander:\n\n1. Soften an onion and garlic\n2. Add curry paste, chickpeas and coconut milk\n3. Simmer 15 minutes, finish with lime",
  }),
  message({ sender_id: "u-marie", sender_name: "Marie", content: "Yes please! Can we make it less spicy for Léo?" }),
  message({ source: "kin", sender_id: "k-penny", sender_name: "Penny", kin_message_type: "request", request_id: "req_1", content: "This week's grocery budget has €18 left: does the curry fit?" }),
  message({
    source: "task", sender_id: "t-2", sender_name: "Weekly shopping list", kin_message_type: "task_result", task_id: "t-2", content: "Shopping list ready: coriander, limes, coconut milk (2).",
    meta: { task_title: "Weekly shopping list", worker_name: "Chef", spawned_self: true, result: "Shopping list ready: coriander, limes, coconut milk (2).", error: null, cron_name: null },
  }),
  message({
    source: "cron", sender_id: "c-1", sender_name: "Sunday meal plan", kin_message_type: "task_result", task_id: "c-1", content: "Next week's meal plan is drafted and waiting for your review.",
    meta: { task_title: "Sunday meal plan", worker_name: "Chef", spawned_self: true, result: "Next week's meal plan is drafted and waiting for your review.", error: null, cron_name: "Sunday meal plan" },
  }),
  message({
    role: "system", source: "system", sender_id: null, sender_name: null, is_error: true, status: null, turn_of: 100, content: "Chef could not answer.",
    meta: { error_code: "provider_unreachable", detail: "Connection timed out after 30 seconds.", retryable: true },
  }),
  message({
    role: "assistant", source: null, sender_id: null, sender_name: null, status: null, turn_of: 100,
    content: "", tool_calls: [{ id: "c1", name: "recall", arguments: { query: "Léo spice" } }, { id: "c2", name: "web_search", arguments: { query: "mild chickpea curry" } }],
  }),
  message({ role: "tool", source: "kin", sender_name: "recall", tool_call_id: "c1", turn_of: 100, content: '[{"content": "Léo does not like spicy food."}]' }),
  message({ role: "tool", source: "kin", sender_name: "web_search", tool_call_id: "c2", turn_of: 100, content: '[{"title": "Mild chickpea curry", "url": "https://example.org/curry"}]' }),
  message({ content: "And a dessert?", status: "queued" }),
];

export const sampleCode = "```python\ndef simmer(minutes: int) -> str:\n    return f\"Simmer for {minutes} minutes\"\n```";
