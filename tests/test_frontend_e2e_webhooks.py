"""Inbound webhooks in Debian's Chromium, on a desktop in English and a phone in French: an
administrator creates a webhook in Settings, sees its address once (with a command to try
it), a service posts to it, and the Kin's chat shows the message with its "via Home
Assistant" badge, then the Kin's answer; Settings then shows when it last received one."""

from __future__ import annotations

import re

import pytest
from playwright.async_api import Page, expect

from tests import test_frontend_e2e as e2e
from tests.support.browser import NEEDS_BROWSER
from tests.support.fakes import FakeOpenAI, Reply
from tests.support.server import RunningServer
from tests.test_frontend_e2e import bubble, sign_in

browser, page, server, fake_llm = e2e.browser, e2e.page, e2e.server, e2e.fake_llm

pytestmark = NEEDS_BROWSER

WORDS = {
    "en": {
        "new": "New webhook",
        "name": "Name",
        "create": "Create",
        "address_of": "Address of Home Assistant",
        "done": "Done",
        "never": "No message yet",
        "last": "Last message",
        "received": "Received through Home Assistant (webhook)",
        "via": "via Home Assistant",
    },
    "fr": {
        "new": "Nouveau webhook",
        "name": "Nom",
        "create": "Créer",
        "address_of": "Adresse de Home Assistant",
        "done": "Terminé",
        "never": "Aucun message pour l'instant",
        "last": "Dernier message",
        "received": "Reçu par Home Assistant (webhook)",
        "via": "via Home Assistant",
    },
}


@pytest.mark.parametrize(
    "language,width,height", [("en", 1280, 800), ("fr", 390, 844)], ids=["desktop-en", "phone-fr"]
)
async def test_a_webhook_is_created_its_address_shown_once_and_its_message_has_a_badge(
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
    kin_id = (await server.client.get("/api/kins")).json()["kins"][0]["id"]

    await page.goto(server.url + "/settings")
    await page.get_by_role("tab", name="Webhooks").click()
    await page.get_by_role("button", name=words["new"]).click()
    dialog = page.get_by_role("dialog", name=words["new"])
    await dialog.get_by_label(words["name"], exact=True).fill("Home Assistant")
    await dialog.get_by_role("button", name=words["create"], exact=True).click()

    # The address, once: on this page's own origin, with a command that uses it.
    shown = page.get_by_role("dialog", name=words["address_of"])
    address = shown.locator("[data-webhook-url]")
    await expect(address).to_have_value(
        re.compile(re.escape(server.url) + "/api/hooks/[A-Za-z0-9_-]{43}$")
    )
    url = await address.input_value()
    await expect(shown.locator("[data-webhook-example]")).to_contain_text(f"curl -X POST '{url}'")
    await shown.get_by_role("button", name=words["done"]).click()
    await expect(shown).to_have_count(0)
    # The keyboard is back on "New webhook", not lost at the top of the page.
    await expect(page.get_by_role("button", name=words["new"])).to_be_focused()
    webhook = page.get_by_role("listitem", name="Home Assistant")
    await expect(webhook).to_contain_text(words["never"])
    token = url.rsplit("/", 1)[1]
    assert token not in await page.content()
    await page.reload()
    await page.get_by_role("tab", name="Webhooks").click()
    await expect(webhook).to_be_visible()
    assert token not in await page.content()

    # Home Assistant posts; the chat shows the message with its badge, then the answer.
    fake_llm.enqueue(Reply(text="The front door just opened."))
    await page.goto(f"{server.url}/kins/{kin_id}")
    async with server.new_client() as home_assistant:
        posted = await home_assistant.post(url, json={"event": "door_opened"})
    assert posted.status_code == 202, posted.text
    message = bubble(page, "user", "event: door_opened")
    badge = message.locator("[data-origin-kind='webhook']")
    await expect(badge).to_contain_text(words["via"])
    await expect(badge).to_have_attribute("title", words["received"])
    await expect(badge.locator("svg")).to_be_visible()
    await expect(message).to_contain_text("Home Assistant")
    await expect(bubble(page, "assistant", "The front door just opened.")).to_be_visible()

    await page.goto(server.url + "/settings")
    await page.get_by_role("tab", name="Webhooks").click()
    await expect(webhook).to_contain_text(words["last"])
