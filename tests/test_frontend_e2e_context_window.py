"""A Kin's context window in its settings, in Debian's Chromium (desktop in English, phone in
French): the figure a llama.cpp server reports and that it is the server's, a model list's
window among the model choices, the window an administrator sets by hand for the model in the
card (with the keyboard) and clears again, then the figure an administrator types in the
provider's form and that it is theirs."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from playwright.async_api import Browser, ViewportSize, expect

from tests import test_frontend_e2e as e2e
from tests.support.browser import NEEDS_BROWSER, open_page
from tests.support.fakes import FakeOpenAI
from tests.support.fakes.local_metadata import llama_cpp_props
from tests.support.server import RunningServer
from tests.test_frontend_e2e import sign_in

# The browser tests' fixtures, under the names pytest looks for.
browser, server, fake_llm = e2e.browser, e2e.server, e2e.fake_llm

pytestmark = NEEDS_BROWSER

#: Where screenshots go when ``KINBOT_SCREENSHOTS`` names a folder (to look at, not compared).
SCREENSHOTS = os.environ.get("KINBOT_SCREENSHOTS")

#: What French number formatting puts between thousands (a narrow no-break space).
THIN = "\u202f"
WORDS = {
    "en": {
        "settings": "Kin settings",
        "title": "Context window",
        "reported": "2,048 tokens, reported by the server",
        "listed": "gpt-4o-mini · Local · 65,536 tokens",
        "edit": "Edit Local",
        "field": "Context window (tokens)",
        "save": "Save",
        "given": "8,192 tokens, set by an administrator",
        "by_hand": "Window of gpt-4o · Local (tokens)",
        "by_hand_given": "4,096 tokens, set by an administrator",
        "clear": "Use what the server says",
        "saved": "Context window saved",
        "refused": "A context window is a whole number of tokens, from 256 to 100,000,000.",
    },
    "fr": {
        "settings": "Réglages du Kin",
        "title": "Fenêtre de contexte",
        "reported": f"2{THIN}048 jetons (chiffre fourni par le serveur)",
        "listed": f"gpt-4o-mini · Local · 65{THIN}536 jetons",
        "edit": "Modifier Local",
        "field": "Fenêtre de contexte (jetons)",
        "save": "Enregistrer",
        "given": f"8{THIN}192 jetons (chiffre fixé par un administrateur)",
        "by_hand": "Fenêtre de gpt-4o · Local (jetons)",
        "by_hand_given": f"4{THIN}096 jetons (chiffre fixé par un administrateur)",
        "clear": "Utiliser le chiffre du serveur",
        "saved": "Fenêtre de contexte enregistrée",
        "refused": (
            "Une fenêtre de contexte est un nombre entier de jetons, "
            f"de 256 à 100{THIN}000{THIN}000."
        ),
    },
}


@pytest.mark.parametrize(
    ("language", "viewport"),
    [("en", ViewportSize(width=1280, height=800)), ("fr", ViewportSize(width=390, height=844))],
    ids=["desktop-en", "phone-fr"],
)
async def test_the_kins_settings_show_its_window_and_where_it_comes_from(
    server: RunningServer,
    fake_llm: FakeOpenAI,
    browser: Browser,
    language: str,
    viewport: ViewportSize,
) -> None:
    words = WORDS[language]
    changed = await server.client.patch("/api/me", json={"language": language})
    assert changed.status_code == 200, changed.text
    async with open_page(browser) as page:
        await sign_in(page, server)
        fake_llm.local.props = llama_cpp_props(n_ctx=2048)
        fake_llm.local.model_fields["gpt-4o-mini"] = {"context_length": 65536}
        added = await server.client.post(
            "/api/providers",
            json={
                "type": "openai-compatible",
                "name": "Local",
                "config": {"base_url": f"{fake_llm.base_url}/v1"},
            },
        )
        assert added.status_code == 201, added.text
        await page.set_viewport_size(viewport)
        kin_id = (await server.client.get("/api/kins")).json()["kins"][0]["id"]
        moved = await server.client.patch(f"/api/kins/{kin_id}", json={"model": "Local/gpt-4o"})
        assert moved.status_code == 200, moved.text

        await page.get_by_role("link", name=words["settings"]).click()
        card = page.locator("[data-context-window]")
        await expect(card.get_by_text(words["title"])).to_be_visible()
        await expect(card.get_by_text(words["reported"])).to_be_visible()
        await expect(card).to_have_attribute("data-context-window", "server")
        # A model whose list gives its window says it among the choices.
        choice = page.locator("#kin-model option", has_text=words["listed"])
        await expect(choice).to_have_count(1)

        # The administrator sets the model's window by hand in the card, with the keyboard.
        field = card.get_by_label(words["by_hand"])
        await field.fill("12")
        await field.press("Enter")
        await expect(card.get_by_role("alert")).to_have_text(words["refused"])
        await field.fill("4096")
        await field.press("Enter")
        await expect(card.get_by_text(words["by_hand_given"])).to_be_visible()
        await expect(card).to_have_attribute("data-context-window", "admin")
        await expect(page.get_by_text(words["saved"], exact=True)).to_be_visible()
        assert (await server.client.get(f"/api/kins/{kin_id}/context-window")).json()[
            "given"
        ] == 4096
        # Nothing wider than the screen; the card fits the phone.
        overflow = await page.evaluate(
            "document.documentElement.scrollWidth - document.documentElement.clientWidth"
        )
        assert overflow <= 0, overflow
        box = await card.bounding_box()
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= viewport["width"]
        if SCREENSHOTS:
            await card.screenshot(path=str(Path(SCREENSHOTS) / f"context-window-{language}.png"))
        # It is kept on reload; then "use what the server says" clears it.
        await page.reload()
        clear = card.get_by_role("button", name=words["clear"])
        await clear.focus()
        await page.keyboard.press("Enter")
        await expect(card.get_by_text(words["reported"])).to_be_visible()
        await expect(card).to_have_attribute("data-context-window", "server")
        await expect(clear).to_have_count(0)
        await expect(card.get_by_label(words["by_hand"])).to_have_value("")
        if SCREENSHOTS:
            shot = Path(SCREENSHOTS) / f"context-window-cleared-{language}.png"
            await card.screenshot(path=str(shot))

        # The administrator gives the window in the provider's form: it wins.
        await page.goto(server.url + "/settings")
        row = page.locator('[data-provider="Local"]')
        await row.get_by_role("button", name=words["edit"]).click()
        dialog = page.get_by_role("dialog")
        await dialog.get_by_label(words["field"]).fill("8192")
        await dialog.get_by_role("button", name=words["save"]).click()
        await expect(dialog).to_be_hidden()
        await page.goto(f"{server.url}/kins/{kin_id}/settings")
        await expect(
            page.locator("[data-context-window]").get_by_text(words["given"])
        ).to_be_visible()
