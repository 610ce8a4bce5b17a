"""Usage in Debian's Chromium, on a desktop in English and a phone in French: Settings →
Usage draws the cost by day and by Kin as charts (canvases with bars) with amounts and dates
in the reader's language, and the table by model; My account shows the person's own; once
the Kin's budget is spent, a message sent from the chat is refused with the budget sentence,
and a message arriving from a webhook gets the refusal in the chat. Large figures (hundreds of
millions of tokens) stay whole on a phone, the tokens under the row's name, and no page grows
wider than the screen."""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.async_api import Locator, Page, expect

from tests import test_frontend_e2e as e2e
from tests.support.browser import NEEDS_BROWSER, toast
from tests.support.fakes import FakeOpenAI, Reply
from tests.support.kin_chat import reply_to
from tests.support.server import RunningServer
from tests.support.sse import sse_stream
from tests.test_frontend_e2e import sign_in
from tests.test_frontend_e2e_a11y import PHONE, assert_fits

browser, page, server, fake_llm = e2e.browser, e2e.page, e2e.server, e2e.fake_llm

pytestmark = NEEDS_BROWSER

# 1000 tokens in and 1000 out of gpt-4o: 0.0025 + 0.01.
WORDS: dict[str, dict[str, Any]] = {
    "en": {
        "tab": "Usage",
        "by_day": "Cost by day",
        "by_kin": "Cost by Kin",
        "cost": "$0.0125",
        "mine": "My usage",
        "composer": "Message Chef…",
        "refused": re.compile(r"The monthly budget of Chef is spent \(\$0\.001\)"),
        "not_sent": "Message not sent",
    },
    "fr": {
        "tab": "Consommation",
        "by_day": "Coût par jour",
        "by_kin": "Coût par Kin",
        "cost": "0,0125\u00a0$US",
        "mine": "Ma consommation",
        "composer": "Écrire à Chef…",
        "refused": re.compile(r"Le budget mensuel de Chef est épuisé \(0,001\u00a0\$US\)"),
        "not_sent": "Message non envoyé",
    },
}

#: Whether the chart's canvas has painted pixels (its bars), read in the page.
PAINTED = """(box) => {
  const canvas = box.querySelector("canvas");
  if (!canvas || canvas.width === 0 || canvas.height === 0) return false;
  const pixels = canvas.getContext("2d").getImageData(0, 0, canvas.width, canvas.height).data;
  for (let i = 3; i < pixels.length; i += 4) if (pixels[i] !== 0) return true;
  return false;
}"""


async def answered_once(
    server: RunningServer, fake_llm: FakeOpenAI, *, usage: tuple[int, int]
) -> str:
    """The first Kin's id, once it answered a message with ``usage`` (tokens in, out)."""
    kin_id: str = (await server.client.get("/api/kins")).json()["kins"][0]["id"]
    fake_llm.enqueue(Reply(text="Soup tonight.", usage=usage))
    async with sse_stream(server.client) as stream:
        sent = await server.client.post(
            f"/api/kins/{kin_id}/messages", json={"content": "What's for dinner?"}
        )
        await stream.wait_for(reply_to(sent.json()["message"]["id"]))
    return kin_id


@pytest.mark.parametrize(
    "language,width,height", [("en", 1280, 800), ("fr", 390, 844)], ids=["desktop-en", "phone-fr"]
)
async def test_usage_charts_render_and_a_spent_budget_refuses_the_next_message(
    server: RunningServer,
    fake_llm: FakeOpenAI,
    page: Page,
    language: str,
    width: int,
    height: int,
) -> None:
    words = WORDS[language]
    changed = await server.client.patch("/api/me", json={"language": language})
    assert changed.status_code == 200, changed.text
    await sign_in(page, server)
    await page.set_viewport_size({"width": width, "height": height})
    kin_id = await answered_once(server, fake_llm, usage=(1000, 1000))

    await page.goto(server.url + "/settings")
    await page.get_by_role("tab", name=words["tab"]).click()
    for title in (words["by_day"], words["by_kin"]):
        chart = page.get_by_role("img", name=re.compile("^" + re.escape(title)))
        await expect(chart).to_have_attribute("aria-label", re.compile(re.escape(words["cost"])))
        await expect(chart.locator("canvas")).to_have_count(1)
        await page.wait_for_function(PAINTED, arg=await chart.element_handle())
    await expect(page.locator("[data-usage-total]")).to_have_text(words["cost"])
    await expect(page.locator("[data-usage-row^='OpenAI/gpt-4o']")).to_contain_text("gpt-4o")

    await page.goto(server.url + "/account")
    mine = page.locator("[data-my-usage]")
    await expect(mine.get_by_text(words["mine"], exact=True)).to_be_visible()
    await expect(mine.locator("[data-usage-total]")).to_have_text(words["cost"])
    await expect(mine.locator("[data-usage-chart] canvas").first).to_be_attached()

    budget = await server.client.put(
        "/api/usage/budgets", json={"scope": "kin", "target_id": kin_id, "monthly_limit": 0.001}
    )
    assert budget.json()["budget"]["reached"] is True, budget.text
    await page.goto(server.url + f"/kins/{kin_id}")
    composer = page.get_by_placeholder(words["composer"])
    await composer.fill("And dessert?")
    await composer.press("Enter")
    await expect(page.get_by_text(words["refused"]).first).to_be_visible()
    await expect(toast(page, words["not_sent"])).to_be_visible()
    await expect(composer).to_have_value("And dessert?")  # not lost: sent again once allowed

    await server.platform.kins.enqueue(
        kin_id, "The door bell rang", source="webhook", sender_id=None, sender_name="Door"
    )
    card = page.locator("[data-error-card='budget_reached']")
    await expect(card).to_contain_text(words["refused"])


async def test_large_figures_stay_whole_on_a_phone_and_the_pages_fit_it(
    server: RunningServer, fake_llm: FakeOpenAI, page: Page
) -> None:
    await sign_in(page, server)  # Nicolas reads French: its figures are the widest
    await page.set_viewport_size(PHONE)
    await answered_once(server, fake_llm, usage=(987_654_321, 123_456_789))

    await page.goto(server.url + "/account", wait_until="networkidle")
    row = page.locator("[data-my-usage] [data-usage-row^='OpenAI/gpt-4o']")
    await expect_whole_row_on_screen(row)
    await assert_fits(page, "/account")

    await page.goto(server.url + "/settings")
    await page.get_by_role("tab", name=WORDS["fr"]["tab"]).click()
    await expect_whole_row_on_screen(page.locator("[data-usage-row^='OpenAI/gpt-4o']"))
    await assert_fits(page, "/settings, usage")


async def expect_whole_row_on_screen(row: Locator) -> None:
    """The row's tokens (under its name on a phone) and its cost, whole and on the screen."""
    await expect(row).to_contain_text("987\u202f654\u202f321 lus · 123\u202f456\u202f789 écrits")
    cost = row.locator("td").last
    await expect(cost).to_have_text("3\u202f703,70\u00a0$US")
    await cost.scroll_into_view_if_needed()
    box = await cost.bounding_box()
    assert box is not None and box["x"] + box["width"] <= PHONE["width"], box
    assert await cost.evaluate("cell => cell.scrollWidth <= cell.clientWidth")
