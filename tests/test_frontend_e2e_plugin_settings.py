"""A plugin's settings from its schema, in Debian's Chromium against the real server: Settings →
Plugins opens the example plugin's form, a value that does not fit is refused on its field,
the quiet hours and the display token are saved (the token really works), and after a reload
the token shows only as set. Desktop in English, phone in French."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.async_api import Page, ViewportSize, expect

from tests import test_frontend_e2e as e2e
from tests.support.browser import NEEDS_BROWSER, toast
from tests.support.server import RunningServer
from tests.test_frontend_e2e import sign_in

# The browser tests' fixtures, under the names pytest looks for.
browser, page, server, fake_llm = e2e.browser, e2e.page, e2e.server, e2e.fake_llm

pytestmark = NEEDS_BROWSER

TOKEN = "kitchen-display-3f9a61c2d7e48b05"

WORDS: dict[str, dict[str, str]] = {
    "en": {
        "settings": "Settings",
        "open": "Settings of house_rules",
        "dialog": "House rules",
        "quiet": "Quiet hours",
        "token": "Display token",
        "not_set": "Not set",
        "set": "Set",
        "enter": "Enter a value",
        "replace": "Replace",
        "save": "Save",
        "saved": "Settings saved.",
        "pattern": "Characters that are not allowed",
        "invalid": "Some settings are not valid: see the marked fields.",
    },
    "fr": {
        "settings": "Réglages",
        "open": "Réglages de house_rules",
        "dialog": "Règles de la maison",
        "quiet": "Heures calmes",
        "token": "Jeton d'affichage",
        "not_set": "Non défini",
        "set": "Défini",
        "enter": "Saisir une valeur",
        "replace": "Remplacer",
        "save": "Enregistrer",
        "saved": "Réglages enregistrés.",
        "pattern": "Des caractères non permis",
        "invalid": "Certains réglages ne sont pas valides : voyez les champs signalés.",
    },
}


async def open_plugin_settings(page: Page, server: RunningServer, words: dict[str, str]) -> Any:
    await page.goto(server.url + "/settings")
    await page.get_by_role("tab", name="Plugins").click()
    row = page.locator('[data-plugin="house_rules"]')
    button = row.get_by_role("button", name=words["open"])
    await expect(button).to_have_text(words["settings"])
    await button.scroll_into_view_if_needed()
    await expect(button).to_be_in_viewport(ratio=1)  # whole: the row fits a phone's width
    await button.click()
    dialog = page.get_by_role("dialog", name=words["dialog"])
    await expect(dialog.get_by_label(words["quiet"])).to_be_visible()
    return dialog


@pytest.mark.parametrize(
    "language,viewport",
    [("en", {"width": 1280, "height": 800}), ("fr", {"width": 390, "height": 844})],
    ids=["desktop-en", "phone-fr"],
)
async def test_the_example_plugins_settings_are_saved_and_the_secret_stays_masked(
    server: RunningServer, page: Page, language: str, viewport: ViewportSize
) -> None:
    words = WORDS[language]
    changed = await server.client.patch("/api/me", json={"language": language})
    assert changed.status_code == 200, changed.text
    await sign_in(page, server)
    await page.set_viewport_size(viewport)
    dialog = await open_plugin_settings(page, server, words)
    await expect(dialog.locator("label").first).to_have_text(words["quiet"])  # the model's order
    token_field = dialog.get_by_role("group", name=words["token"])
    await expect(token_field).to_contain_text(words["not_set"])

    # A value that does not fit the model is refused, on its field.
    quiet = dialog.get_by_label(words["quiet"])
    await quiet.fill("after dinner")
    await dialog.get_by_role("button", name=words["save"]).click()
    await expect(quiet).to_have_attribute("aria-invalid", "true")
    await expect(dialog.get_by_role("alert").first).to_have_text(words["pattern"])
    await expect(dialog.get_by_role("alert").last).to_have_text(words["invalid"])

    await quiet.fill("21:30-07:00")
    await token_field.get_by_role("button", name=words["enter"]).click()
    secret = token_field.get_by_label(words["token"], exact=True)
    await expect(secret).to_have_attribute("type", "password")
    await secret.fill(TOKEN)
    await dialog.get_by_role("button", name=words["save"]).click()
    await expect(toast(page, words["saved"])).to_be_visible()
    await expect(dialog).to_have_count(0)
    async with server.new_client() as screen:  # the token saved is the one in force
        shown = await screen.get(
            "/api/ext/house_rules/display", headers={"Authorization": f"Bearer {TOKEN}"}
        )
    assert shown.status_code == 200
    assert shown.json()["rules"][-1] == "Quiet hours are 21:30-07:00: keep answers short then."

    # After a reload the values are back, the token only as set.
    await page.reload()
    dialog = await open_plugin_settings(page, server, words)
    await expect(dialog.get_by_label(words["quiet"])).to_have_value("21:30-07:00")
    token_field = dialog.get_by_role("group", name=words["token"])
    await expect(token_field.get_by_text(words["set"], exact=True)).to_be_visible()
    await expect(token_field.get_by_role("button", name=words["replace"])).to_be_visible()
    await expect(dialog.locator('input[type="password"]')).to_have_count(0)
    assert TOKEN not in await page.content()
