"""Automatic backups in Settings, in Debian's Chromium, on a desktop in English and a phone in
French: turning them on is refused until a passphrase is set, which must be typed twice and
be long enough (said on its fields), "back up now" lists a finished backup with its size, and
turning the schedule on makes an automatic one."""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.async_api import Page, expect

from tests import test_frontend_e2e as e2e
from tests.support.browser import NEEDS_BROWSER
from tests.support.server import RunningServer
from tests.test_frontend_e2e import sign_in

browser, page, server, fake_llm = e2e.browser, e2e.page, e2e.server, e2e.fake_llm

pytestmark = NEEDS_BROWSER

WORDS: dict[str, dict[str, Any]] = {
    "en": {
        "tab": "Backups",
        "enabled": "Back up automatically",
        "passphrase": "Passphrase",
        "again": "Passphrase again",
        "minimum": "At least 8 characters.",
        "short": "The backup passphrase must have at least 8 characters.",
        "differ": "The two passphrases differ.",
        "folder": "Folder",
        "missing": "This folder cannot be reached or made there",
        "keep": "Backups to keep",
        "save": "Save",
        "now": "Back up now",
        "need": "Choose a passphrase for the backups first.",
        "set": "A passphrase is set.",
        "saved": "Backup settings saved",
        "manual": "Asked for",
        "scheduled": "Automatic",
        "done": "Done",
        "size": re.compile(r"\d(\.\d)? (kB|MB)"),
        "key": "never hold the master key",
    },
    "fr": {
        "tab": "Sauvegardes",
        "enabled": "Sauvegarder automatiquement",
        "passphrase": "Phrase secrète",
        "again": "Phrase secrète, une seconde fois",
        "minimum": "Au moins 8 caractères.",
        "short": "La phrase secrète des sauvegardes doit compter au moins 8 caractères.",
        "differ": "Les deux phrases secrètes sont différentes.",
        "folder": "Dossier",
        "missing": "Ce dossier est introuvable ou ne peut pas être créé à cet endroit",
        "keep": "Sauvegardes à garder",
        "save": "Enregistrer",
        "now": "Sauvegarder maintenant",
        "need": "Choisissez d'abord une phrase secrète pour les sauvegardes.",
        "set": "Une phrase secrète est définie.",
        "saved": "Réglages des sauvegardes enregistrés",
        "manual": "Demandée",
        "scheduled": "Automatique",
        "done": "Terminée",
        "size": re.compile(r"\d(,\d)?\s(ko|Mo)"),
        "key": "ne contiennent jamais la clé maîtresse",
    },
}


@pytest.mark.parametrize(
    "language,width,height", [("en", 1280, 800), ("fr", 390, 844)], ids=["desktop-en", "phone-fr"]
)
async def test_backups_are_set_up_run_now_and_on_schedule_from_settings(
    server: RunningServer, page: Page, language: str, width: int, height: int
) -> None:
    words = WORDS[language]
    changed = await server.client.patch("/api/me", json={"language": language})
    assert changed.status_code == 200, changed.text
    await sign_in(page, server)
    await page.set_viewport_size({"width": width, "height": height})
    await page.goto(server.url + "/settings")
    await page.get_by_role("tab", name=words["tab"]).click()
    await page.reload()  # the address keeps the tab (/settings#backups)
    await expect(page.get_by_role("tab", name=words["tab"])).to_have_attribute(
        "aria-selected", "true"
    )
    await expect(page.get_by_text(words["key"])).to_be_visible()
    now = page.get_by_role("button", name=words["now"])
    await expect(now).to_be_disabled()

    # On without a passphrase: refused, in the person's language.
    await page.get_by_role("switch", name=words["enabled"]).click()
    await page.get_by_role("button", name=words["save"], exact=True).click()
    await expect(page.get_by_text(words["need"], exact=True)).to_be_visible()
    assert (await server.client.get("/api/backups")).json()["schedule"]["enabled"] is False

    # A folder that cannot take backups is refused, on the field.
    await page.get_by_role("switch", name=words["enabled"]).click()
    folder = page.get_by_label(words["folder"], exact=True)
    await folder.fill("/proc/kinbot-backups")
    await page.get_by_role("button", name=words["save"], exact=True).click()
    await expect(page.get_by_text(words["missing"])).to_be_visible()
    await expect(folder).to_have_attribute("aria-invalid", "true")
    await folder.fill("")

    # A passphrase must be typed twice, the same, and long enough: said on the fields.
    passphrase = page.get_by_label(words["passphrase"], exact=True)
    await expect(page.get_by_text(words["minimum"])).to_be_visible()
    save = page.get_by_role("button", name=words["save"], exact=True)
    await passphrase.fill("short")
    again = page.get_by_label(words["again"], exact=True)
    await again.fill("short")
    await save.click()
    await expect(page.get_by_text(words["short"], exact=True)).to_be_visible()
    await expect(passphrase).to_have_attribute("aria-invalid", "true")
    await passphrase.fill("our family backup phrase")
    await again.fill("our family backup phrasf")
    await expect(page.get_by_text(words["differ"], exact=True)).to_be_visible()
    await expect(save).to_be_disabled()
    assert (await server.client.get("/api/backups")).json()["schedule"]["passphrase_set"] is False

    # The same twice, schedule still off; then a backup now.
    await again.fill("our family backup phrase")
    await page.get_by_label(words["keep"]).fill("3")
    await save.click()
    await expect(page.get_by_text(words["saved"], exact=True).first).to_be_visible()
    await expect(page.get_by_text(words["set"])).to_be_visible()
    assert "our family backup phrase" not in await page.content()
    await now.click()
    done = page.locator("[data-backup='done']")
    await expect(done).to_have_count(1)
    await expect(done).to_contain_text(words["manual"])
    await expect(done).to_contain_text(words["done"])
    await expect(done).to_contain_text(words["size"])
    runs = (await server.client.get("/api/backups")).json()["runs"]
    assert [(r["trigger"], r["status"]) for r in runs] == [("manual", "done")]

    # The schedule on: a first automatic backup comes at once.
    await page.get_by_role("switch", name=words["enabled"]).click()
    await page.get_by_role("button", name=words["save"], exact=True).click()
    await expect(page.get_by_text(words["saved"], exact=True).first).to_be_visible()
    await expect(page.locator("[data-backup='done']", has_text=words["scheduled"])).to_have_count(1)
    schedule = (await server.client.get("/api/backups")).json()["schedule"]
    assert (schedule["enabled"], schedule["keep"]) == (True, 3)
