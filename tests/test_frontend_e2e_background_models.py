"""The platform's models of background work in Settings, in Debian's Chromium, on a desktop in
English and a phone in French: an administrator changes the memory extraction and compacting
models with the keyboard, saves, and the choice is stored (and shown again after a reload)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from playwright.async_api import Page, expect

from tests import test_frontend_e2e as e2e
from tests.support.browser import NEEDS_BROWSER
from tests.support.server import RunningServer
from tests.test_frontend_e2e import sign_in

browser, page, server, fake_llm = e2e.browser, e2e.page, e2e.server, e2e.fake_llm

pytestmark = NEEDS_BROWSER

ROUTE = "/api/settings/background-models"
#: Where screenshots go when ``KINBOT_SCREENSHOTS`` names a folder (to look at, not compared).
SCREENSHOTS = os.environ.get("KINBOT_SCREENSHOTS")

WORDS: dict[str, dict[str, Any]] = {
    "en": {
        "tab": "AI providers",
        "title": "Models of background work",
        "extraction": "Memory extraction model",
        "compacting": "Compacting model",
        "cheapest": "Cheapest model of each Kin's provider (recommended)",
        "light": "gpt-4o-mini · OpenAI · cheapest of OpenAI",
        "trade_off": "a small part of a large model's price",
        "save": "Save",
        "saved": "Models of background work saved",
    },
    "fr": {
        "tab": "Fournisseurs d'IA",
        "title": "Modèles du travail en arrière-plan",
        "extraction": "Modèle d'extraction des souvenirs",
        "compacting": "Modèle des résumés de conversation",
        "cheapest": "Le modèle le moins cher du fournisseur de chaque Kin (recommandé)",
        "light": "gpt-4o-mini · OpenAI · le moins cher chez OpenAI",
        "trade_off": "une petite partie du prix",
        "save": "Enregistrer",
        "saved": "Modèles du travail en arrière-plan enregistrés",
    },
}


@pytest.mark.parametrize(
    "language,width,height", [("en", 1280, 800), ("fr", 390, 844)], ids=["desktop-en", "phone-fr"]
)
async def test_an_administrator_changes_the_background_models_in_settings(
    server: RunningServer, page: Page, language: str, width: int, height: int
) -> None:
    words = WORDS[language]
    changed = await server.client.patch("/api/me", json={"language": language})
    assert changed.status_code == 200, changed.text
    await sign_in(page, server)
    await page.set_viewport_size({"width": width, "height": height})
    await page.goto(server.url + "/settings")
    tab = page.get_by_role("tab", name=words["tab"])
    await expect(tab).to_have_attribute("aria-selected", "true")  # the first tab
    card = page.locator("[data-background-models-admin]")
    await expect(card.get_by_role("heading", name=words["title"])).to_be_visible()
    await expect(card).to_contain_text(words["trade_off"])
    extraction = page.get_by_label(words["extraction"])
    compacting = page.get_by_label(words["compacting"])
    await expect(extraction).to_have_value("")
    await expect(extraction.locator("option").first).to_have_text(words["cheapest"])
    await expect(compacting.locator("option[value='OpenAI/gpt-4o-mini']")).to_have_text(
        words["light"]
    )
    save = card.get_by_role("button", name=words["save"], exact=True)
    await expect(save).to_be_disabled()

    # With the keyboard only: the next choice of the first select ("each Kin's own model"),
    # a listed model in the second, then Save.
    await extraction.focus()
    await page.keyboard.press("ArrowDown")
    await expect(extraction).to_have_value("@kin")
    await page.keyboard.press("Tab")
    await expect(compacting).to_be_focused()
    await compacting.select_option("OpenAI/gpt-3.5-turbo")
    await page.keyboard.press("Tab")
    await expect(save).to_be_focused()
    await page.keyboard.press("Enter")
    await expect(page.get_by_text(words["saved"], exact=True).first).to_be_visible()
    await expect(save).to_be_disabled()
    stored = (await server.client.get(ROUTE)).json()
    assert (stored["memory_extraction_model"], stored["compacting_model"]) == (
        "@kin",
        "OpenAI/gpt-3.5-turbo",
    )
    assert server.platform.background_models.in_force("compacting") == "OpenAI/gpt-3.5-turbo"

    # Nothing wider than the screen; the card fits the phone.
    overflow = await page.evaluate(
        "document.documentElement.scrollWidth - document.documentElement.clientWidth"
    )
    assert overflow <= 0, overflow
    box = await card.bounding_box()
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= width
    if SCREENSHOTS:
        await card.scroll_into_view_if_needed()
        await page.screenshot(path=str(Path(SCREENSHOTS) / f"background-models-{language}.png"))

    await page.reload()
    await expect(page.get_by_label(words["extraction"])).to_have_value("@kin")
    await expect(page.get_by_label(words["compacting"])).to_have_value("OpenAI/gpt-3.5-turbo")
