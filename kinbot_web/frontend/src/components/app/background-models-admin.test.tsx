// @vitest-environment jsdom
import { act, cleanup, fireEvent, render, screen, waitFor } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";

import { ToastProvider } from "@/components/ui/toast";
import i18n from "@/i18n";

import { type BackgroundModels, BackgroundModelsAdmin } from "./background-models-admin";

afterEach(async () => {
  cleanup();
  vi.unstubAllGlobals();
  await act(() => i18n.changeLanguage("en"));
});

const SHOWN: BackgroundModels = {
  memory_extraction_model: "",
  compacting_model: "@kin",
  stored: { memory_extraction_model: false, compacting_model: false },
  own_model: "@kin",
  models: [
    { value: "OpenAI/gpt-4o", provider: "OpenAI", id: "gpt-4o", label: null, context_window: null, light: false },
    { value: "OpenAI/gpt-4o-mini", provider: "OpenAI", id: "gpt-4o-mini", label: null, context_window: null, light: true },
  ],
};

/** A server answering the route: the `GET` with `shown`, a `PUT` with `answer(body)`. */
function serve(shown: BackgroundModels, answer: (body: Record<string, string>) => Response) {
  const fetch = vi.fn(async (_path: string, init?: RequestInit) =>
    init?.method === "PUT" ? answer(JSON.parse(String(init.body))) : new Response(JSON.stringify(shown), { status: 200 }),
  );
  vi.stubGlobal("fetch", fetch);
  return fetch;
}

function show() {
  render(
    <ToastProvider>
      <BackgroundModelsAdmin />
    </ToastProvider>,
  );
}

describe("BackgroundModelsAdmin", () => {
  it("shows the models in force and what may be chosen, and saves a change with a toast", async () => {
    const fetch = serve(SHOWN, (body) => new Response(JSON.stringify({ ...SHOWN, ...body, stored: { memory_extraction_model: true, compacting_model: true } }), { status: 200 }));
    show();
    const extraction = (await screen.findByLabelText("Memory extraction model")) as HTMLSelectElement;
    const compacting = screen.getByLabelText("Compacting model") as HTMLSelectElement;
    expect(extraction.value).toBe("");
    expect(compacting.value).toBe("@kin");
    expect([...extraction.options].map((option) => option.text)).toEqual([
      "Cheapest model of each Kin's provider (recommended)",
      "Each Kin's own model",
      "gpt-4o · OpenAI",
      "gpt-4o-mini · OpenAI · cheapest of OpenAI",
    ]);
    // A value from the server's configuration says so until a choice is saved here.
    expect(screen.getByText("Set in the server's configuration until you save a choice here.")).toBeTruthy();
    expect(screen.getByText(/cheapest capable model of each Kin's provider/)).toBeTruthy();

    const save = screen.getByRole("button", { name: "Save" }) as HTMLButtonElement;
    expect(save.disabled).toBe(true); // nothing changed yet
    fireEvent.change(extraction, { target: { value: "OpenAI/gpt-4o-mini" } });
    fireEvent.change(compacting, { target: { value: "" } });
    expect(save.disabled).toBe(false);
    fireEvent.click(save);
    await waitFor(() =>
      expect(fetch).toHaveBeenCalledWith(
        "/api/settings/background-models",
        expect.objectContaining({ method: "PUT", body: JSON.stringify({ memory_extraction_model: "OpenAI/gpt-4o-mini", compacting_model: "" }) }),
      ),
    );
    expect(await screen.findByText("Models of background work saved")).toBeTruthy();
    await waitFor(() => expect(save.disabled).toBe(true));
    expect(screen.queryByText("Set in the server's configuration until you save a choice here.")).toBeNull();
  });

  it("speaks French, keeps a model no longer listed, and words a refusal", async () => {
    await act(() => i18n.changeLanguage("fr"));
    const gone = { ...SHOWN, compacting_model: "Old/llama3", stored: { memory_extraction_model: true, compacting_model: true } };
    serve(gone, () => new Response(JSON.stringify({ error: { code: "model_not_listed", message: "No.", details: { model: "Old/llama3" } } }), { status: 400 }));
    show();
    const compacting = (await screen.findByLabelText("Modèle des résumés de conversation")) as HTMLSelectElement;
    expect(compacting.value).toBe("Old/llama3");
    expect(compacting.selectedOptions[0].text).toBe("Old/llama3 (plus proposé)");
    const extraction = screen.getByLabelText("Modèle d'extraction des souvenirs") as HTMLSelectElement;
    expect(extraction.options[0].text).toBe("Le modèle le moins cher du fournisseur de chaque Kin (recommandé)");
    fireEvent.change(extraction, { target: { value: "@kin" } });
    fireEvent.click(screen.getByRole("button", { name: "Enregistrer" }));
    expect(await screen.findByText("Aucun fournisseur configuré ne propose le modèle « Old/llama3 » : choisissez l'un de leurs modèles.")).toBeTruthy();
  });
});
