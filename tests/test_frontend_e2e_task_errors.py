"""Why a task failed, on its page, in Debian's Chromium (English at desktop width, French at
phone width): the sentence is the interface's, in the reader's language, worded from the
task's ``error_code``; the provider's own words show only as a secondary line; the server's
English sentence (``error``, for models and API clients) never shows, neither there nor on
the card of the task's end in the chat. A task that ended before
codes existed (no ``error_code`` in the database) shows its stored reason, cleaned, as details.

The task fails for real: Chef spawns a sub-Kin whose model call the fake OpenAI server answers
503 with its own message."""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.async_api import Page, expect

from kinbot_core.db.models import TaskRecord
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
#: What a task that failed before codes existed has in the database (``error`` only).
OLD_FAILURE = (
    "Chef could not answer: The server at http://127.0.0.1:5599/v1 failed unexpectedly "
    "(ClientResponseError)."
)
OLD_WORDS = "Chef could not answer: The server at [address] failed unexpectedly."
TEXTS = {
    "en": {
        "reason": "The AI provider failed to answer the Kin doing it.",
        "detail": f"The provider said: {PROVIDER_WORDS}",
        "unknown": "The task did not finish.",
        "old": f"Details: {OLD_WORDS}",
        "missing": "This task is not here",
        "open": "Open Chef",
        "show_error": "What went wrong",
    },
    "fr": {
        "reason": "Le fournisseur d'IA n'a pas su répondre au Kin qui s'en chargeait.",
        "detail": f"Le fournisseur a répondu : {PROVIDER_WORDS}",
        "unknown": "La tâche ne s'est pas terminée.",
        "old": f"Détails : {OLD_WORDS}",
        "missing": "Cette tâche n'est pas là",
        "open": "Ouvrir Chef",
        "show_error": "Ce qui n'a pas marché",
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


@pytest.mark.parametrize(
    "language,width,height", [("en", 1280, 800), ("fr", 390, 844)], ids=["desktop-en", "phone-fr"]
)
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

    # The card of its end in Chef's chat words it the same way, never the server's sentence.
    await page.goto(f"{server.url}/kins/{kin['id']}")
    card = page.locator("[data-task-card='task_failed']").first
    await card.get_by_text(words["show_error"]).click()
    body = card.locator("[data-task-body]")
    await expect(body).to_contain_text(words["reason"])
    await expect(body).to_contain_text(words["detail"])
    assert english not in await card.inner_text()

    await page.goto(f"{server.url}/tasks/{task['id']}")
    reason = page.locator("[data-testid='task-end-reason']")
    await expect(reason).to_have_text(words["reason"])
    main = page.get_by_role("main").first
    await expect(main).to_contain_text(words["detail"])
    # Said once: the sub-Kin's failed turn that ended the task is not shown as well.
    await expect(main.locator("[data-error-card]")).to_have_count(0)
    text = await main.inner_text()
    assert english not in text, text
    if language == "fr":
        assert TEXTS["en"]["reason"] not in text and "failed" not in text.lower(), text
    assert not re.search(r"127\.0\.0\.1|https?://", text), text
    overflow = await page.evaluate(
        "document.scrollingElement.scrollWidth - document.scrollingElement.clientWidth"
    )
    assert overflow <= 0

    # A task that failed before codes existed: no code, its stored reason as details.
    def insert_old_task() -> None:
        TaskRecord.create(
            id="task_from_before_codes", parent_kin=kin["id"], kin=kin["id"], title="Old job",
            description="An old job.", mode="await", model="gpt-4o", status="failed", depth=1,
            error=OLD_FAILURE,
        )  # fmt: skip

    await server.platform.db.write(insert_old_task)
    await page.goto(f"{server.url}/tasks/task_from_before_codes")
    await expect(reason).to_have_text(words["unknown"])
    await expect(page.get_by_test_id("task-end-detail")).to_have_text(words["old"])
    text = await main.inner_text()
    assert not re.search(r"127\.0\.0\.1|ClientResponseError", text), text

    # A task's address that names nothing this person may see: said so, and a way back.
    await page.goto(f"{server.url}/tasks/task_that_is_not_there")
    await expect(page.get_by_role("heading", name=words["missing"])).to_be_visible()
    await page.get_by_role("link", name=words["open"]).click()
    await expect(page).to_have_url(re.compile(f"/kins/{kin['id']}$"))
