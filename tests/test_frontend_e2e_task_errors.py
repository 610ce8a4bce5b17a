"""Why a task failed, on its page, in Debian's Chromium at phone and desktop width: the
sentence is the interface's, in the reader's language, worded from the task's ``error_code``;
the provider's own words show only as a secondary line; the server's English sentence
(``error``, for models and API clients) never shows.

The task fails for real: Chef spawns a sub-Kin whose model call the fake OpenAI server answers
503 with its own message."""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.async_api import Page, expect

from tests import test_frontend_e2e as e2e
from tests.support.browser import NEEDS_BROWSER
from tests.support.fakes import FakeOpenAI, RecordedRequest, Reply
from tests.support.kin_chat import tell
from tests.support.server import RunningServer
from tests.support.sse import sse_stream
from tests.test_frontend_e2e import sign_in

# The browser tests' fixtures, under the names pytest looks for.
browser, page, server, fake_llm = e2e.browser, e2e.page, e2e.server, e2e.fake_llm

pytestmark = NEEDS_BROWSER

PROVIDER_WORDS = "The model is overloaded."
TEXTS = {
    "en": {
        "reason": "The AI provider failed to answer the Kin doing it.",
        "detail": f"The provider said: {PROVIDER_WORDS}",
    },
    "fr": {
        "reason": "Le fournisseur d'IA n'a pas su répondre au Kin qui s'en chargeait.",
        "detail": f"Le fournisseur a répondu : {PROVIDER_WORDS}",
    },
}


def chef_spawns_a_failing_helper(request: RecordedRequest) -> Reply | None:
    """Chef hands the work to a sub-Kin, whose provider fails; then Chef says so."""
    if request.endpoint != "chat":
        return None
    messages = request.body["messages"]
    if "ephemeral sub-Kin" in messages[0]["content"]:
        return Reply(status=503, error_message=PROVIDER_WORDS)
    if messages[-1]["role"] == "user" and "Plan the week" in str(messages[-1]["content"]):
        return Reply(tool_calls=[("spawn_self", {"task_description": "Plan the week's meals."})])
    return Reply(text="Noted.")


@pytest.mark.parametrize("language", ["en", "fr"])
@pytest.mark.parametrize("width,height", [(390, 844), (1280, 800)], ids=["phone", "desktop"])
async def test_a_failed_tasks_reason_reads_in_the_users_language(
    server: RunningServer,
    fake_llm: FakeOpenAI,
    page: Page,
    width: int,
    height: int,
    language: str,
) -> None:
    words = TEXTS[language]
    patched = await server.client.patch("/api/me", json={"language": language})
    assert patched.status_code == 200, patched.text
    await sign_in(page, server)
    await page.set_viewport_size({"width": width, "height": height})
    kin: dict[str, Any] = (await server.client.get("/api/kins")).json()["kins"][0]
    fake_llm.responder = chef_spawns_a_failing_helper
    async with sse_stream(server.client) as stream:
        await tell(server.client, kin["id"], "Plan the week, please.")
        ended = await stream.wait_for(
            lambda e: e.type == "task.updated" and e.data["task"]["status"] == "failed"
        )
    task = ended.data["task"]
    assert task["error_code"] == "provider_failed"
    english = task["error"]
    assert english  # the server's sentence for models: it must not reach the screen

    await page.goto(f"{server.url}/tasks/{task['id']}")
    reason = page.locator("[data-testid='task-end-reason']")
    await expect(reason).to_have_text(words["reason"])
    main = page.get_by_role("main").first
    await expect(main).to_contain_text(words["detail"])
    text = await main.inner_text()
    assert english not in text, text
    if language == "fr":
        assert TEXTS["en"]["reason"] not in text and "failed" not in text.lower(), text
    assert not re.search(r"127\.0\.0\.1|https?://", text), text
    overflow = await page.evaluate(
        "document.scrollingElement.scrollWidth - document.scrollingElement.clientWidth"
    )
    assert overflow <= 0
