// @vitest-environment jsdom
import { act, cleanup, fireEvent, render, waitFor, within } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it } from "vitest";

import i18n from "@/i18n";

import Markdown, { hasMath } from "./markdown";

function show(text: string): HTMLElement {
  return render(<Markdown text={text} />).container.querySelector<HTMLElement>(".markdown")!;
}

afterEach(cleanup);
beforeEach(async () => {
  await i18n.changeLanguage("en");
});

describe("Markdown, GitHub-flavoured", () => {
  it("keeps a person's line breaks when asked, and reads a Kin's Markdown as written", () => {
    const lines = "event: oven_preheated\ntemperature: 200 °C";
    const kept = render(<Markdown text={lines} breaks />).container.querySelector(".markdown")!;
    expect(kept.querySelectorAll("br")).toHaveLength(1);
    expect(show(lines).querySelectorAll("br")).toHaveLength(0);
  });

  it("renders tables with a header, inside a sideways-scrolling group", () => {
    const element = show("## Menu\n\n| Dish | Minutes |\n|:--|--:|\n| Soup | 30 |\n| Tart | 45 |");
    expect(within(element).getByRole("heading", { level: 2 }).textContent).toBe("Menu");
    const table = within(element).getByRole("table");
    expect(within(table).getAllByRole("columnheader").map((cell) => cell.textContent)).toEqual(["Dish", "Minutes"]);
    expect(within(table).getAllByRole("row")).toHaveLength(3);
    const wrapper = within(element).getByRole("group", { name: "Table" });
    expect(wrapper.contains(table)).toBe(true);
    expect(wrapper.tabIndex).toBe(0);
  });

  it("renders task lists as disabled boxes named by their state, strikethrough, bare URLs and footnotes", () => {
    const element = show(
      "- [x] leeks\n- [ ] potatoes\n\n~~butter~~ oil, see https://example.org/soup and www.example.com.\n\nA note.[^1]\n\n[^1]: From Grandma.",
    );
    const boxes = within(element).getAllByRole("checkbox");
    expect(boxes.map((box) => [(box as HTMLInputElement).checked, (box as HTMLInputElement).disabled])).toEqual([[true, true], [false, true]]);
    expect(boxes.map((box) => box.getAttribute("aria-label"))).toEqual(["Done", "To do"]);
    expect(element.querySelector("del")?.textContent).toBe("butter");
    const bare = within(element).getByRole("link", { name: "https://example.org/soup" });
    expect(bare.getAttribute("href")).toBe("https://example.org/soup");
    expect(bare.getAttribute("target")).toBe("_blank");
    expect(bare.getAttribute("rel")).toContain("noopener");
    expect(within(element).getByRole("link", { name: "www.example.com" }).getAttribute("href")).toBe("http://www.example.com");
    // The footnote's reference points at the note's id, which is unique to this message.
    const reference = within(element).getByRole("link", { name: "1" });
    const target = reference.getAttribute("href")!.slice(1);
    expect(target).not.toBe("fn-1");
    expect(element.querySelector(`[id="${target}"]`)?.textContent).toContain("From Grandma.");
    expect(reference.hasAttribute("target")).toBe(false);
    expect(within(element).getByRole("heading", { name: "Footnotes" })).toBeTruthy();
  });
});

describe("Markdown sanitising", () => {
  it("keeps scripts, raw HTML, event handlers and javascript: links inert, also inside tables, task lists and math", async () => {
    const text = [
      "| a | b |",
      "|---|---|",
      '| <script>alert(1)</script> | [x](javascript:alert(2)) |',
      "",
      '- [ ] <img src=x onerror="alert(3)"> <iframe src="https://evil.example"></iframe>',
      "- [x] <a href=\"javascript:alert(4)\">raw</a> <javascript:alert(5)>",
      "",
      "$\\href{javascript:alert(6)}{click}$ and $\\htmlId{x}{y}$",
      "",
      '<div onclick="alert(7)" style="position:fixed">cover</div>',
    ].join("\n");
    const element = show(text);
    expect(within(element).getByRole("table")).toBeTruthy();
    expect(within(element).getAllByRole("checkbox")).toHaveLength(2);
    // KaTeX typesets the formulas once loaded: \href is refused (trust stays off).
    await waitFor(() => expect(element.querySelectorAll(".katex")).toHaveLength(2), { timeout: 10_000 });
    for (const tag of ["script", "img", "iframe", "div[onclick]", "[style*='fixed']"]) expect(element.querySelector(tag)).toBeNull();
    expect(element.innerHTML).not.toMatch(/onerror|onclick/);
    for (const link of element.querySelectorAll("a")) expect(link.getAttribute("href") ?? "").not.toMatch(/^\s*javascript:/i);
    expect(element.innerHTML).not.toContain('href="javascript');
  });
});

describe("Math", () => {
  it("is typeset by KaTeX, with MathML for screen readers, only when the text holds math", async () => {
    const element = show("Energy: $E = mc^2$\n\n$$\n\\int_0^1 x\\,dx = \\frac{1}{2}\n$$");
    await waitFor(() => expect(element.querySelectorAll(".katex")).toHaveLength(2), { timeout: 10_000 });
    expect(element.querySelectorAll(".katex-display")).toHaveLength(1);
    expect(element.querySelector("math annotation")?.textContent).toBe("E = mc^2");
    expect(element.textContent).not.toContain("$");
  });

  it("leaves prices and other dollars as text", () => {
    expect(hasMath("From $5 to $10, or $20.")).toBe(false);
    expect(hasMath("It costs $5, a $ sign")).toBe(false);
    expect(hasMath("Area: $\\pi r^2$.")).toBe(true);
    expect(hasMath("$$x^2$$")).toBe(true);
    expect(hasMath("```math\nx^2\n```")).toBe(true);
    expect(show("From $5 to $10.").textContent).toBe("From $5 to $10.");
  });
});

describe("Code blocks", () => {
  let copied: string[];
  beforeEach(() => {
    copied = [];
    // jsdom has no clipboard: a recording one stands in for the browser's.
    Object.defineProperty(window, "isSecureContext", { value: true, configurable: true });
    Object.defineProperty(navigator, "clipboard", {
      value: { writeText: async (text: string) => void copied.push(text) },
      configurable: true,
    });
  });

  it("shows the language and copies the code as written, announcing it, in English and French", async () => {
    const code = "def soup():\n    return 'leek'";
    const element = show(`Try:\n\n\`\`\`python\n${code}\n\`\`\`\n\nand \`inline\`.`);
    const block = within(element).getByRole("figure", { name: "Code in python" });
    expect(block.querySelector(".code-block-language")?.textContent).toBe("python");
    expect(within(element).getByText("inline").closest("figure")).toBeNull();
    await act(async () => fireEvent.click(within(block).getByRole("button", { name: "Copy code" })));
    expect(copied).toEqual([code]);
    expect(within(block).getByRole("status").textContent).toBe("Copied");

    cleanup();
    await act(async () => void (await i18n.changeLanguage("fr")));
    const french = show("```\nls -la\n```");
    const unnamed = within(french).getByRole("figure", { name: "Code" });
    await act(async () => fireEvent.click(within(unnamed).getByRole("button", { name: "Copier le code" })));
    expect(copied).toEqual([code, "ls -la"]);
    expect(within(unnamed).getByRole("status").textContent).toBe("Copié");
  });
});
