"""A Kin's reply in GitHub-flavoured Markdown with math, in Debian's Chromium, in English at
desktop width and in French at phone width (the diagonal of the four pairs: the labels do not
depend on the width, nor the layout on the language): a table (scrolling sideways inside the
bubble on a phone), a task list, strikethrough, a bare link, headings sized by level, a quote,
KaTeX math (fetched only once a message holds math), and a Python code block whose language
shows and whose copy button puts the code on the clipboard and says so."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest
from playwright.async_api import Browser, Page, expect

from tests import test_frontend_e2e as e2e
from tests.support.browser import NEEDS_BROWSER, open_page
from tests.support.fakes import FakeOpenAI, Reply
from tests.support.server import RunningServer
from tests.test_frontend_e2e import bubble, sign_in

# The browser tests' fixtures, under the names pytest looks for.
browser, server, fake_llm = e2e.browser, e2e.server, e2e.fake_llm

pytestmark = NEEDS_BROWSER

CODE = "def soup(leeks: int) -> str:\n    return 'potage' * leeks"
PLAIN = "Here is the list.\n\n```python\nprint('no math here, $5 or $10')\n```"
RICH = f"""# Leek soup

## Shopping

| Ingredient | Quantity | Shop | Note for the family |
|:--|--:|:--|:--|
| Leeks | 3 | Market on Saturday morning | The white part only, washed twice |
| Potatoes | 500 g | Grocery next to the school | Floury ones, for a smooth soup |

- [x] leeks
- [ ] potatoes

~~Butter~~ olive oil. Recipe: https://example.org/soupe

> Soup is a hug in a bowl.

### Timing

The pot holds $V = \\pi r^2 h$ litres, so

$$
t = \\frac{{V}}{{2}} + 10
$$

