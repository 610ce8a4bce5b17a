"""Crons a person can set, in Debian's Chromium at desktop and phone widths: a cron made with
the schedule picker ("every weekday at 07:30", in the browser's time zone) without typing any
cron syntax, its schedule said back in words in the list in French and in English, read back
into the picker when edited, and a Kin's proposal awaiting confirmation said in words too,
and declined (not "paused")."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from playwright.async_api import Browser, Page, expect

from tests import test_frontend_e2e as e2e
from tests.support.browser import NEEDS_BROWSER, open_page
from tests.support.fakes import FakeOpenAI, Reply
from tests.support.server import RunningServer
from tests.test_frontend_e2e import sign_in

# The browser tests' fixtures, under the names pytest looks for.
browser, server, fake_llm = e2e.browser, e2e.server, e2e.fake_llm

pytestmark = NEEDS_BROWSER

ZONE = "Asia/Tokyo"  # not the machine's: the picker must take the browser's


@pytest.fixture
async def page(browser: Browser) -> AsyncIterator[Page]:
    async with open_page(browser, timezone_id=ZONE) as page:
        yield page


async def no_sideways_scroll(page: Page) -> None:
    overflow = await page.evaluate(
        "document.documentElement.scrollWidth - document.documentElement.clientWidth"
    )
    assert overflow <= 0, f"the page scrolls sideways by {overflow} px"


@pytest.mark.parametrize(("width", "height"), [(1280, 800), (390, 844)], ids=["desktop", "phone"])
async def test_a_cron_set_with_the_picker_is_said_in_words_in_french_and_english(
    server: RunningServer, fake_llm: FakeOpenAI, page: Page, width: int, height: int
) -> None:
    await sign_in(page, server)  # Nicolas reads French
    await page.set_viewport_size({"width": width, "height": height})
    kin_id = (await server.client.get("/api/kins")).json()["kins"][0]["id"]
    await page.get_by_role("link", name="Réglages du Kin").click()
    await page.get_by_role("tab", name="Crons").click()
    # The word is explained where it is first met.
    intro = page.locator("[data-crons-intro]")
    await expect(intro).to_contain_text("Un cron est un travail que Chef lance sans qu")
    await expect(intro).to_contain_text("son résultat arrive dans la conversation")
    await page.get_by_role("button", name="Nouveau cron").click()
    dialog = page.get_by_role("dialog")
    await dialog.get_by_label("Nom").fill("Réveil")
    # A new cron starts every day at 08:00, in the browser's time zone.
    await expect(dialog.get_by_label("Répétition")).to_have_value("daily")
    await expect(dialog.get_by_label("Fuseau horaire")).to_have_value(ZONE)
    # Named by its city and its name in French, not by its IANA name.
    chosen = dialog.get_by_label("Fuseau horaire").locator("option:checked")
    await expect(chosen).to_have_text("Tokyo — heure normale du Japon")
    await expect(dialog.locator("[data-schedule-preview]")).to_contain_text(
        "S'exécute tous les jours à 08:00."
    )
    await dialog.get_by_label("Répétition").select_option(
        label="Tous les jours de semaine (du lundi au vendredi)"
    )
    await dialog.get_by_label("À", exact=True).fill("07:30")
    await expect(dialog.locator("[data-schedule-preview]")).to_contain_text(
        "S'exécute tous les jours de semaine à 07:30."
    )
    await expect(dialog.get_by_label("Expression cron")).to_have_count(0)  # no syntax to type
    await dialog.get_by_label("Ce que fait la tâche").fill("Réveiller la maison en douceur.")
    await no_sideways_scroll(page)
    await dialog.get_by_role("button", name="Enregistrer").click()
    await expect(dialog).to_have_count(0)

    wake = page.get_by_role("listitem", name="Réveil")
    words = wake.locator("[data-schedule-words]")
    await expect(words).to_have_text("tous les jours de semaine à 07:30")
    await expect(words).to_be_visible()
    crons = (await server.client.get(f"/api/crons?kin_id={kin_id}")).json()["crons"]
    assert [(c["schedule"], c["timezone"]) for c in crons] == [("30 7 * * 1-5", ZONE)]
    await no_sideways_scroll(page)

    # A Kin's proposal, awaiting confirmation, is said in words too.
    proposal = {"name": "Weekly menu", "schedule": "0 18 * * 0",
                "task_description": "Plan next week's dinners."}  # fmt: skip
    fake_llm.enqueue(Reply(tool_calls=[("create_cron", proposal)]), Reply(text="Proposé."))
    sent = await server.client.post(
        f"/api/kins/{kin_id}/messages", json={"content": "Plan the menus every Sunday"}
    )
    assert sent.status_code == 202, sent.text
    weekly = page.get_by_role("listitem", name="Weekly menu")
    await expect(weekly.get_by_text("En attente de confirmation")).to_be_visible()
    await expect(weekly.locator("[data-schedule-words]")).to_have_text("chaque dimanche à 18:00")

    # In English, the same schedules read in English.
    changed = await server.client.patch("/api/me", json={"language": "en"})
    assert changed.status_code == 200, changed.text
    await page.reload()
    await page.get_by_role("tab", name="Crons").click()
    wake = page.get_by_role("listitem", name="Réveil")
    await expect(wake.locator("[data-schedule-words]")).to_have_text("every weekday at 07:30")
    weekly = page.get_by_role("listitem", name="Weekly menu")
    await expect(weekly.get_by_text("Awaiting confirmation")).to_be_visible()
    await expect(weekly.locator("[data-schedule-words]")).to_have_text("every Sunday at 18:00")

    # Edited, the cron opens on its preset; a weekly run is picked from the keyboard.
    await wake.get_by_role("button", name="Edit Réveil").click()
    dialog = page.get_by_role("dialog")
    await expect(dialog.get_by_label("Repeats")).to_have_value("weekdays")
    await expect(dialog.get_by_label("At", exact=True)).to_have_value("07:30")
    await expect(dialog.get_by_label("Time zone")).to_have_value(ZONE)
    await dialog.get_by_label("Repeats").focus()
    await page.keyboard.press("ArrowDown")  # the next kind: every week, on one day
    await expect(dialog.get_by_label("Repeats")).to_have_value("weekly")
    await dialog.get_by_label("On", exact=True).select_option(label="Saturday")
    await expect(dialog.locator("[data-schedule-preview]")).to_contain_text(
        "Runs every Saturday at 07:30."
    )
    await dialog.get_by_role("button", name="Save").click()
    await expect(dialog).to_have_count(0)
    await expect(wake.locator("[data-schedule-words]")).to_have_text("every Saturday at 07:30")
    crons = (await server.client.get(f"/api/crons?kin_id={kin_id}")).json()["crons"]
    assert {c["name"]: c["schedule"] for c in crons} == {
        "Réveil": "30 7 * * 6",
        "Weekly menu": "0 18 * * 0",
    }
    await no_sideways_scroll(page)

    # The proposal is confirmed or declined, not paused: declining removes it.
    await expect(weekly.get_by_role("button", name="Pause")).to_have_count(0)
    await weekly.get_by_role("button", name="Decline").click()
    await expect(weekly).to_have_count(0)
    # The keyboard goes to the same place in the cron beside it, not to the top of the page.
    await expect(page.get_by_role("button", name="Edit Réveil")).to_be_focused()
    crons = (await server.client.get(f"/api/crons?kin_id={kin_id}")).json()["crons"]
    assert [c["name"] for c in crons] == ["Réveil"]
