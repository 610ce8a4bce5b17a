// @vitest-environment jsdom
import { cleanup, render as renderBare, screen } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";

import i18n from "@/i18n";
import type { Message } from "@/lib/types";

import { ToastProvider } from "@/components/ui/toast";

import { KinListItem } from "@/components/app/kin-list-item";

import { MessageView } from "../message-view";

const kin = { id: "k-chef", name: "Chef", avatar_url: null };

function failed(meta: Record<string, unknown>): Message {
  const message = {
    id: 7, kin_id: "k-chef", role: "system", source: "system", sender_id: null, sender_name: "KinBot",
    content: "Chef could not answer: The server at [address] ended the answer.", tool_calls: null, tool_call_id: null,
    is_error: true, status: "done", turn_of: 6, created_at: 1796217600, attachments: null, meta,
  };
  return message as unknown as Message;
}

function alertText(meta: Record<string, unknown>): string {
  renderBare(<MessageView message={failed(meta)} me={{ id: "u-nico" }} kin={kin} />, { wrapper: ToastProvider });
  return screen.getByRole("alert").textContent ?? "";
}

afterEach(async () => {
  cleanup();
  await i18n.changeLanguage("en");
});

describe("a turn that failed on the model's window or its server", () => {
  const overflow = { error_code: "context_overflow", detail: null, retryable: true, params: { window: 2048, needed: 3000 } };

  it("says the window and what the turn needs, with the numbers, in English", () => {
    const text = alertText(overflow);
    expect(text).toContain("Chef's model has a 2,048-token window; KinBot needs about 3,000 for this turn: raise the model's context size or choose a larger model.");
    expect(text).not.toMatch(/127\.0\.0\.1|https?:\/\//);
  });

  it("says it in French, numbers as French writes them", async () => {
    await i18n.changeLanguage("fr");
    const text = alertText(overflow).replace(/\s/g, " ");
    expect(text).toContain("Le modèle de Chef a une fenêtre de 2 048 jetons ; KinBot en a besoin d'environ 3 000 pour ce tour");
  });

  it("words an overflow without numbers, a model not pulled and a server still starting", () => {
    expect(alertText({ error_code: "context_overflow", detail: null, retryable: true })).toContain("too long for the context window of Chef's model");
    cleanup();
    expect(alertText({ error_code: "model_not_loaded", detail: null, retryable: true, params: { model: "llama3.2" } })).toContain(
      "Chef's model llama3.2 is not ready on its server: pull or load it there (with Ollama: ollama pull llama3.2)",
    );
    cleanup();
    expect(alertText({ error_code: "provider_starting", detail: null, retryable: true })).toContain("Chef's model server is still starting");
  });

  it("words them in French too, a model named or not", async () => {
    await i18n.changeLanguage("fr");
    expect(alertText({ error_code: "context_overflow", detail: null, retryable: true, params: { window: 2048 } }).replace(/\s/g, " ")).toContain(
      "Le modèle de Chef a une fenêtre de 2 048 jetons, trop petite pour ce tour",
    );
    cleanup();
    expect(alertText({ error_code: "model_not_loaded", detail: null, retryable: true, params: { model: "llama3.2" } })).toContain(
      "Le modèle llama3.2 de Chef n'est pas prêt sur son serveur : téléchargez-le ou chargez-le là-bas (avec Ollama : ollama pull llama3.2)",
    );
    cleanup();
    expect(alertText({ error_code: "model_not_loaded", detail: null, retryable: true })).toContain(
      "Le modèle de Chef n'est pas prêt sur son serveur : téléchargez-le ou chargez-le là-bas, ou choisissez un autre modèle.",
    );
    cleanup();
    const starting = alertText({ error_code: "provider_starting", detail: null, retryable: true });
    expect(starting).toContain("Le serveur du modèle de Chef est encore en train de démarrer (il charge le modèle) : réessayez dans un instant.");
    expect(starting).not.toMatch(/provider_starting|model_not_loaded/);
  });
});

describe("the sidebar's marker of a Kin whose last turn failed so", () => {
  function markerTitle(code: string): string {
    const errored = { id: "k-chef", name: "Chef", role: "Cook", avatar_url: null, state: "error" as const, queue_length: 0, last_error_code: code };
    const { container } = renderBare(<KinListItem kin={errored} />);
    return container.querySelector("title")?.textContent ?? "";
  }

  it("has a title of its own for each code, in English", () => {
    expect(markerTitle("context_overflow")).toBe("Chef's last turn did not fit its model's context window.");
    cleanup();
    expect(markerTitle("model_not_loaded")).toBe("Chef's model is not ready on its server.");
    cleanup();
    expect(markerTitle("provider_starting")).toBe("Chef's model server was still starting.");
  });

  it("and in French", async () => {
    await i18n.changeLanguage("fr");
    expect(markerTitle("context_overflow")).toBe("Le dernier tour de Chef ne tenait pas dans la fenêtre de contexte de son modèle.");
    cleanup();
    expect(markerTitle("model_not_loaded")).toBe("Le modèle de Chef n'est pas prêt sur son serveur.");
    cleanup();
    expect(markerTitle("provider_starting")).toBe("Le serveur du modèle de Chef était encore en train de démarrer.");
  });

  it("keeps the chat's words for the other codes", () => {
    expect(markerTitle("provider_unreachable")).toBe("Chef could not reach its AI provider.");
  });
});
