"""A turn too long for the model's window, in the chat, in Debian's Chromium (English at desktop
width, French at phone width): the error card says the window and about what the turn needs,
numbers written as the reader's language writes them, names no address of the server, and
leads (by the keyboard) to the Kin's context window card, which now shows the server's figure.

The turn fails for real: the fake OpenAI server has a 2,048-token window and refuses, as
llama.cpp does, a message larger than that, twice (the call and its one retry)."""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.async_api import Page, expect

from tests import test_frontend_e2e as e2e
from tests.support.browser import NEEDS_BROWSER
from tests.support.fakes import FakeOpenAI
from tests.support.kin_chat import session, tell, turn_ended
from tests.support.server import RunningServer
from tests.support.sse import sse_stream
from tests.test_frontend_e2e import make_kin, sign_in

# The browser tests' fixtures, under the names pytest looks for.
browser, page, server, fake_llm = e2e.browser, e2e.page, e2e.server, e2e.fake_llm

pytestmark = NEEDS_BROWSER

HUGE = "Here is the whole family recipe book, please read it. " * 220


def sentence(language: str, needed: int) -> str:
    if language == "en":
        return (
            f"Chef's model has a 2,048-token window; KinBot needs about {needed:,} for this "
            "turn: raise the model's context size or choose a larger model."
        )
    french = f"{needed:,}".replace(",", "\u202f")  # French groups digits with a narrow space
    return (
        f"Le modèle de Chef a une fenêtre de 2\u202f048 jetons ; KinBot en a besoin d'environ "
        f"{french} pour ce tour : augmentez la taille de contexte du modèle ou choisissez un "
        "modèle plus grand."
    )


LINK = {"en": "See Chef's context window", "fr": "Voir la fenêtre de contexte de Chef"}
WINDOW = {
    "en": "2,048 tokens, reported by the server",
    "fr": "2\u202f048 jetons (chiffre fourni par le serveur)",
}


@pytest.mark.parametrize(
    "language,width,height", [("en", 1280, 800), ("fr", 390, 844)], ids=["desktop-en", "phone-fr"]
)
async def test_a_turn_too_long_for_the_window_reads_with_its_numbers(
    server: RunningServer,
    fake_llm: FakeOpenAI,
    page: Page,
    language: str,
    width: int,
    height: int,
) -> None:
    patched = await server.client.patch("/api/me", json={"language": language})
    assert patched.status_code == 200, patched.text
    kin: dict[str, Any] = await make_kin(server)
    fake_llm.window = 2048
    async with sse_stream(server.client) as stream:
        message_id = await tell(server.client, kin["id"], HUGE)
        await stream.wait_for(turn_ended(message_id))
    (failure,) = [m for m in await session(server.client, kin["id"]) if m["is_error"]]
    needed = failure["meta"]["params"]["needed"]
    assert failure["meta"]["params"]["window"] == 2048 and needed > 2048

    await sign_in(page, server)
    await page.set_viewport_size({"width": width, "height": height})
    await page.goto(f"{server.url}/kins/{kin['id']}")
    card = page.locator("[data-error-card='context_overflow']")
    await expect(card).to_contain_text(sentence(language, needed))
    text = await page.get_by_role("main").first.inner_text()
    assert not re.search(r"127\.0\.0\.1|https?://|ContextOverflow", text), text
    overflow = await page.evaluate(
        "document.scrollingElement.scrollWidth - document.scrollingElement.clientWidth"
    )
    assert overflow <= 0

    # The card leads, by the keyboard, to the Kin's context window: the figure the server
    # named in its refusal, and how to raise it.
    await card.get_by_role("link", name=LINK[language]).press("Enter")
    window = page.locator("[data-context-window]")
    await expect(window).to_contain_text(WINDOW[language])
    await expect(window).to_have_attribute("data-context-window", "server")
    await expect(window).to_be_in_viewport()
    assert page.url.endswith(f"/kins/{kin['id']}/settings#context-window")
