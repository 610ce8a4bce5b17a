"""Stop and "Answer again" in Debian's Chromium, at desktop width in English and phone width in
French: Stop keeps the text streamed so far, marked as stopped (it used to vanish without a
word); asking for the last reply again runs the turn anew, and the old reply stays in the chat,
marked replaced, without a reload."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from playwright.async_api import Page, expect

from tests import test_frontend_e2e as e2e
from tests.support.browser import NEEDS_BROWSER
from tests.support.fakes import FakeOpenAI, Reply
from tests.test_frontend_e2e import bubble, sign_in

# The browser tests' fixtures, under the names pytest looks for.
browser, page, server, fake_llm = e2e.browser, e2e.page, e2e.server, e2e.fake_llm

pytestmark = NEEDS_BROWSER

WORDS = {
    "en": {"stop": "Stop", "stopped": "Stopped", "again": "Answer again", "replaced": "Replaced",
           "placeholder": "Message Chef…"},
    "fr": {"stop": "Arrêter", "stopped": "Arrêté", "again": "Répondre à nouveau",
           "replaced": "Remplacé", "placeholder": "Écrire à Chef…"},
}  # fmt: skip
#: A reply stopped halfway: its first 48 characters stream, then it waits (``held``).
LONG = "Tonight a leek and potato soup, then " + "a long story about leeks " * 64


@pytest.mark.parametrize(
    "language,width,height", [("en", 1280, 800), ("fr", 390, 844)], ids=["desktop-en", "phone-fr"]
)
async def test_stop_keeps_the_partial_reply_and_answer_again_replaces_it(
    server: Any, fake_llm: FakeOpenAI, page: Page, language: str, width: int, height: int
) -> None:
    words = WORDS[language]
    patched = await server.client.patch("/api/me", json={"language": language})
    assert patched.status_code == 200, patched.text
    await sign_in(page, server)
    await page.set_viewport_size({"width": width, "height": height})
    fake_llm.enqueue(
        Reply(text=LONG, chunk_size=4, chunk_delay=0.1, held=threading.Event(), held_after=13)
    )

    composer = page.get_by_placeholder(words["placeholder"])
    await composer.fill("What do we cook tonight?")
    await composer.press("Enter")
    streaming = bubble(page, "assistant", "Tonight a leek and potato soup")
    await expect(streaming).to_be_visible()
    await page.get_by_role("button", name=words["stop"]).click()

    # The partial text stays, stored, and says it was stopped.
    stopped = page.locator("[data-origin='assistant']", has=page.locator("[data-stopped]"))
    await expect(stopped).to_contain_text("Tonight a leek and potato soup")
    await expect(stopped.locator("[data-stopped]")).to_have_text(words["stopped"])
    messages = (await server.client.get(f"/api/kins/{(await kin_id(server))}/messages")).json()
    kept = [m for m in messages["messages"] if (m.get("meta") or {}).get("stopped")]
    assert len(kept) == 1 and LONG.startswith(kept[0]["content"])
    assert len(kept[0]["content"]) < len(LONG)
    await expect(stopped).to_have_count(1)  # the streamed copy is gone, not shown twice

    # Asked again: a new reply, and the stopped one stays, marked replaced (no reload).
    fake_llm.enqueue(Reply(text="A quick pumpkin soup, then."))
    await stopped.get_by_role("button", name=words["again"]).click()
    await expect(bubble(page, "assistant", "A quick pumpkin soup, then.")).to_be_visible()
    await expect(stopped.locator("[data-superseded]")).to_have_text(words["replaced"])
    await expect(stopped.get_by_role("button", name=words["again"])).to_have_count(0)


async def kin_id(server: Any) -> str:
    kins: list[dict[str, Any]] = (await server.client.get("/api/kins")).json()["kins"]
    return str(kins[0]["id"])
