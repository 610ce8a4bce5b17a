"""How the chat flows, in Debian's Chromium at desktop (English) and phone (French) widths,
against the real server and a fake OpenAI server: a sent message stops "Waiting" once
answered without a reload, a Kin answering in another chat gets an unread badge and a count
in the tab's title, new messages below do not move what one reads, and a search over the
Kin's history opens an old message in its context."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import pytest
from playwright.async_api import Browser, Locator, Page, Route, ViewportSize, expect

from kinbot_core.platform import Platform
from kinbot_plugins.memory.sqlite_memory import backend
from tests import test_frontend_e2e as e2e
from tests.support.accounts import NICOLAS, PASSWORD
from tests.support.browser import NEEDS_BROWSER, open_page
from tests.support.server import RunningServer
from tests.test_frontend_e2e import bubble

# The browser tests' fixtures, under the names pytest looks for.
browser, server, fake_llm = e2e.browser, e2e.server, e2e.fake_llm

pytestmark = NEEDS_BROWSER

#: 15 January 2026, 10:30 in Paris: the date search results show.
OLD_TIME = 1768469400.0


@dataclass(frozen=True)
class Screen:
    width: int
    height: int
    language: str
    #: The strings the test reads, in that language.
    text: dict[str, str]

    @property
    def phone(self) -> bool:
        return self.width < 768


EN = {
    "waiting": "Waiting",
    "typing": "Chef is typing",
    "open_menu": "Open navigation",
    "unread_2": "2 unread messages",
    "new_1": "1 new message below",
    "search": "Search this chat",
    "search_for": "Search for",
    "latest": "Back to the latest messages",
    "date": "Jan 15, 2026",
    "none": "Nothing in this chat matches “zzzqqq”.",
}
FR = {
    "waiting": "En attente",
    "typing": "Chef écrit",
    "open_menu": "Ouvrir la navigation",
    "unread_2": "2 messages non lus",
    "new_1": "1 nouveau message plus bas",
    "search": "Rechercher dans cette conversation",
    "search_for": "Rechercher",
    "latest": "Revenir aux derniers messages",
    "date": "15 janv. 2026",
    "none": "Rien dans cette conversation ne correspond à « zzzqqq ».",
}
SCREENS = [Screen(1280, 800, "en", EN), Screen(390, 844, "fr", FR)]


@pytest.fixture(params=SCREENS, ids=["desktop-en", "phone-fr"])
def screen(request: pytest.FixtureRequest) -> Screen:
    value: Screen = request.param
    return value


@pytest.fixture
async def page(browser: Browser, screen: Screen) -> AsyncIterator[Page]:
    viewport: ViewportSize = {"width": screen.width, "height": screen.height}
    async with open_page(browser, timezone_id="Europe/Paris", viewport=viewport) as page:
        yield page


async def make_kin(server: RunningServer, name: str, role: str) -> dict[str, Any]:
    response = await server.client.post(
        "/api/kins", json={"name": name, "role": role, "model": "gpt-4o"}
    )
    assert response.status_code == 201, response.text
    kin: dict[str, Any] = response.json()["kin"]
    return kin


async def sign_in(page: Page, server: RunningServer, screen: Screen) -> None:
    """Nicolas signed in, in the screen's language."""
    changed = await server.client.patch("/api/me", json={"language": screen.language})
    assert changed.status_code == 200, changed.text
    signed = await page.request.post(
        server.url + "/api/auth/login", data={"email": NICOLAS["email"], "password": PASSWORD}
    )
    assert signed.ok, await signed.text()


async def open_chat(page: Page, server: RunningServer, screen: Screen, kin: dict[str, Any]) -> None:
    """Nicolas, in the screen's language, signed in and in ``kin``'s chat."""
    await sign_in(page, server, screen)
    await page.goto(f"{server.url}/kins/{kin['id']}")
    await expect(page.get_by_role("heading", name=kin["name"], exact=True)).to_be_visible()


def chat_scroller(page: Page) -> Locator:
    return page.get_by_role("main").locator("[aria-live=polite]").first


