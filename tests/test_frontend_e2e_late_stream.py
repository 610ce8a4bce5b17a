"""A live stream that opens late (a slow phone, a flaky network), in Debian's Chromium at
desktop (English) and phone (French) widths: the page loads without it, then reads again once
it opens, and what that read brings (read by the server before the latest events) never takes
back what the events said meanwhile. The answers are held by the browser's own request
routing, so each read lands at the moment the test chooses."""

from __future__ import annotations

import asyncio
import re
import threading
from typing import Any

from playwright.async_api import Locator, Page, Route, expect

from tests import test_frontend_e2e_chatflow as chatflow
from tests.support.browser import NEEDS_BROWSER
from tests.support.fakes import FakeOpenAI, RecordedRequest, Reply
from tests.support.server import RunningServer
from tests.support.waiting import eventually
from tests.test_frontend_e2e import bubble

# The browser tests' fixtures, under the names pytest looks for.
browser, server, fake_llm = chatflow.browser, chatflow.server, chatflow.fake_llm
screen, page = chatflow.screen, chatflow.page
Screen = chatflow.Screen

pytestmark = NEEDS_BROWSER

WORDS = {
    "en": {"stop": "Stop", "completed": "completed", "older": "Load earlier messages"},
    "fr": {"stop": "Arrêter", "completed": "terminée", "older": "Charger les messages précédents"},
}
#: What the task's sub-Kin finds: its first pieces stream, then it waits (``held``).
FOUND = "Three soups: leek and potato, pumpkin velouté and a minestrone."


class LateStream:
    """The page's live stream held until ``open``, and its ``nth`` read of ``pattern`` read
    by the server at once but handed to the page only at ``deliver``."""

    def __init__(self, page: Page, pattern: str, nth: int) -> None:
        self.page, self.pattern, self.nth = page, re.compile(pattern), nth
        self.may_open, self.read, self.may_deliver = (asyncio.Event() for _ in range(3))
        self.reads = 0

    async def route(self) -> None:
        await self.page.route(re.compile(r"/api/events$"), self._stream)
        await self.page.route(self.pattern, self._answer)

    async def _stream(self, route: Route) -> None:
        await self.may_open.wait()
        await route.continue_()

    async def _answer(self, route: Route) -> None:
        self.reads += 1
        if self.reads != self.nth:
            await route.continue_()
            return
        response = await route.fetch()
        self.read.set()
        await self.may_deliver.wait()
        await route.fulfill(response=response)

    async def open(self) -> None:
        """Let the stream open: the page, which loaded without it, reads again; wait until
        the held read was made."""
        self.may_open.set()
        await self.read.wait()

    def deliver(self) -> None:
        self.may_deliver.set()


async def test_the_kins_read_again_do_not_take_a_thinking_kins_stop_button_back(
    server: RunningServer, fake_llm: FakeOpenAI, page: Page, screen: Screen
) -> None:
    chef = await chatflow.make_kin(server, "Chef", "Family cook")
    late = LateStream(page, r"/api/kins$", nth=2)
    await late.route()
    await chatflow.open_chat(page, server, screen, chef)
    # Renamed while the page hears nothing: the read again shows the new name when it lands.
    renamed = await server.client.patch(f"/api/kins/{chef['id']}", json={"name": "Chef Léo"})
    assert renamed.status_code == 200, renamed.text
    await late.open()  # read while Chef is idle

    fake_llm.enqueue(Reply(text="Tonight a leek soup, then a tart.", chunk_size=4,
                           held=threading.Event(), held_after=5))  # fmt: skip
    composer = page.locator("#composer")
    await composer.fill("What do we cook tonight?")
    await composer.press("Enter")
    await expect(bubble(page, "assistant", "Tonight a leek")).to_be_visible()
    stop = page.get_by_role("button", name=WORDS[screen.language]["stop"])
    await expect(stop).to_be_visible()

    late.deliver()  # the list read before Chef began thinking lands now
    await expect(page.get_by_role("heading", name="Chef Léo", exact=True)).to_be_visible()
    await expect(stop).to_be_visible()
    await stop.click()
    await expect(stop).to_have_count(0)


