"""A Kin's attached image in Debian's Chromium, on a desktop in English and a phone in
French: the Kin calls ``attach_file`` on an image of its workspace and its reply in the chat
shows the image itself (loaded with the member's session), opening larger on a click."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.async_api import Page, expect

from tests import test_frontend_e2e as e2e
from tests.support.browser import NEEDS_BROWSER
from tests.support.fakes import FakeOpenAI, Reply
from tests.support.server import RunningServer
from tests.test_frontend_e2e import bubble, sign_in
from tests.test_uploads import png

browser, page, server, fake_llm = e2e.browser, e2e.page, e2e.server, e2e.fake_llm

pytestmark = NEEDS_BROWSER

PREVIEW = {"en": "Show sunset.png larger", "fr": "Agrandir sunset.png"}


@pytest.mark.parametrize(
    "language,width,height", [("en", 1280, 800), ("fr", 390, 844)], ids=["desktop-en", "phone-fr"]
)
async def test_an_image_the_kin_attaches_shows_in_its_reply(
    server: RunningServer,
    fake_llm: FakeOpenAI,
    page: Page,
    language: str,
    width: int,
    height: int,
) -> None:
    changed = await server.client.patch("/api/me", json={"language": language})
    assert changed.status_code == 200, changed.text
    await sign_in(page, server)
    await page.set_viewport_size({"width": width, "height": height})
    kin_id = (await server.client.get("/api/kins")).json()["kins"][0]["id"]
    workspace = Path((await server.platform.kins.get(kin_id)).workspace)
    (workspace / "sunset.png").write_bytes(png("orange", (64, 40)))
    fake_llm.enqueue(
        Reply(tool_calls=[("attach_file", {"path": "sunset.png"})]),
        Reply(text="Here is the sunset."),
    )
    await page.goto(f"{server.url}/kins/{kin_id}")
    sent = await server.client.post(
        f"/api/kins/{kin_id}/messages", json={"content": "Draw me a sunset"}
    )
    assert sent.status_code == 202, sent.text

    reply = bubble(page, "assistant", "Here is the sunset.")
    opener = reply.get_by_role("button", name=PREVIEW[language])
    await expect(opener).to_be_visible()
    image = opener.locator("img")
    await expect(image).to_have_js_property("complete", True)
    assert await image.evaluate("img => img.naturalWidth") == 64  # loaded, not a broken image
    await opener.click()
    await expect(page.get_by_role("dialog").get_by_role("img", name="sunset.png")).to_be_visible()
