"""Messaging channels in Debian's Chromium, against the real server and the fake Telegram Bot
API: an administrator adds a Telegram connection from Settings → Channels (the form made from
the plugin's settings schema), sees it running, sees a family member who wrote to the bot
waiting to be linked and links her; her question then reaches the Kin, the answer goes back
to Telegram, and both show in the chat. Desktop in English, phone in French."""

from __future__ import annotations

import os
import re
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.async_api import Browser, Page, expect

from kinbot_core.config import load_settings
from kinbot_core.platform import Platform
from tests import test_frontend_e2e as e2e
from tests.support.accounts import MARIE, NICOLAS, PASSWORD, register, set_up_admin
from tests.support.browser import NEEDS_BROWSER, open_page, toast
from tests.support.fakes import FakeOpenAI, Reply
from tests.support.provider_setups import add_openai_provider
from tests.support.server import RunningServer, running_server
from tests.support.telegram_fake import FakeTelegram, Sent, TelegramUser
from tests.support.telegram_setup import TOKEN

pytestmark = NEEDS_BROWSER

#: Where screenshots go when ``KINBOT_SCREENSHOTS`` names a folder (to look at, not compared).
SCREENSHOTS = os.environ.get("KINBOT_SCREENSHOTS")

browser, fake_llm = e2e.browser, e2e.fake_llm

WORDS = {
    "en": {
        "tab": "Channels", "add": "Add a channel", "name": "Name", "token": "Bot token",
        "api": "Bot API address", "files": "Bot API file address",
        "wait": "Polling wait (seconds)", "submit": "Add", "running": "Running", "link": "Link",
        "member": "Member", "linked": "You are linked", "settings": "Settings",
        "link_to": "Link to", "to_contact": "A contact of a Kin",
        "not_delivered": "Not delivered to Family Telegram",
        "blocked": "The person blocked the bot, or removed it from the chat.",
        "undelivered": "1 reply not delivered in the last 7 days.",
        "again": "Try again", "unlink": "Unlink", "linked_heading": "Linked accounts",
        "unlink_hint": "will no longer reach the Kins from Family Telegram",
    },
    "fr": {
        "tab": "Canaux", "add": "Ajouter un canal", "name": "Nom", "token": "Jeton du bot",
        "api": "Adresse de l'API Bot", "files": "Adresse des fichiers de l'API Bot",
        "wait": "Attente de l'interrogation (secondes)", "submit": "Ajouter",
        "running": "En marche", "link": "Lier", "member": "Membre", "linked": "Vous êtes lié",
        "settings": "Réglages", "link_to": "Lier à", "to_contact": "Un contact d'un Kin",
        "not_delivered": "Non remis à Family Telegram",
        "blocked": "La personne a bloqué le bot, ou l'a retiré de la conversation.",
        "undelivered": "1 réponse non remise ces 7 derniers jours.",
        "again": "Réessayer", "unlink": "Délier", "linked_heading": "Comptes liés",
        "unlink_hint": "ne pourra plus écrire aux Kins depuis Family Telegram",
    },
}  # fmt: skip
CASES = {
    "desktop-en": ({"width": 1280, "height": 800}, "en"),
    "phone-fr": ({"width": 390, "height": 844}, "fr"),
}


@pytest.fixture
def telegram() -> Iterator[FakeTelegram]:
    with FakeTelegram() as fake:
        fake.add_bot(TOKEN)
        yield fake


@pytest.fixture(params=list(CASES), ids=list(CASES))
def case(request: pytest.FixtureRequest) -> tuple[dict[str, int], str]:
    viewport, language = CASES[request.param]
    return viewport, language


@pytest.fixture
async def server(
    data_dir: Path, fake_llm: FakeOpenAI, case: tuple[dict[str, int], str]
) -> AsyncIterator[RunningServer]:
    settings = load_settings(data_dir=data_dir, llm_max_retries=0)
    async with running_server(Platform(settings)) as server:
        await set_up_admin(server.client, {**NICOLAS, "language": case[1]})
        await add_openai_provider(server.client, fake_llm)
        skipped = await server.client.post("/api/onboarding/search-providers/skip")
        assert skipped.status_code == 204
        yield server