async def test_a_task_read_again_keeps_the_answer_and_the_end_that_came_meanwhile(
    server: RunningServer, fake_llm: FakeOpenAI, page: Page, screen: Screen
) -> None:
    chef = await chatflow.make_kin(server, "Chef", "Family cook")
    starting, answering = threading.Event(), threading.Event()

    def script(request: RecordedRequest) -> Reply | None:
        if request.endpoint != "chat":
            return None
        messages = request.body["messages"]
        last = messages[-1]
        if "ephemeral sub-Kin" in messages[0]["content"]:
            if last["role"] == "tool":
                return Reply(text=FOUND, chunk_size=4, held=answering, held_after=5)
            # An unknown tool: its error comes back at once, and the Kin goes on.
            look: tuple[str, dict[str, Any]] = ("look_in_the_recipe_book", {})
            return Reply(text="Looking in the recipe book.", tool_calls=[look], held=starting)
        if last["role"] == "user" and "Soups?" in str(last.get("content")):
            task = {"task_description": "Find three soups", "mode": "async"}
            return Reply(tool_calls=[("spawn_self", task)])
        return Reply(text="Noted.")  # the task begun, then its result

    fake_llm.responder = script
    sent = await server.client.post(f"/api/kins/{chef['id']}/messages", json={"content": "Soups?"})
    assert sent.status_code == 202, sent.text
    task_id = await eventually(running_task(server))

    late = LateStream(page, rf"/api/tasks/{task_id}\?", nth=2)
    await late.route()
    await chatflow.sign_in(page, server, screen)
    await page.goto(f"{server.url}/tasks/{task_id}")
    panel = page.get_by_role("main", name="Find three soups")
    await expect(panel.get_by_text("Find three soups", exact=True).first).to_be_visible()

    # The sub-Kin looks in the book and begins its answer while the page hears nothing; the
    # stream opens and the page reads the task again, with its answer begun.
    starting.set()
    await eventually(answer_begun(server, task_id))
    await late.open()
    # The answer ends, the task with it: the page hears both before the read lands.
    answering.set()
    answer, result = bubble(page, "assistant", FOUND), bubble(page, "task", FOUND)
    completed = panel.get_by_text(WORDS[screen.language]["completed"], exact=True)
    for shown in (answer, result, completed):
        await expect(shown).to_be_visible()

    late.deliver()
    await expect(panel.get_by_text("Looking in the recipe book.")).to_be_visible()
    for shown in (answer, result, completed):
        await expect(shown).to_be_visible()
    await expect(bubble(page, "assistant", FOUND[:12])).to_have_count(1)  # no half answer


async def test_the_chat_read_again_drops_an_earlier_page_asked_for_before_it(
    server: RunningServer, page: Page, screen: Screen
) -> None:
    chef = await chatflow.make_kin(server, "Chef", "Family cook")
    await chatflow.fill_history(server.platform, chef["id"], 130, {})
    late = LateStream(page, rf"/api/kins/{chef['id']}/messages\?.*before=", nth=1)
    await late.route()
    await chatflow.open_chat(page, server, screen, chef)
    await expect(said(page, 129)).to_be_visible()
    older = page.get_by_role("button", name=WORDS[screen.language]["older"])
    await older.click()  # messages 30 to 79, read at once, held
    await late.read.wait()
    # Sixty more while the page hears nothing: the chat read again shows 140 to 189.
    for index in range(130, 190):
        await server.platform.kins.add_message(
            chef["id"], role="user", source="user", sender_name="Nico",
            content=f"Message number {index} about the week's meals.",
            created_at=chatflow.OLD_TIME + index,
        )  # fmt: skip
    await late.open()
    await expect(said(page, 189)).to_be_visible()

    # The page asked for before lands, and is dropped: earlier messages go on from 139, with
    # no gap (the button does nothing while that page is under way).
    late.deliver()

    async def gap_filled() -> bool:
        if await said(page, 139).count():
            return True
        if not await older.count():
            raise AssertionError("the history began without message 139: a gap was left")
        await older.click()
        return False

    await eventually(gap_filled, seconds=30)


def said(page: Page, number: int) -> Locator:
    """The bubble of ``fill_history``'s message ``number``."""
    return page.locator("[data-origin]", has_text=f"Message number {number} ")


def running_task(server: RunningServer) -> Any:
    async def probe() -> str | None:
        tasks = (await server.client.get("/api/tasks?status=active")).json()["tasks"]
        return str(tasks[0]["id"]) if tasks else None

    return probe


def answer_begun(server: RunningServer, task_id: str) -> Any:
    async def probe() -> bool:
        draft = (await server.client.get(f"/api/tasks/{task_id}")).json().get("draft")
        return bool(draft and draft["text"])

    return probe
