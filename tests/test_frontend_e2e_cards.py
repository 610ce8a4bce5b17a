"""How stored messages read in the chat, in Debian's Chromium, in English at desktop width and in
French at phone width (the diagonal of the four pairs: the words do not depend on the width, nor
the layout on the language): tool calls as cards in plain words paired with their results, a
task's and a cron run's end as cards linking to the task, another Kin's request, and a failed
turn in plain words with Retry, which runs the turn again and leaves the failed one marked
replaced. No internal id shows in the visible text. Attached files: an image's thumbnail opens a
preview that Escape closes, another file shows its size in the UI language.

The messages are stored the way the server stores them (``KinService.add_message``, with the
fields a turn, a task's delivery and inter-Kin messaging give them); the error comes from a real
turn against the fake OpenAI server answering 500."""

from __future__ import annotations

import io
import re
from typing import Any

import pytest
from PIL import Image
from playwright.async_api import Page, expect

from tests import test_frontend_e2e as e2e
from tests.support.browser import NEEDS_BROWSER
from tests.support.fakes import FakeOpenAI, Reply
from tests.support.kin_chat import tell
from tests.support.server import RunningServer
from tests.test_frontend_e2e import bubble, sign_in

# The browser tests' fixtures, under the names pytest looks for.
browser, page, server, fake_llm = e2e.browser, e2e.page, e2e.server, e2e.fake_llm

pytestmark = NEEDS_BROWSER

TASK_ID = "task_5f0c2a9e41b7"
CRON_TASK_ID = "task_e98d01c3aa52"
LEA_TASK_ID = "task_77aa31c0d9e2"

#: What each language reads, for the same stored messages.
TEXTS: dict[str, dict[str, str]] = {
    "en": {
        "remembered": "Remembered: Léo is allergic to peanuts",
        "helper": "Asked a helper to: Leek and potato soup",
        "task": "Chef's helper finished: Leek and potato soup",
        "failed": "Léa could not finish: Plan the picnic",
        "cron": "Scheduled: morning briefing finished",
        "request": "Request from Léa",
        "show_result": "Show the result",
        "open_task": "Open the task",
        "what_came_back": "What came back",
        "error": "Chef's AI provider failed to answer.",
        "replaced": "Replaced",
        "retry": "Retry",
        "copy": "Copy the message",
        "copied": "Copied",
        "placeholder": "Message Chef…",
    },
    "fr": {
        "remembered": "Retenu : Léo is allergic to peanuts",
        "helper": "A demandé à un assistant : Leek and potato soup",
        "task": "L'assistant de Chef a terminé : Leek and potato soup",
        "failed": "Léa n'a pas pu terminer : Plan the picnic",
        "cron": "Programmé : morning briefing terminé",
        "request": "Demande de Léa",
        "show_result": "Voir le résultat",
        "open_task": "Ouvrir la tâche",
        "what_came_back": "Ce qui est revenu",
        "error": "Le fournisseur d'IA de Chef n'a pas su répondre.",
        "replaced": "Remplacé",
        "retry": "Réessayer",
        "copy": "Copier le message",
        "copied": "Copié",
        "placeholder": "Écrire à Chef…",
    },
}


