// @vitest-environment jsdom
import { act, cleanup, fireEvent, render, screen } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";

import { ToastProvider } from "@/components/ui/toast";
import { api } from "@/lib/api";
import type { Kin } from "@/lib/types";

import { type ContextWindow, KinContextWindow } from "./context-window";
import { type KinMemory, KinMemories } from "./kin-memories";

// Each request's answer is given by the test, in the order it chooses.
vi.mock("@/lib/api", async (original) => ({ ...(await original<typeof import("@/lib/api")>()), api: vi.fn() }));
const asked: { path: string; answer: (value: unknown) => void }[] = [];
vi.mocked(api).mockImplementation((path: string) => new Promise((resolve) => asked.push({ path, answer: resolve })));

afterEach(() => {
  cleanup();
  asked.length = 0;
});

async function answer(index: number, value: unknown) {
  await act(async () => asked[index].answer(value));
}

const KIN = { id: "k1", name: "Chef", model: "Local/qwen2.5:7b" } as Kin;

describe("an answer that comes after a later one", () => {
  it("does not put back the window of the model the Kin had before", async () => {
    const window: ContextWindow = { model: KIN.model, tokens: 2048, source: "server", given: null, may_set: false };
    const card = (kin: Kin) => (
      <ToastProvider>
        <KinContextWindow kin={kin} />
      </ToastProvider>
    );
    const { rerender } = render(card(KIN));
    rerender(card({ ...KIN, model: "Local/llama3.1:8b" }));
    expect(asked).toHaveLength(2);
    await answer(1, { ...window, model: "Local/llama3.1:8b", tokens: 8192 });
    expect(screen.getByText("8,192 tokens, reported by the server")).toBeTruthy();
    await answer(0, window);
    expect(screen.getByText("8,192 tokens, reported by the server")).toBeTruthy();
    expect(screen.queryByText("2,048 tokens, reported by the server")).toBeNull();
  });

  it("does not show an earlier search's memories under a later search", async () => {
    const memory = (id: number, content: string): KinMemory => ({
      id, content, category: "fact", subject: null, created_at: 1, pinned: false, archived_at: null,
      usage: { injected_count: 0, recalled_count: 0, last_injected_at: null, last_recalled_at: null },
    }); // prettier-ignore
    render(
      <ToastProvider>
        <KinMemories kin={KIN} />
      </ToastProvider>,
    );
    const field = screen.getByLabelText("Search the memories");
    for (const query of ["leek", "tart"]) {
      fireEvent.change(field, { target: { value: query } });
      fireEvent.submit(field.closest("form") as HTMLFormElement);
    }
    expect(asked.map(({ path }) => path)).toEqual(["/api/kins/k1/memories", "/api/kins/k1/memories?q=leek", "/api/kins/k1/memories?q=tart"]);
    await answer(2, { memories: [memory(2, "Marie bakes a plum tart on Sundays")] });
    await answer(1, { memories: [memory(1, "Léo does not like leeks")] });
    await answer(0, { memories: [] });
    expect(screen.getByText("Marie bakes a plum tart on Sundays")).toBeTruthy();
    expect(screen.queryByText("Léo does not like leeks")).toBeNull();
    expect(screen.queryByText("No memories yet.")).toBeNull();
  });
});
