// @vitest-environment jsdom
import { cleanup, render as renderBare } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";

import i18n from "@/i18n";
import type { Message } from "@/lib/types";

import { ToastProvider } from "@/components/ui/toast";

import { MessageView } from "./message-view";
import { originMetaOf } from "./origin-badge";

const kin = { id: "k-home", name: "Majordome", avatar_url: null };

function message(fields: Partial<Message> & { meta?: Record<string, unknown> | null }): Message {
  return {
    id: 1, kin_id: "k-home", role: "user", source: "webhook", sender_id: "w-1", sender_name: "Home Assistant", content: "event: door_opened",
    tool_calls: null, tool_call_id: null, is_error: false, status: "done", turn_of: null, created_at: 1796217600,
    attachments: null, ...fields,
  } as Message;
}

function badgeOf(fields: Parameters<typeof message>[0]) {
  const { container } = renderBare(<MessageView message={message(fields)} me={{ id: "u-nico" }} kin={kin} />, { wrapper: ToastProvider });
  return { bubble: container.querySelector<HTMLElement>("[data-origin]"), badge: container.querySelector<HTMLElement>("[data-origin-kind]") };
}

afterEach(async () => {
  cleanup();
  await i18n.changeLanguage("en");
});

describe("The origin badge", () => {
  it("shows a webhook's message as its sender's bubble, via its name, in words for everyone", () => {
    const { bubble, badge } = badgeOf({ meta: { origin: { kind: "webhook", label: "Home Assistant" } } });
    expect(bubble?.dataset.origin).toBe("user");
    expect(badge?.dataset.originKind).toBe("webhook");
    expect(badge?.title).toBe("Received through Home Assistant (webhook)");
    expect(badge?.querySelector("svg")?.getAttribute("aria-hidden")).toBe("true");
    expect(badge?.querySelector(".sr-only")?.textContent).toBe("Received through Home Assistant (webhook)");
    expect(badge?.textContent).toContain("via Home Assistant");
  });

  it("names a Kin's reply sent back to a channel, in French too", async () => {
    await i18n.changeLanguage("fr");
    const { badge } = badgeOf({ role: "assistant", source: "kin", meta: { origin: { kind: "telegram", label: "Telegram famille" } } });
    expect(badge?.dataset.originKind).toBe("telegram");
    expect(badge?.title).toBe("Renvoyé par Telegram famille (Telegram)");
    expect(badge?.textContent).toContain("via Telegram famille");
  });

  it("gives an unknown kind the generic icon and words, and nothing to a message without origin", () => {
    const { badge } = badgeOf({ source: "user", meta: { origin: { kind: "carrier_pigeon", label: "Pigeon" } } });
    expect(badge?.dataset.originKind).toBe("other");
    expect(badge?.title).toBe("Received through Pigeon (another service)");
    cleanup();
    expect(badgeOf({ source: "user", meta: null }).badge).toBeNull();
  });

  it("reads a malformed origin as none", () => {
    expect(originMetaOf({ meta: { origin: "webhook" } })).toBeNull();
    expect(originMetaOf({ meta: { origin: { kind: "webhook", label: "  " } } })).toBeNull();
    expect(originMetaOf({ meta: { origin: { kind: 3, label: "x" } } })).toBeNull();
    expect(originMetaOf({ meta: undefined })).toBeNull();
    expect(originMetaOf({ meta: { origin: { kind: "email", label: " Boîte " } } })).toEqual({ kind: "email", label: "Boîte" });
  });
});