async def store_a_day_of_messages(server: RunningServer, kin_id: str) -> None:
    """A user's question, a reply calling two tools and their results, the task's delivered
    result, another Kin's failed task, a cron run's result and a request from another Kin,
    stored as the server does (a delivery's ``meta`` as ``TaskService`` builds it)."""
    kins = server.platform.kins
    me = (await server.client.get("/api/me")).json()["user"]
    asked = await kins.add_message(
        kin_id, role="user", source="user", sender_id=me["id"], sender_name=me["pseudonym"],
        content="Léo is allergic to peanuts. A soup tonight?", status="done",
    )  # fmt: skip
    calls = [
        {"id": "call_mem", "name": "memorize",
         "arguments": {"content": "Léo is allergic to peanuts", "category": "fact"}},
        {"id": "call_task", "name": "spawn_self",
         "arguments": {"task_description": "Leek and potato soup", "mode": "async"}},
    ]  # fmt: skip
    common: dict[str, Any] = {"source": "kin", "sender_id": kin_id, "turn_of": asked.id}
    await kins.add_message(
        kin_id, role="assistant", sender_name="Chef", content="", tool_calls=calls, **common
    )
    await kins.add_message(
        kin_id, role="tool", sender_name="memorize", content='{"id": 1, "status": "stored"}',
        tool_call_id="call_mem", **common,
    )  # fmt: skip
    await kins.add_message(
        kin_id, role="tool", sender_name="spawn_self",
        content=f'{{"task_id": "{TASK_ID}", "status": "pending"}}', tool_call_id="call_task",
        **common,
    )  # fmt: skip
    await kins.add_message(
        kin_id, role="assistant", sender_name="Chef", content="Noted: no peanuts for Léo.",
        **common,
    )  # fmt: skip
    await kins.add_message(
        kin_id, role="user", source="task", sender_id=TASK_ID, sender_name="Leek and potato soup",
        content=f"Task {TASK_ID} completed. Result:\nLeeks, potatoes, a little cream.",
        kin_message_type="task_result", task_id=TASK_ID, status="done",
        meta={"task_title": "Leek and potato soup", "worker_name": "Chef", "spawned_self": True,
              "result": "Leeks, potatoes, a little cream.", "error": None, "cron_name": None},
    )  # fmt: skip
    await kins.add_message(
        kin_id, role="user", source="task", sender_id=LEA_TASK_ID, sender_name="Plan the picnic",
        content=f"Task {LEA_TASK_ID} failed: No weather forecast.",
        kin_message_type="task_failed", task_id=LEA_TASK_ID, status="done",
        meta={"task_title": "Plan the picnic", "worker_name": "Léa", "spawned_self": False,
              "result": None, "error": "No weather forecast.", "cron_name": None},
    )  # fmt: skip
    await kins.add_message(
        kin_id, role="user", source="cron", sender_id=CRON_TASK_ID, sender_name="Morning briefing",
        content=f"Scheduled run (task {CRON_TASK_ID}) completed. Result:\nSunny, 21 °C.",
        kin_message_type="task_result", task_id=CRON_TASK_ID, status="done",
        meta={"task_title": "Morning briefing", "worker_name": "Chef", "spawned_self": True,
              "result": "Sunny, 21 °C.", "error": None, "cron_name": "morning briefing"},
    )  # fmt: skip
    await kins.add_message(
        kin_id, role="user", source="kin", sender_id="kin_lea", sender_name="Léa",
        content="Can you plan Sunday's dinner?", kin_message_type="request",
        request_id="req_7d1e", chain_depth=1, status="done",
    )  # fmt: skip


async def visible_text(page: Page) -> str:
    text: str = await page.get_by_role("main").first.inner_text()
    return text


