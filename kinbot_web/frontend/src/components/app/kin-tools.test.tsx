// @vitest-environment jsdom
import { act, cleanup, render, screen } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";

import { ToastProvider } from "@/components/ui/toast";
import i18n from "@/i18n";
import type { Kin } from "@/lib/types";

import { KinTools } from "./kin-tools";

afterEach(async () => {
  cleanup();
  vi.unstubAllGlobals();
  await act(() => i18n.changeLanguage("en"));
});

const KIN = { id: "k1", name: "Chef" } as Kin;

/** The server's answers: no MCP server, no custom tool, scripts confined by `sandbox`, no
 * approval rule. */
function serve(sandbox: string) {
  vi.stubGlobal(
    "fetch",
    vi.fn(async (path: string) => {
      if (path.endsWith("/approval-rules")) return new Response(JSON.stringify({ rules: {}, platform_rules: {}, tools: [] }), { status: 200 });
      if (path.endsWith("/custom-tools")) return new Response(JSON.stringify({ sandbox, tools: [] }), { status: 200 });
      if (path.endsWith("/mcp-servers") && path.startsWith("/api/kins/")) return new Response(JSON.stringify({ server_ids: [] }), { status: 200 });
      return new Response(JSON.stringify({ servers: [] }), { status: 200 });
    }),
  );
}

async function sandboxSentence(sandbox: string, language: "en" | "fr", admin = false): Promise<string> {
  await act(() => i18n.changeLanguage(language));
  serve(sandbox);
  const { container } = render(
    <ToastProvider>
      <KinTools kin={KIN} admin={admin} />
    </ToastProvider>,
  );
  await screen.findByText(language === "en" ? "This Kin has not registered any tool." : "Ce Kin n'a enregistré aucun outil.");
  const text = container.querySelector(`[data-sandbox="${sandbox}"]`)?.textContent ?? "";
  cleanup();
  return text;
}

describe("the custom tools' sandbox, as the Tools tab says it", () => {
  it("says what confinement means for the family, whichever tool confines", async () => {
    for (const sandbox of ["bubblewrap", "landlock"]) {
      const english = await sandboxSentence(sandbox, "en");
      expect(english).toBe("Chef's scripts run isolated from the rest of the server: they only work on its own files, and cannot read KinBot's data, other Kins' files or the Vault's secrets.");
      const french = await sandboxSentence(sandbox, "fr");
      expect(french).toBe("Les scripts de Chef tournent isolés du reste du serveur : ils ne travaillent que sur ses propres fichiers et ne peuvent lire ni les données de KinBot, ni les fichiers des autres Kins, ni les secrets du coffre-fort.");
      expect(english + french).not.toMatch(/bubblewrap|landlock|sandbox|bac à sable/i);
    }
  });

  it("names what an administrator can install only to administrators", async () => {
    const member = await sandboxSentence("refused", "fr");
    expect(member).toBe("Outils personnalisés désactivés : ce serveur ne sait pas isoler les scripts. Un administrateur peut y remédier.");
    expect(await sandboxSentence("refused", "en")).toBe("Custom tools are off: this server cannot isolate scripts. An administrator can fix this.");
    expect(await sandboxSentence("refused", "en", true)).toMatch(/install bubblewrap/);
  });
});