@pytest.fixture
async def page(browser: Browser, case: tuple[dict[str, int], str]) -> AsyncIterator[Page]:
    async with open_page(browser, viewport=case[0]) as page:
        yield page


def to(chat_id: int, text: str) -> Any:
    def sent(messages: list[Sent]) -> bool:
        return any(s.chat_id == str(chat_id) and text in (s.text or "") for s in messages)

    return sent


async def test_an_administrator_adds_telegram_links_a_member_and_her_messages_show(
    server: RunningServer,
    fake_llm: FakeOpenAI,
    telegram: FakeTelegram,
    page: Page,
    case: tuple[dict[str, int], str],
) -> None:
    language = case[1]
    words = WORDS[language]
    kin = (await server.client.post("/api/kins", json={"name": "Chef", "model": "gpt-4o"})).json()
    kin_id = kin["kin"]["id"]
    async with server.new_client() as marie:
        await register(server.client, marie, MARIE)
    marie_tg = TelegramUser(4242, "Marie", "Durand", language_code=language)

    await page.goto(server.url + "/signin")
    await page.get_by_label("Email").fill(NICOLAS["email"])
    await page.get_by_label("Password").fill(PASSWORD)
    await page.get_by_role("button", name="Sign in").click()
    await expect(page).to_have_url(re.compile(r"/kins/"))
    await page.goto(server.url + "/settings")
    await page.get_by_role("tab", name=words["tab"]).click()

    # The form comes from the plugin's settings schema, in the reader's language.
    form = page.get_by_role("form", name=words["add"])
    await form.get_by_label(words["name"], exact=True).fill("Family Telegram")
    await form.get_by_label("Chef").check()
    await form.get_by_role("textbox", name=words["token"]).fill(TOKEN)
    await form.get_by_label(words["api"], exact=True).fill(telegram.base_url)
    await form.get_by_label(words["files"], exact=True).fill(telegram.base_file_url)
    await form.get_by_label(words["wait"]).fill("1")
    await form.get_by_role("button", name=words["submit"], exact=True).click()
    connection = page.locator('[data-channel="Family Telegram"]')
    await expect(connection.locator("[data-channel-state]")).to_have_text(words["running"])
    assert TOKEN not in await page.content()

    # Marie writes to the bot: she waits to be linked; Nicolas links her to her account.
    telegram.user_sends(TOKEN, marie_tg, "Hello")
    waiting = page.locator('[data-pairing="Marie Durand"]')
    await waiting.get_by_role("button", name=words["link"], exact=True).click()
    dialog = page.get_by_role("dialog")
    await dialog.get_by_label(words["member"]).select_option(label="Marie (Marie Durand)")
    await dialog.get_by_role("button", name=words["link"], exact=True).click()
    await expect(page.locator('[data-identity="Marie Durand"]')).to_be_visible()
    await expect(waiting).to_have_count(0)
    await telegram.sent_when(to(marie_tg.id, words["linked"]))

    # Grandma writes too; Nicolas makes her a contact of Chef. The page asks for the channels
    # again every few seconds: the dialog keeps his choice through that (it once fell back
    # to linking her as the administrator himself).
    telegram.user_sends(TOKEN, TelegramUser(5151, "Mamie", "Durand"), "Coucou")
    grandma = page.locator('[data-pairing="Mamie Durand"]')
    await grandma.get_by_role("button", name=words["link"], exact=True).click()
    await expect(dialog.get_by_role("button", name=words["link"], exact=True)).to_be_disabled()
    await dialog.get_by_label(words["link_to"]).select_option(label=words["to_contact"])
    async with page.expect_response(re.compile(r"/api/channels$")):
        pass  # the list's next refresh
    await dialog.get_by_role("button", name=words["link"], exact=True).click()
    linked = page.locator('[data-identity="Mamie Durand"]')
    await expect(linked).to_contain_text("Chef")
    await expect(linked).not_to_contain_text("Nico")
    grandma_link = (await server.client.get("/api/channels/identities")).json()["identities"]
    assert [
        (i["user_id"], i["contact_name"])
        for i in grandma_link
        if i["display_name"] == "Mamie Durand"
    ] == [(None, "Mamie Durand")]

    # Her question reaches the Kin; the answer goes back to Telegram; both are in the chat.
    fake_llm.enqueue(Reply(text="Lasagne tonight."))
    telegram.user_sends(TOKEN, marie_tg, "What's for dinner?")
    await telegram.sent_when(to(marie_tg.id, "Lasagne tonight."))
    await page.goto(f"{server.url}/kins/{kin_id}")
    question = e2e.bubble(page, "user", "What's for dinner?")
    answer = e2e.bubble(page, "assistant", "Lasagne tonight.")
    await expect(question).to_contain_text("Marie")
    # Both carry the channel's badge: received through it, and sent back through it.
    for message in (question, answer):
        badge = message.locator('[data-origin-kind="telegram"]')
        await expect(badge).to_contain_text("via Family Telegram")

    # Marie blocked the bot: the next answer cannot reach her. The chat says so at once
    # (live), and why; once she unblocks it, "Try again" sends it, and the badge comes.
    fake_llm.enqueue(Reply(text="Pizza tomorrow."))
    telegram.fail_next("sendMessage", 403)  # "Forbidden: bot was blocked by the user"
    telegram.user_sends(TOKEN, marie_tg, "And tomorrow?")
    refused = e2e.bubble(page, "assistant", "Pizza tomorrow.")
    sign = refused.locator('[data-undelivered="channel_blocked"]')
    await expect(sign).to_contain_text(words["not_delivered"])
    await expect(sign).to_contain_text(words["blocked"])
    await expect(refused.locator("[data-origin-kind]")).to_have_count(0)
    if SCREENSHOTS:
        await page.screenshot(path=str(Path(SCREENSHOTS) / f"undelivered-{language}.png"))
    # Settings → Channels: the connection runs, and says a reply did not get through, and why.
    await page.goto(server.url + "/settings")
    await page.get_by_role("tab", name=words["tab"]).click()
    await expect(connection.locator("[data-channel-state]")).to_have_text(words["running"])
    undelivered = connection.locator("[data-channel-undelivered]")
    await expect(undelivered).to_contain_text(words["undelivered"])
    await expect(undelivered).to_contain_text(words["blocked"])
    if SCREENSHOTS:
        await page.screenshot(path=str(Path(SCREENSHOTS) / f"channel-undelivered-{language}.png"))
    await page.goto(f"{server.url}/kins/{kin_id}")  # stored, not only live
    await expect(sign).to_contain_text(words["not_delivered"])
    await sign.get_by_role("button", name=words["again"]).click()
    await telegram.sent_when(to(marie_tg.id, "Pizza tomorrow."))
    await expect(refused.locator('[data-origin-kind="telegram"]')).to_contain_text(
        "via Family Telegram"
    )
    await expect(sign).to_have_count(0)

    # Unlinking says what it does; the keyboard then goes to the next linked account and, the
    # list empty, to its heading (it used to fall to the page's top).
    await page.goto(server.url + "/settings")
    await page.get_by_role("tab", name=words["tab"]).click()
    identities = page.locator("[data-identity]")
    await expect(identities).to_have_count(2)
    await identities.first.get_by_role("button").focus()
    await page.keyboard.press("Enter")
    confirm = page.get_by_role("dialog")
    await expect(confirm).to_contain_text(words["unlink_hint"])
    if SCREENSHOTS:
        await page.screenshot(path=str(Path(SCREENSHOTS) / f"unlink-{language}.png"))
    await confirm.get_by_role("button", name=words["unlink"], exact=True).click()
    await expect(identities).to_have_count(1)
    await expect(identities.first.get_by_role("button")).to_be_focused()
    await page.keyboard.press("Enter")
    await confirm.get_by_role("button", name=words["unlink"], exact=True).click()
    await expect(identities).to_have_count(0)
    await expect(page.get_by_role("heading", name=words["linked_heading"])).to_be_focused()


