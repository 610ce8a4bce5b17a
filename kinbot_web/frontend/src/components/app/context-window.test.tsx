// @vitest-environment jsdom
import { act, cleanup, fireEvent, render, screen, waitFor } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";

import { ToastProvider } from "@/components/ui/toast";
import i18n from "@/i18n";
import type { Kin } from "@/lib/types";

import { type ContextWindow, KinContextWindow } from "./context-window";

afterEach(async () => {
  cleanup();
  vi.unstubAllGlobals();
  await act(() => i18n.changeLanguage("en"));
});

const KIN = { id: "k1", name: "Chef", model: "Local/qwen2.5:7b" } as Kin;
const SERVER: ContextWindow = { model: "Local/qwen2.5:7b", tokens: 2048, source: "server", given: null, may_set: true };

/** A server answering the card's route: `GET` with `shown`, `PUT` and `DELETE` with `answer`. */
function serve(shown: ContextWindow, answer: (method: string, body: unknown) => Response) {
  const fetch = vi.fn(async (_path: string, init?: RequestInit) =>
    init?.method === "PUT" || init?.method === "DELETE"
      ? answer(init.method, init.body ? JSON.parse(String(init.body)) : undefined)
      : new Response(JSON.stringify(shown), { status: 200 }),
  );
  vi.stubGlobal("fetch", fetch);
  return fetch;
}

function show() {
  render(
    <ToastProvider>
      <KinContextWindow kin={KIN} />
    </ToastProvider>,
  );
}

describe("KinContextWindow", () => {
  it("lets an administrator set the window by hand, then use the server's figure again", async () => {
    const fetch = serve(SERVER, (method, body) => {
      const given = method === "PUT" ? Number((body as { tokens: string }).tokens) : null;
      const answer = given === null ? SERVER : { ...SERVER, tokens: given, source: "admin", given };
      return new Response(JSON.stringify(answer), { status: 200 });
    });
    show();
    expect(await screen.findByText("2,048 tokens, reported by the server")).toBeTruthy();
    expect(screen.getByText(/the size the server really runs the model with/)).toBeTruthy();
    expect(screen.queryByRole("button", { name: "Use what the server says" })).toBeNull();
    const field = screen.getByLabelText("Window of qwen2.5:7b · Local (tokens)") as HTMLInputElement;
    const save = screen.getByRole("button", { name: "Save the window" }) as HTMLButtonElement;
    expect(save.disabled).toBe(true);
    fireEvent.change(field, { target: { value: "8192" } });
    fireEvent.submit(field.form as HTMLFormElement);
    await waitFor(() =>
      expect(fetch).toHaveBeenCalledWith("/api/kins/k1/context-window", expect.objectContaining({ method: "PUT", body: JSON.stringify({ tokens: "8192" }) })),
    );
    expect(await screen.findByText("8,192 tokens, set by an administrator")).toBeTruthy();
    expect(screen.getByText("Context window saved")).toBeTruthy();

    fireEvent.click(screen.getByRole("button", { name: "Use what the server says" }));
    await waitFor(() => expect(fetch).toHaveBeenCalledWith("/api/kins/k1/context-window", expect.objectContaining({ method: "DELETE" })));
    expect(await screen.findByText("2,048 tokens, reported by the server")).toBeTruthy();
    expect(screen.queryByRole("button", { name: "Use what the server says" })).toBeNull();
    expect(field.value).toBe("");
  });

  it("words a refusal in French under the field", async () => {
    await act(() => i18n.changeLanguage("fr"));
    serve(SERVER, () => new Response(JSON.stringify({ error: { code: "context_window_invalid", message: "No.", details: { min: 256, max: 100000000 } } }), { status: 400 }));
    show();
    const field = (await screen.findByLabelText("Fenêtre de qwen2.5:7b · Local (jetons)")) as HTMLInputElement;
    fireEvent.change(field, { target: { value: "12" } });
    fireEvent.click(screen.getByRole("button", { name: "Enregistrer la fenêtre" }));
    expect((await screen.findByRole("alert")).textContent).toBe("Une fenêtre de contexte est un nombre entier de jetons, de 256 à 100\u202f000\u202f000.");
    expect(field.getAttribute("aria-invalid")).toBe("true");
  });

  it("shows no form to a member", async () => {
    serve({ ...SERVER, may_set: false }, () => new Response("", { status: 500 }));
    show();
    expect(await screen.findByText("2,048 tokens, reported by the server")).toBeTruthy();
    expect(screen.queryByRole("button", { name: "Save" })).toBeNull();
    expect(screen.queryByText("Set by hand")).toBeNull();
  });
});
