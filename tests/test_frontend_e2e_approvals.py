"""Tool approvals in Debian's Chromium, on a desktop in English and a phone in French: a Kin
asks before deleting a file of its workspace; the card in the chat says what it wants to do;
"allow once" runs the call (and the card leaves every open browser), the next call asks
again; a decline's reason reaches the model; "always allow" stops the asking, and only an
administrator is offered it (a member allows once or declines); and a request waiting while
the server process is killed and started again is decided after the restart."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.async_api import Browser, Locator, Page, expect

from tests import test_frontend_e2e as e2e
from tests.support.accounts import MARIE, NICOLAS, PASSWORD, register, set_up_admin
from tests.support.browser import NEEDS_BROWSER, open_page
from tests.support.fakes import FakeOpenAI, Reply
from tests.support.kin_chat import make_kin, tell
from tests.support.provider_setups import add_openai_provider
from tests.support.serve_process import kinbot_serve
from tests.support.server import RunningServer
from tests.support.sse import sse_stream
from tests.test_frontend_e2e import bubble, sign_in

browser, page, server, fake_llm = e2e.browser, e2e.page, e2e.server, e2e.fake_llm

pytestmark = NEEDS_BROWSER

WORDS = {
    "en": {
        "title": "Chef asks before going ahead",
        "action": "Delete {path} from its workspace",
        "allow_once": "Allow once",
        "always": "Always allow for Chef",
        "decline": "Decline",
        "reason": "Why not? (optional, Chef reads it)",
        "declined": "Declined",
        "did_not": "A person declined: it did not happen.",
    },
    "fr": {
        "title": "Chef demande avant d'agir",
        "action": "Supprimer {path} de son espace de travail",
        "allow_once": "Autoriser une fois",
        "always": "Toujours autoriser pour Chef",
        "decline": "Refuser",
        "reason": "Pourquoi pas ? (facultatif, Chef le lira)",
        "declined": "Refusé",
        "did_not": "Quelqu'un a refusé : cela ne s'est pas fait.",
    },
}
REASON = "Keep b, it is the shopping list"


def card(page: Page, language: str, path: str) -> Locator:
    return page.locator(
        "[data-approval-card]", has_text=WORDS[language]["action"].format(path=path)
    )


async def ask_before_deleting(client: httpx.AsyncClient, kin_id: str) -> None:
    rule = await client.put(f"/api/kins/{kin_id}/approval-rules/delete_file", json={"mode": "ask"})
    assert rule.status_code == 200, rule.text


def tool_results_sent(fake: FakeOpenAI) -> list[str]:
    chat = fake.requests_to("chat")
    return [m["content"] for m in chat[-1].body["messages"] if m["role"] == "tool"]


@pytest.mark.parametrize(
    "language,width,height", [("en", 1280, 800), ("fr", 390, 844)], ids=["desktop-en", "phone-fr"]
)
async def test_allow_once_asks_again_decline_with_a_reason_and_always_allow(
    server: RunningServer,
    fake_llm: FakeOpenAI,
    browser: Browser,
    page: Page,
    language: str,
    width: int,
    height: int,
) -> None:
    client = server.client
    changed = await client.patch("/api/me", json={"language": language})
    assert changed.status_code == 200, changed.text
    await sign_in(page, server)
    await page.set_viewport_size({"width": width, "height": height})
    kin_id = (await client.get("/api/kins")).json()["kins"][0]["id"]
    await ask_before_deleting(client, kin_id)
    workspace = Path((await server.platform.kins.get(kin_id)).workspace)
    for name in ("a.txt", "b.txt", "c.txt", "d.txt", "e.txt"):
        (workspace / name).write_text(name)
    fake_llm.enqueue(
        Reply(tool_calls=[("delete_file", {"path": "a.txt"})]),
        Reply(text="Deleted a."),
        Reply(tool_calls=[("delete_file", {"path": "b.txt"})]),
        Reply(text="Kept b."),
        Reply(tool_calls=[("delete_file", {"path": "e.txt"})]),
        Reply(text="Deleted e."),
        Reply(tool_calls=[("delete_file", {"path": "c.txt"})]),
        Reply(text="Deleted c."),
        Reply(tool_calls=[("delete_file", {"path": "d.txt"})]),
        Reply(text="Deleted d."),
    )
    words = WORDS[language]

    await page.goto(f"{server.url}/kins/{kin_id}")
    other = await page.context.new_page()  # a second tab of the same person
    try:
        await other.goto(f"{server.url}/kins/{kin_id}")

        # Allow once: the card shows in both browsers, and leaves both.
        await tell(client, kin_id, "Delete a.txt")
        first = card(page, language, "a.txt")
        await expect(first).to_be_visible()
        await expect(first.get_by_role("heading", name=words["title"])).to_be_visible()
        await expect(card(other, language, "a.txt")).to_be_visible()
        # Only the request shows: the call's own card would say it is done, which it is not.
        await expect(page.locator("[data-tool-card='delete_file']")).to_have_count(0)
        assert (workspace / "a.txt").exists()
        await first.get_by_role("button", name=words["allow_once"]).click()
        await expect(bubble(page, "assistant", "Deleted a.")).to_be_visible()
        await expect(first).to_have_count(0)
        await expect(page.locator("#composer")).to_be_focused()  # not lost with the card
        await expect(card(other, language, "a.txt")).to_have_count(0)
        done = page.locator("[data-tool-card='delete_file'][data-state='done']")
        await expect(done).to_be_visible()
    finally:
        await other.close()
    assert not (workspace / "a.txt").exists()

    # The next call asks again; declined with a reason the model receives.
    await tell(client, kin_id, "Delete b.txt")
    second = card(page, language, "b.txt")
    await second.get_by_role("button", name=words["decline"]).click()
    await second.get_by_label(words["reason"]).fill(REASON)
    await second.get_by_role("button", name=words["decline"]).click()
    await expect(bubble(page, "assistant", "Kept b.")).to_be_visible()
    await expect(second).to_have_count(0)
    assert (workspace / "b.txt").exists()
    assert any(REASON in text for text in tool_results_sent(fake_llm))
    # The call's own card says, in the reader's words, that it did not happen and why.
    declined = page.locator("[data-tool-card='delete_file'][data-state='declined']")
    await expect(declined.get_by_text(words["declined"], exact=True)).to_be_visible()
    await declined.locator("summary").click()
    await expect(declined.locator("[data-tool-result]")).to_contain_text(REASON)
    await expect(declined.locator("[data-tool-result]")).to_contain_text(words["did_not"])

    # A member may allow once or decline, not change the Kin's rule: no "always" for her.
    async with server.new_client() as marie_client:
        await register(client, marie_client, {**MARIE, "language": language})
    viewport = {"width": width, "height": height}
    async with open_page(browser, viewport=viewport) as marie:
        await marie.goto(server.url + "/signin")
        await marie.get_by_label("Email").fill(MARIE["email"])
        await marie.get_by_label("Password").fill(PASSWORD)
        await marie.get_by_role("button", name="Sign in").click()
        await expect(marie).to_have_url(re.compile(r"/kins/"))
        await marie.goto(f"{server.url}/kins/{kin_id}")
        await tell(client, kin_id, "Delete e.txt")
        hers = card(marie, language, "e.txt")
        await expect(hers.get_by_role("button", name=words["allow_once"])).to_be_visible()
        await expect(hers.get_by_role("button", name=words["decline"])).to_be_visible()
        await expect(hers.get_by_role("button", name=words["always"])).to_have_count(0)
        await hers.get_by_role("button", name=words["allow_once"]).click()
        await expect(bubble(marie, "assistant", "Deleted e.")).to_be_visible()
        await expect(hers).to_have_count(0)
    assert not (workspace / "e.txt").exists()

    # Always allow for this Kin: the call after it does not ask.
    await tell(client, kin_id, "Delete c.txt")
    third = card(page, language, "c.txt")
    await third.get_by_role("button", name=words["always"]).click()
    await expect(bubble(page, "assistant", "Deleted c.")).to_be_visible()
    await tell(client, kin_id, "Delete d.txt")
    await expect(bubble(page, "assistant", "Deleted d.")).to_be_visible()
    await expect(page.locator("[data-approval-card]")).to_have_count(0)
    assert not (workspace / "c.txt").exists() and not (workspace / "d.txt").exists()


async def test_a_request_waiting_through_a_restart_is_decided_after_it(
    data_dir: Path, tmp_path: Path, fake_llm: FakeOpenAI, page: Page
) -> None:
    fake_llm.enqueue(
        Reply(tool_calls=[("delete_file", {"path": "a.txt"})]), Reply(text="Deleted a.")
    )
    with kinbot_serve(data_dir, tmp_path / "first.log") as first:
        # A guard, not a speed check: the first calls import the provider SDKs on a busy machine.
        async with httpx.AsyncClient(base_url=first.url, timeout=60) as client:
            await set_up_admin(client)
            await add_openai_provider(client, fake_llm)
            skipped = await client.post("/api/onboarding/search-providers/skip")
            assert skipped.status_code == 204
            kin_id = await make_kin(client)
            await ask_before_deleting(client, kin_id)
            kin: dict[str, Any] = (await client.get(f"/api/kins/{kin_id}")).json()["kin"]
            workspace = data_dir / "workspaces" / kin["id"]
            (workspace / "a.txt").write_text("a")
            async with sse_stream(client) as stream:
                await tell(client, kin_id, "Delete a.txt")
                await stream.wait_for(lambda e: e.type == "approval.requested")
        await page.goto(first.url + "/signin")
        await page.get_by_label("Email").fill(NICOLAS["email"])
        await page.get_by_label("Password").fill(PASSWORD)
        await page.get_by_role("button", name="Sign in").click()
        await expect(page.get_by_role("navigation", name="KinBot")).to_be_visible()
        await page.goto(f"{first.url}/kins/{kin_id}")
        await expect(card(page, "fr", "a.txt")).to_be_visible()
    # The first process is killed (SIGKILL) while the request waits. (Nicolas reads French.)
    with kinbot_serve(data_dir, tmp_path / "second.log") as second:
        await page.goto(f"{second.url}/kins/{kin_id}")
        waiting = card(page, "fr", "a.txt")
        await expect(waiting).to_be_visible()
        assert (workspace / "a.txt").exists()
        await waiting.get_by_role("button", name=WORDS["fr"]["allow_once"]).click()
        await expect(bubble(page, "assistant", "Deleted a.")).to_be_visible()
        await expect(waiting).to_have_count(0)
    assert not (workspace / "a.txt").exists()


@pytest.mark.parametrize(
    "language,width,height", [("en", 1280, 800), ("fr", 390, 844)], ids=["desktop-en", "phone-fr"]
)
async def test_an_administrator_marks_tools_platform_wide_and_for_one_kin(
    server: RunningServer, page: Page, language: str, width: int, height: int
) -> None:
    client = server.client
    changed = await client.patch("/api/me", json={"language": language})
    assert changed.status_code == 200, changed.text
    await sign_in(page, server)
    await page.set_viewport_size({"width": width, "height": height})
    kin_id = (await client.get("/api/kins")).json()["kins"][0]["id"]
    words = RULE_WORDS[language]

    await page.goto(f"{server.url}/settings")
    await page.get_by_role("tab", name=words["tab"]).click()
    suggested = page.get_by_role("list", name=words["suggested"])
    ask = suggested.get_by_role("switch", name=words["ask_notify"])
    await expect(ask).to_have_attribute("aria-checked", "false")  # nothing asks by default
    await ask.click()
    await expect(ask).to_have_attribute("aria-checked", "true")
    assert (await client.get("/api/approval-rules")).json()["rules"] == {"notify": "ask"}
    # No tool id as a name: the list says it in words, the reader's.
    await expect(suggested.get_by_text("delete_file", exact=True)).to_have_count(0)
    await expect(suggested.get_by_text(words["delete_file"], exact=True)).to_be_visible()

    await page.goto(f"{server.url}/kins/{kin_id}/settings")
    await page.get_by_role("tab", name=words["tools"]).click()
    choice = page.get_by_role("combobox", name=words["mode_notify"])
    await expect(choice).to_have_value("")
    await expect(choice.locator("option:checked")).to_have_text(words["inherit_ask"])
    # The words have their line (on a phone the control goes below them, not beside).
    words_box = await page.locator('[data-approval-tool="notify"] > div').first.bounding_box()
    assert words_box is not None and words_box["width"] >= min(width - 150, 400), words_box
    # A built-in plugin's tool offered to this Kin is a built-in tool, not the Kin's own.
    drawing = page.locator('[data-approval-tool="generate_image"]')
    await expect(drawing).to_contain_text(words["built_in"])
    await choice.select_option("allow")
    await expect(choice).to_have_value("allow")
    rules = (await client.get(f"/api/kins/{kin_id}/approval-rules")).json()
    assert rules["rules"] == {"notify": "allow"}
    assert not await server.platform.approvals.needs_approval(kin_id, "notify")


RULE_WORDS = {
    "en": {
        "tab": "Approvals",
        "suggested": "Suggested",
        "ask_notify": "Ask before “Send a notification”",
        "tools": "Tools",
        "mode_notify": "Approval for “Send a notification”",
        "inherit_ask": "As for every Kin (asks)",
        "delete_file": "Delete a file",
        "built_in": "Built-in tool",
    },
    "fr": {
        "tab": "Approbations",
        "suggested": "Suggérés",
        "ask_notify": "Demander avant «\u00a0Envoyer une notification\u00a0»",
        "tools": "Outils",
        "mode_notify": "Approbation pour «\u00a0Envoyer une notification\u00a0»",
        "inherit_ask": "Comme pour tous les Kins (demande)",
        "delete_file": "Supprimer un fichier",
        "built_in": "Outil intégré",
    },
}