async def fill_history(
    platform: Platform, kin_id: str, count: int, special: dict[int, str]
) -> dict[int, int]:
    """``count`` stored messages (``special`` texts at their indexes); their ids by index."""
    ids = {}
    for index in range(count):
        kin_speaks = index % 2 == 1
        message = await platform.kins.add_message(
            kin_id,
            role="assistant" if kin_speaks else "user",
            source="kin" if kin_speaks else "user",
            sender_name=None if kin_speaks else "Nico",
            content=special.get(index, f"Message number {index} about the week's meals."),
            created_at=OLD_TIME + index,
        )
        ids[index] = message.id
    return ids


async def test_a_sent_message_stops_waiting_once_answered_without_a_reload(
    server: RunningServer, page: Page, screen: Screen
) -> None:
    chef = await make_kin(server, "Chef", "Family cook")
    await open_chat(page, server, screen, chef)
    reply = bubble(page, "assistant", "Hello from the fake")

    held: list[str] = []

    async def answer_after_the_reply(route: Route) -> None:
        # A slow network: the answer to the first send arrives after the whole reply went by.
        if route.request.method != "POST" or held:
            await route.continue_()
            return
        held.append(route.request.url)
        response = await route.fetch()
        await expect(reply).to_be_visible()
        await expect(page.get_by_role("status", name=screen.text["typing"])).to_have_count(0)
        await route.fulfill(response=response)

    await page.route(re.compile(r"/api/kins/[^/]+/messages$"), answer_after_the_reply)
    composer = page.locator("#composer")
    await composer.fill("What do we cook tonight?")
    async with page.expect_response(lambda response: response.request.method == "POST") as sent:
        await composer.press("Enter")
    assert (await sent.value).status == 202
    stored = (await server.client.get(f"/api/kins/{chef['id']}/messages")).json()["messages"]
    assert [m["status"] for m in stored if m["role"] == "user"] == ["done"]
    # A second exchange: by its reply, the browser has long dealt with the first send's answer.
    await composer.fill("And for dessert?")
    await composer.press("Enter")
    await expect(reply).to_have_count(2)
    await expect(page.get_by_role("status", name=screen.text["typing"])).to_have_count(0)
    for text in ("What do we cook tonight?", "And for dessert?"):
        mine = bubble(page, "me", text)
        await expect(mine).to_be_visible()
        await expect(mine.get_by_text(screen.text["waiting"])).to_have_count(0)
    await expect(page.locator("[data-status=waiting]")).to_have_count(0)


async def test_a_kin_answering_in_another_chat_gets_an_unread_badge_and_a_count_in_the_title(
    server: RunningServer, page: Page, screen: Screen
) -> None:
    chef = await make_kin(server, "Chef", "Family cook")
    penny = await make_kin(server, "Penny", "Budget keeper")
    await open_chat(page, server, screen, chef)
    # Opening a chat puts the cursor in its message box.
    if not screen.phone:
        await expect(page.locator("#composer")).to_be_focused()
    await expect(page).to_have_title("Chef · KinBot")  # the tab names the open chat

    for question in ("How much for groceries?", "And for the holidays?"):
        sent = await server.client.post(
            f"/api/kins/{penny['id']}/messages", json={"content": question}
        )
        assert sent.status_code == 202, sent.text
    await expect(page).to_have_title("(2) Chef · KinBot")

    if screen.phone:
        await page.get_by_role("button", name=screen.text["open_menu"]).click()
    sidebar = page.get_by_role("navigation", name="KinBot")
    badge = sidebar.locator(f"[data-unread-kin='{penny['id']}']")
    await expect(badge).to_have_text(re.compile(r"^2"))
    await expect(badge).to_contain_text(screen.text["unread_2"])
    await expect(sidebar.locator(f"[data-unread-kin='{chef['id']}']")).to_have_count(0)

    # Kept across a reload (per browser), then cleared by opening Penny's chat.
    await page.reload()
    await expect(page).to_have_title("(2) Chef · KinBot")
    if screen.phone:
        await page.get_by_role("button", name=screen.text["open_menu"]).click()
    await sidebar.locator(f"[data-kin-id='{penny['id']}']").click()
    await expect(page.get_by_role("heading", name="Penny", exact=True)).to_be_visible()
    await expect(page).to_have_title("Penny · KinBot")
    await expect(page.locator(f"[data-unread-kin='{penny['id']}']")).to_have_count(0)
    # A reply in the open chat is read as it comes: no badge, no count.
    sent = await server.client.post(f"/api/kins/{penny['id']}/messages", json={"content": "Thanks"})
    assert sent.status_code == 202
    await expect(bubble(page, "assistant", "Hello from the fake")).to_have_count(3)
    await expect(page).to_have_title("Penny · KinBot")
    await page.reload()
    await expect(page.get_by_role("heading", name="Penny", exact=True)).to_be_visible()
    await expect(page).to_have_title("Penny · KinBot")
    await page.goto(server.url + "/account")  # a page of its own: its name
    await expect(page).to_have_title(re.compile(r"^(My account|Mon compte) · KinBot$"))