```python
{CODE}
```
"""

# Whether the page holds KaTeX's style sheet (its fonts' declarations), whatever chunk brought it.
KATEX_STYLES = """() => [...document.styleSheets].some((sheet) => [...sheet.cssRules].some(
  (rule) => rule instanceof CSSFontFaceRule && rule.style.fontFamily.includes('KaTeX_Main')))"""

# Per language: the code block's name, its copy button, and what the button announces.
LABELS = {
    "en": ("Code in python", "Copy code", "Copied"),
    "fr": ("Code en python", "Copier le code", "Copié"),
}


@pytest.fixture
async def page(browser: Browser) -> AsyncIterator[Page]:
    """A page that may write and read the clipboard, failing the test on a page error."""
    async with open_page(browser, permissions=["clipboard-read", "clipboard-write"]) as page:
        yield page


async def style(element: Any, *properties: str) -> list[str]:
    """The computed values of CSS ``properties`` on ``element``."""
    values: list[str] = await element.evaluate(
        "(node, names) => names.map((name) => getComputedStyle(node).getPropertyValue(name))",
        list(properties),
    )
    return values


def px(value: str) -> float:
    return float(value.removesuffix("px"))


@pytest.mark.parametrize(
    "language,width,height", [("en", 1280, 800), ("fr", 390, 844)], ids=["desktop-en", "phone-fr"]
)
async def test_a_reply_in_markdown_with_a_table_math_and_code(
    server: RunningServer,
    fake_llm: FakeOpenAI,
    page: Page,
    width: int,
    height: int,
    language: str,
) -> None:
    changed = await server.client.patch("/api/me", json={"language": language})
    assert changed.status_code == 200, changed.text
    requested: list[str] = []
    page.on("request", lambda request: requested.append(request.url))
    await sign_in(page, server)
    await page.set_viewport_size({"width": width, "height": height})
    kin_id = (await server.client.get("/api/kins")).json()["kins"][0]["id"]

    # A reply without math: highlighted code, but no KaTeX script, style sheet or font fetched.
    fake_llm.enqueue(Reply(text=PLAIN))
    sent = await server.client.post(f"/api/kins/{kin_id}/messages", json={"content": "List?"})
    assert sent.status_code == 202, sent.text
    plain = bubble(page, "assistant", "Here is the list.")
    await expect(plain.locator("code .hljs-string").first).to_be_visible()
    assert not [url for url in requested if "katex" in url.lower()]
    assert not await page.evaluate(KATEX_STYLES)

    fake_llm.enqueue(Reply(text=RICH, chunk_size=40))
    sent = await server.client.post(f"/api/kins/{kin_id}/messages", json={"content": "Soup?"})
    assert sent.status_code == 202, sent.text
    reply = bubble(page, "assistant", "Leek soup")

    # The table, as a table with its header row, inside the bubble.
    table = reply.get_by_role("table")
    await expect(table).to_be_visible()
    await expect(table.get_by_role("columnheader")).to_have_count(4)
    await expect(table.get_by_role("row")).to_have_count(3)
    # Task list, strikethrough, the bare link.
    boxes = reply.get_by_role("checkbox")
    await expect(boxes).to_have_count(2)
    await expect(boxes.first).to_be_checked()
    await expect(boxes.first).to_be_disabled()
    await expect(boxes.nth(1)).not_to_be_checked()
    await expect(reply.locator("del")).to_have_text("Butter")
    link = reply.get_by_role("link", name="https://example.org/soupe")
    await expect(link).to_have_attribute("href", "https://example.org/soupe")
    await expect(link).to_have_attribute("target", "_blank")

    # Math, typeset by KaTeX (its style sheet applied), fetched now that a message has math.
    await expect(reply.locator(".katex")).to_have_count(2)
    await expect(reply.locator(".katex-display")).to_have_count(1)
    await expect(reply.locator(".katex-display")).to_be_visible()
    (family,) = await style(reply.locator(".katex").first, "font-family")
    assert "KaTeX_Main" in family
    assert "$" not in await reply.inner_text()
    assert [url for url in requested if "katex" in url.lower() and url.endswith(".css")]
    assert await page.evaluate(KATEX_STYLES)

    # Headings step down by level, above the body text but modest; the quote stands apart.
    (h1,) = await style(reply.get_by_role("heading", level=1), "font-size")
    (h2,) = await style(reply.get_by_role("heading", level=2), "font-size")
    (h3,) = await style(reply.get_by_role("heading", level=3), "font-size")
    (body,) = await style(reply.locator(".markdown p").first, "font-size")
    assert px(h1) > px(h2) > px(h3) > px(body), (h1, h2, h3, body)
    assert px(h1) <= 1.6 * px(body)
    quote = reply.locator("blockquote")
    await expect(quote).to_have_text("Soup is a hug in a bowl.")
    (border,) = await style(quote, "border-left-width")
    assert px(border) >= 2

    # On a phone the table scrolls inside the bubble; the page itself never scrolls sideways.
    wrapper = reply.locator(".markdown-table")
    scroll = await wrapper.evaluate("(node) => [node.scrollWidth, node.clientWidth]")
    page_scroll = await page.evaluate(
        "() => [document.documentElement.scrollWidth, document.documentElement.clientWidth]"
    )
    assert page_scroll[0] <= page_scroll[1], page_scroll
    if width < 600:
        assert scroll[0] > scroll[1], scroll

    # The code block names its language; its copy button, used from the keyboard, copies the
    # code as written and announces it.
    name, copy_label, copied = LABELS[language]
    block = reply.get_by_role("figure", name=name)
    await expect(block.locator(".code-block-language")).to_have_text("python")
    await expect(block.locator("code .hljs-keyword").first).to_be_visible()
    copy = block.get_by_role("button", name=copy_label)
    await copy.focus()
    await page.keyboard.press("Enter")
    await expect(block.get_by_role("status")).to_have_text(copied)
    assert await page.evaluate("() => navigator.clipboard.readText()") == CODE