CONNECTING = {
    "en": {
        "added": "Channel added: connecting…",
        "cannot": "Family Telegram cannot connect yet",
        "token": "Telegram refused the bot token: check it.",
        "failing": "Failing",
        "saved": "Channel saved: connecting…",
        "connected": "Family Telegram is connected.",
        "save": "Save",
        "change": "Change Family Telegram",
        "replace": "Replace",
    },
    "fr": {
        "added": "Canal ajouté : connexion en cours…",
        "cannot": "Family Telegram ne parvient pas encore à se connecter",
        "token": "Telegram a refusé le jeton du bot : vérifiez-le.",
        "failing": "En échec",
        "saved": "Canal enregistré : connexion en cours…",
        "connected": "Family Telegram est connecté.",
        "save": "Enregistrer",
        "change": "Modifier Family Telegram",
        "replace": "Remplacer",
    },
}


async def test_a_channel_that_cannot_connect_is_not_announced_as_a_success(
    server: RunningServer, telegram: FakeTelegram, page: Page, case: tuple[dict[str, int], str]
) -> None:
    language = case[1]
    words, said = WORDS[language], CONNECTING[language]
    await server.client.post("/api/kins", json={"name": "Chef", "model": "gpt-4o"})
    await page.goto(server.url + "/signin")
    await page.get_by_label("Email").fill(NICOLAS["email"])
    await page.get_by_label("Password").fill(PASSWORD)
    await page.get_by_role("button", name="Sign in").click()
    await expect(page).to_have_url(re.compile(r"/kins/"))
    await page.goto(server.url + "/settings")
    await page.get_by_role("tab", name=words["tab"]).click()

    # A revoked token: "added" says the connection is under way, then why it cannot connect,
    # in Telegram's own terms; the list says the same under the connection.
    form = page.get_by_role("form", name=words["add"])
    await form.get_by_label(words["name"], exact=True).fill("Family Telegram")
    await form.get_by_label("Chef").check()
    await form.get_by_role("textbox", name=words["token"]).fill("1234:revoked-token-0123456789abc")
    await form.get_by_label(words["api"], exact=True).fill(telegram.base_url)
    await form.get_by_label(words["files"], exact=True).fill(telegram.base_file_url)
    await form.get_by_label(words["wait"]).fill("1")
    await form.get_by_role("button", name=words["submit"], exact=True).click()
    await expect(toast(page, said["added"])).to_be_visible()
    await expect(toast(page, said["cannot"])).to_be_visible()
    await expect(toast(page, said["token"])).to_be_visible()
    connection = page.locator('[data-channel="Family Telegram"]')
    await expect(connection.locator("[data-channel-state]")).to_have_text(said["failing"])
    await expect(connection.locator("[data-channel-error]")).to_have_text(said["token"])
    if SCREENSHOTS:
        shot = Path(SCREENSHOTS) / f"channel-cannot-connect-{language}.png"
        await page.screenshot(path=str(shot))

    # The right token: "saved", then connected.
    await connection.get_by_role("button", name=said["change"]).click()
    dialog = page.get_by_role("dialog")
    await dialog.get_by_role("button", name=said["replace"], exact=True).click()
    await dialog.get_by_role("textbox", name=words["token"]).fill(TOKEN)
    await dialog.get_by_role("button", name=said["save"], exact=True).click()
    await expect(toast(page, said["saved"])).to_be_visible()
    await expect(toast(page, said["connected"])).to_be_visible()
    await expect(connection.locator("[data-channel-state]")).to_have_text(words["running"])