@pytest.mark.parametrize(
    "language,width,height", [("en", 1280, 800), ("fr", 390, 844)], ids=["desktop-en", "phone-fr"]
)
async def test_stored_events_read_as_cards_and_a_failed_turn_offers_retry(
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
    await page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    await sign_in(page, server)  # at desktop width: it waits for the sidebar
    await page.set_viewport_size({"width": width, "height": height})
    kin: dict[str, Any] = (await server.client.get("/api/kins")).json()["kins"][0]
    await store_a_day_of_messages(server, kin["id"])
    # A real turn that fails: the provider answers 500.
    fake_llm.enqueue(Reply(status=500, error_message="The model is overloaded."))
    await tell(server.client, kin["id"], "And a dessert?")

    # Tool calls: one card each, in plain words, expandable to the arguments and the result.
    remembered = page.locator("[data-tool-card='memorize']")
    await expect(remembered).to_contain_text(words["remembered"])
    await expect(remembered).to_have_attribute("data-state", "done")
    result = remembered.locator("[data-tool-result]")
    await expect(result).to_be_hidden()
    await remembered.locator("summary").focus()
    await page.keyboard.press("Enter")  # a keyboard opens it
    await expect(result).to_be_visible()
    await expect(result).to_contain_text('"status": "stored"')
    await expect(remembered.get_by_text(words["what_came_back"])).to_be_visible()
    await remembered.locator("summary").click()
    await expect(result).to_be_hidden()
    await expect(page.locator("[data-tool-card='spawn_self']")).to_contain_text(words["helper"])

    # The task's result and the cron run's, as cards linking to their task.
    task = page.locator("[data-task-card]", has_text=words["task"])
    await expect(task).to_be_visible()
    await expect(task.get_by_role("link", name=words["open_task"])).to_have_attribute(
        "href", f"/tasks/{TASK_ID}"
    )
    body = task.locator("[data-task-body]")
    await expect(body).to_be_hidden()
    await task.get_by_text(words["show_result"]).click()
    await expect(body).to_contain_text("Leeks, potatoes, a little cream.")
    await task.get_by_text(words["show_result"]).click()
    failed = page.locator("[data-task-card='task_failed']")
    await expect(failed).to_contain_text(words["failed"])
    cron = page.locator("[data-origin='cron'][data-task-card]")
    await expect(cron).to_contain_text(words["cron"])

    # Another Kin's request says who asks.
    request = bubble(page, "kin", "Can you plan Sunday's dinner?")
    await expect(request.locator("[data-kin-message='request']")).to_have_text(words["request"])

    # The failed turn: plain words in the user's language, the provider's words kept, Retry.
    error = page.get_by_role("alert").filter(has=page.locator("[data-error-card]"))
    await expect(error).to_contain_text(words["error"])
    await expect(error.locator("[data-error-detail]")).to_contain_text("The model is overloaded.")
    async with page.expect_response(
        lambda response: (
            response.request.method == "POST"
            and response.url.endswith(f"/api/kins/{kin['id']}/retry")
        )
    ) as answered:
        await error.get_by_role("button", name=words["retry"]).click()
    assert (await answered.value).status == 202
    # The turn runs again: its new reply comes; the failed one stays, marked replaced.
    await expect(bubble(page, "assistant", "Hello from the fake")).to_be_visible()
    await page.reload()
    await expect(error.locator("[data-superseded]")).to_have_text(words["replaced"])
    await expect(error.get_by_role("button", name=words["retry"])).to_have_count(0)

    # Copying a reply: its text goes to the clipboard, and "Copied" is announced.
    reply = bubble(page, "assistant", "Noted: no peanuts for Léo.")
    await reply.get_by_role("button", name=words["copy"]).click()
    await expect(reply.get_by_role("status")).to_have_text(words["copied"])
    copied = await page.evaluate("navigator.clipboard.readText()")
    assert copied == "Noted: no peanuts for Léo."

    # Nothing on screen names an internal id or a machine's address.
    text = await visible_text(page)
    assert not re.search(r"task_|req_|call_|kin_lea|127\.0\.0\.1|https?://", text), text
    # On a phone nothing overflows sideways.
    overflow = await page.evaluate(
        "document.scrollingElement.scrollWidth - document.scrollingElement.clientWidth"
    )
    assert overflow <= 0


def png(size: tuple[int, int] = (64, 48)) -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", size, "orange").save(buffer, "PNG")
    return buffer.getvalue()


@pytest.mark.parametrize(
    "language,size,width,height",
    [("en", "Document · 2.5 kB", 1280, 800), ("fr", "Document · 2,5 ko", 390, 844)],
    ids=["desktop-en", "phone-fr"],
)
async def test_an_attached_image_opens_a_preview_and_a_file_shows_its_size(
    server: RunningServer, page: Page, width: int, height: int, language: str, size: str
) -> None:
    patched = await server.client.patch("/api/me", json={"language": language})
    assert patched.status_code == 200, patched.text
    await sign_in(page, server)
    await page.set_viewport_size({"width": width, "height": height})
    kin_id = (await server.client.get("/api/kins")).json()["kins"][0]["id"]
    ids = []
    for name, data, mime in [
        ("soup.png", png(), "image/png"),
        ("recipes.txt", b"Leek soup. " * 227 + b"End", "text/plain"),
    ]:
        uploaded = await server.client.post(
            f"/api/kins/{kin_id}/uploads", files={"file": (name, data, mime)}
        )
        assert uploaded.status_code in (200, 201), uploaded.text
        ids.append(uploaded.json()["upload"]["id"])
    sent = await server.client.post(
        f"/api/kins/{kin_id}/messages", json={"content": "Tonight's soup", "attachments": ids}
    )
    assert sent.status_code == 202, sent.text

    message = bubble(page, "me", "Tonight's soup")
    chip = message.locator("[data-attachment-file]")
    await expect(chip).to_contain_text("recipes.txt")
    await expect(chip).to_contain_text(size)
    thumbnail = message.locator("[data-attachment-image]")
    await expect(thumbnail.locator("img")).to_have_js_property("complete", True)
    assert await thumbnail.locator("img").evaluate("image => image.naturalWidth") == 64
    await thumbnail.click()
    dialog = page.get_by_role("dialog", name="soup.png")
    await expect(dialog.get_by_role("img", name="soup.png")).to_be_visible()
    await page.keyboard.press("Escape")
    await expect(dialog).to_have_count(0)
    await expect(thumbnail).to_be_focused()