async def test_new_messages_below_show_a_marker_instead_of_moving_what_one_reads(
    server: RunningServer, page: Page, screen: Screen
) -> None:
    chef = await make_kin(server, "Chef", "Family cook")
    await fill_history(server.platform, chef["id"], 40, {10: "The old recipe for leek soup."})
    await open_chat(page, server, screen, chef)
    latest = bubble(page, "assistant", "Message number 39")
    await expect(latest).to_be_in_viewport()

    # Scrolled up to an old message, which stays in view when a new one arrives below.
    old = bubble(page, "user", "The old recipe for leek soup.")
    await old.scroll_into_view_if_needed()
    await expect(latest).not_to_be_in_viewport()
    position = await chat_scroller(page).evaluate("element => element.scrollTop")
    await server.platform.kins.add_message(
        chef["id"], role="assistant", source="kin", content="Dinner is ready!"
    )
    await expect(bubble(page, "assistant", "Dinner is ready!")).to_have_count(1)
    await expect(old).to_be_in_viewport()
    assert await chat_scroller(page).evaluate("element => element.scrollTop") == position
    marker = page.get_by_role("button", name=screen.text["new_1"])
    await expect(marker).to_be_visible()

    # The marker is a button a keyboard reaches; it goes down to the new message.
    await marker.focus()
    await page.keyboard.press("Enter")
    await expect(bubble(page, "assistant", "Dinner is ready!")).to_be_in_viewport()
    await expect(marker).to_have_count(0)


async def test_a_search_opens_an_old_message_in_its_context(
    server: RunningServer, page: Page, screen: Screen
) -> None:
    chef = await make_kin(server, "Chef", "Family cook")
    ids = await fill_history(
        server.platform, chef["id"], 130, {12: "The plumber comes on Tuesday to fix the sink."}
    )
    await open_chat(page, server, screen, chef)
    await expect(bubble(page, "assistant", "Message number 129")).to_be_in_viewport()
    # The message is far back: not among those loaded.
    await expect(page.locator(f"[data-message-id='{ids[12]}']")).to_have_count(0)

    await backend.indexer(server.platform).catch_up()  # every message has its meaning
    await page.get_by_role("button", name=screen.text["search"]).click()
    dialog = page.get_by_role("dialog")
    # Nonsense finds nothing (not the messages nearest in meaning, however far).
    await dialog.get_by_role("searchbox", name=screen.text["search_for"]).fill("zzzqqq")
    await expect(dialog.get_by_text(screen.text["none"])).to_be_visible()
    await dialog.get_by_role("searchbox", name=screen.text["search_for"]).fill("plumber")
    result = dialog.locator(f"[data-result-id='{ids[12]}']")
    await expect(result).to_contain_text("plumber comes on Tuesday")
    await expect(result.locator("mark")).to_have_text("plumber")
    await expect(result.locator("time")).to_contain_text(screen.text["date"])
    await result.click()

    await expect(dialog).to_have_count(0)
    found = page.locator(f"[data-message-id='{ids[12]}']")
    await expect(found).to_be_in_viewport()
    await expect(found).to_have_attribute("data-highlighted", "true")
    await expect(found).to_be_focused()
    # Its neighbours are loaded around it.
    await expect(bubble(page, "user", "Message number 14")).to_have_count(1)
    await expect(bubble(page, "assistant", "Message number 129")).to_have_count(0)

    back = page.get_by_role("button", name=screen.text["latest"])
    await back.click()
    await expect(bubble(page, "assistant", "Message number 129")).to_be_in_viewport()
    await expect(back).to_have_count(0)
