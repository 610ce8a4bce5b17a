"""Regenerate docs/screenshots/: every main screen, light and dark, desktop and phone width.

Runs the real server on a temporary data directory with the fake OpenAI server standing in
for the provider, fills it with a small household (two people, three Kins, a conversation, a
secret), and photographs it with Debian's Chromium. Needs the built web interface
(`make frontend`) and Debian's `chromium-headless-shell`:

    .venv/bin/python -m tests.screenshots
"""

from __future__ import annotations

import asyncio
import io
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
from PIL import Image, ImageDraw
from playwright.async_api import Browser

from kinbot_core.config import load_settings
from kinbot_core.platform import Platform
from tests.support.accounts import MARIE, PASSWORD, register, set_up_admin
from tests.support.browser import launched
from tests.support.fakes import FakeOpenAI, RecordedRequest, Reply
from tests.support.provider_setups import add_openai_provider
from tests.support.server import RunningServer, running_server

OUT = Path(__file__).resolve().parents[1] / "docs" / "screenshots"
NICO = {
    "first_name": "Nicolas",
    "last_name": "Durand",
    "email": "nicolas@example.org",
    "pseudonym": "Nico",
    "language": "en",
    "password": PASSWORD,
    "password_confirmation": PASSWORD,
}
DESKTOP = {"width": 1440, "height": 900}
PHONE = {"width": 390, "height": 844}


async def shoot(
    browser: Browser,
    server: RunningServer,
    path: str,
    name: str,
    *,
    signed_in: Any = None,
    phone: bool = True,
    desktop: bool = True,
    tab: str | None = None,
    click: str | None = None,
) -> None:
    """Photograph ``path`` in both themes, at desktop width (and phone width).

    ``signed_in`` is the storage state (cookies) of a signed-in browser, if any; ``tab`` the
    name of a tab to open first; ``click`` the name of a button to press first (a menu).
    """
    sizes = [("desktop", DESKTOP)] if desktop else []
    sizes += [("phone", PHONE)] if phone else []
    for theme in ("light", "dark"):
        for label, viewport in sizes:
            context = await browser.new_context(
                viewport=viewport,  # type: ignore[arg-type]
                reduced_motion="reduce",
                storage_state=signed_in,
            )
            await context.add_init_script(f"localStorage.setItem('kinbot.theme', '{theme}')")
            page = await context.new_page()
            await page.goto(server.url + path, wait_until="networkidle")
            if tab is not None:
                await page.get_by_role("tab", name=tab).click()
                await page.wait_for_load_state("networkidle")
            if click is not None:
                await page.get_by_role("button", name=click).first.click()
            await page.evaluate("document.fonts.ready")
            await page.wait_for_timeout(300)  # let the lazily loaded Markdown settle
            file = OUT / f"{name}-{theme}-{label}.png"
            await page.screenshot(path=str(file))
            print(f"wrote {file.relative_to(OUT.parents[1])}")
            await context.close()


async def wait_idle(client: httpx.AsyncClient, kin_id: str) -> None:
    for _ in range(200):
        kin = (await client.get(f"/api/kins/{kin_id}")).json()["kin"]
        if kin["state"] != "thinking" and kin["queue_length"] == 0:
            return
        await asyncio.sleep(0.1)
    raise RuntimeError("the Kin did not finish its turns")


async def household(server: RunningServer, fake: FakeOpenAI) -> tuple[str, str]:
    """Set up people with their photos, Kins and a conversation; the id of the Kin to show."""
    client = server.client
    await with_photo(client, (232, 140, 110))
    await add_openai_provider(client, fake)
    await client.post("/api/onboarding/search-providers/skip")
    kins: dict[str, str] = {}
    for name, role in (("Chef", "Family cook"), ("Penny", "Budget keeper"), ("Atlas", "Travel")):
        created = await client.post(
            "/api/kins",
            json={"name": name, "role": role, "character": "Warm and brief.", "model": "gpt-4o"},
        )
        kins[name] = created.json()["kin"]["id"]
    chef = kins["Chef"]
    fake.enqueue(
        Reply(
            text="How about a **coconut chickpea curry**? Everything is in the cupboard:\n\n"
            "1. Soften an onion and garlic\n2. Add curry paste, chickpeas, coconut milk\n"
            "3. Simmer 15 minutes, finish with lime"
        ),
        Reply(text="Noted, thank you Penny. I will keep it under budget."),
        Reply(text="Of course: a mild paste and a spoon of yoghurt for Léo."),
        Reply(
            text="Yes, blended cold:\n\n| Ingredient | For four |\n|---|---|\n"
            "| Ripe mango | 2 |\n| Plain yoghurt | 500 g |\n| Cardamom | a pinch |"
        ),
    )
    await client.post(f"/api/kins/{chef}/messages", json={"content": "Dinner idea, veggie?"})
    await wait_idle(client, chef)
    await server.platform.kins.enqueue(
        chef,
        "This week's grocery budget has 18 euros left.",
        source="kin",
        sender_id=kins["Penny"],
        sender_name="Penny",
        kin_message_type="inform",
    )
    await wait_idle(client, chef)
    async with server.new_client() as marie:
        await register(client, marie, MARIE)
        await with_photo(marie, (120, 170, 150))
        await marie.post(f"/api/kins/{chef}/messages", json={"content": "Less spicy for Léo?"})
    await wait_idle(client, chef)
    await client.post(f"/api/kins/{chef}/messages", json={"content": "And a mango lassi after?"})
    await wait_idle(client, chef)
    await client.post(
        "/api/vault", json={"key": "GITHUB_TOKEN", "value": "ghp_not_a_real_token_0123"}
    )
    return chef, kins["Penny"]


def portrait(background: tuple[int, int, int]) -> bytes:
    """A person's photo for the screenshots: a drawn head and shoulders on a plain colour."""
    image = Image.new("RGB", (256, 256), background)
    draw = ImageDraw.Draw(image)
    draw.ellipse((78, 40, 178, 150), fill=(250, 224, 200))
    draw.ellipse((38, 160, 218, 330), fill=(70, 80, 110))
    out = io.BytesIO()
    image.save(out, format="PNG")
    return out.getvalue()


async def with_photo(client: httpx.AsyncClient, background: tuple[int, int, int]) -> None:
    response = await client.put(
        "/api/me/avatar", files={"avatar": ("me.png", portrait(background), "image/png")}
    )
    response.raise_for_status()


def penny_answers(request: RecordedRequest) -> Reply | None:
    """Penny's day: she remembers an allergy, hands a price check to a helper, runs her weekly
    cron, then her provider fails (the last reply, which offers Retry)."""
    if request.endpoint != "chat":
        return None
    messages = request.body["messages"]
    system, last = str(messages[0]["content"]), messages[-1]
    said = str(last.get("content"))
    if "ephemeral sub-Kin" in system:
        if "budget" in system:
            return Reply(text="62 € spent of 80 €: on track for the week.")
        return Reply(text="The market is cheaper this week: 14 € against 19 € at the supermarket.")
    if last["role"] == "tool":
        return Reply(text="Noted, and a helper is on the prices.")
    if "peanuts" in said:
        memory = {"content": "Léo is allergic to peanuts", "category": "fact", "subject": "Léo"}
        task = {
            "task_description": "Compare the market's and the supermarket's prices",
            "mode": "async",
        }
        return Reply(tool_calls=[("memorize", memory), ("spawn_self", task)])
    if "savings" in said:
        return Reply(status=500, error_message="The model is overloaded, try again later.")
    return None


async def pennys_day(server: RunningServer, fake: FakeOpenAI, penny: str) -> None:
    """A tool card, a task card, a cron card and a failed reply with Retry in Penny's chat."""
    client = server.client
    fake.responder = penny_answers
    await client.post(
        f"/api/kins/{penny}/messages",
        json={"content": "Léo is allergic to peanuts. And are market prices better this week?"},
    )
    await wait_for(client, lambda tasks: any(t["status"] == "completed" for t in tasks))
    await wait_idle(client, penny)
    cron = await client.post(
        "/api/crons",
        json={"kin_id": penny, "name": "Weekly budget check", "schedule": "0 9 * * 1",
              "task_description": "Check this week's budget."},
    )  # fmt: skip
    await server.platform.crons.scheduler.fire(cron.json()["cron"]["id"], time.time())
    await wait_for(client, lambda tasks: sum(t["status"] == "completed" for t in tasks) == 2)
    await wait_idle(client, penny)
    await client.post(f"/api/kins/{penny}/messages", json={"content": "And our savings plan?"})
    await wait_idle(client, penny)
    fake.responder = None


async def wait_for(client: httpx.AsyncClient, done: Callable[[list[Any]], bool]) -> None:
    for _ in range(300):
        if done((await client.get("/api/tasks")).json()["tasks"]):
            return
        await asyncio.sleep(0.1)
    raise RuntimeError("the tasks did not end")


def asking_task(request: RecordedRequest) -> Reply | None:
    """The Kin spawns a task whose sub-Kin asks a question that waits for an answer."""
    if request.endpoint != "chat":
        return None
    messages = request.body["messages"]
    last = messages[-1]
    if "ephemeral sub-Kin" in messages[0]["content"]:
        if last["role"] == "user":
            question = "Leek and potato, or roasted pumpkin soup?"
            return Reply(tool_calls=[("request_input", {"question": question})])
        return Reply(text="I will wait for the family's choice.")
    if last["role"] == "tool" or "asks you" in str(last.get("content")):
        return Reply(text="I asked the family.")
    task = {"task_description": "Find a soup for tonight", "mode": "await"}
    return Reply(tool_calls=[("spawn_self", task)])


async def crons_and_a_question(server: RunningServer, fake: FakeOpenAI, chef: str) -> str:
    """Two crons (one a Kin's proposal) and a task waiting for an answer; the task's id."""
    client = server.client
    await client.post(
        "/api/crons",
        json={"kin_id": chef, "name": "Weekly menu", "schedule": "0 18 * * 0",
              "task_description": "Plan next week's dinners."},
    )  # fmt: skip
    fake.enqueue(
        Reply(tool_calls=[("create_cron", {"name": "Market list", "schedule": "0 8 * * 6",
                                           "task_description": "List the market's produce."})]),
        Reply(text="I proposed it: confirm it in my settings."),
    )  # fmt: skip
    await client.post(f"/api/kins/{chef}/messages", json={"content": "A market list on Saturdays?"})
    await wait_idle(client, chef)
    fake.responder = asking_task
    await client.post(f"/api/kins/{chef}/messages", json={"content": "Soup tonight?"})
    for _ in range(200):
        tasks = (await client.get("/api/tasks?status=active")).json()["tasks"]
        if tasks and tasks[0]["awaiting_input"]:
            await wait_idle(client, chef)
            return str(tasks[0]["id"])
        await asyncio.sleep(0.1)
    raise RuntimeError("the task did not ask its question")


async def a_webhook_calls(server: RunningServer, chef: str) -> None:
    """Home Assistant tells Chef the oven is preheated, through a webhook (its origin badge)."""
    created = await server.client.post(
        "/api/webhooks", json={"kin_id": chef, "name": "Home Assistant"}
    )
    created.raise_for_status()
    async with server.new_client() as outside:
        posted = await outside.post(
            created.json()["path"], json={"event": "oven_preheated", "temperature": "200 °C"}
        )
        posted.raise_for_status()
    await wait_idle(server.client, chef)


async def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as data_dir, FakeOpenAI() as fake:
        settings = load_settings(data_dir=Path(data_dir), llm_max_retries=0)
        async with running_server(Platform(settings)) as server, launched() as browser:
            await shoot(browser, server, "/onboarding", "onboarding")
            await set_up_admin(server.client, NICO)
            chef, penny = await household(server, fake)
            await shoot(browser, server, "/signin", "signin")
            context = await browser.new_context()
            await context.request.post(
                server.url + "/api/auth/login",
                data={"email": NICO["email"], "password": PASSWORD},
                headers={"Origin": server.url},
            )
            nico = await context.storage_state()
            await context.close()
            await a_webhook_calls(server, chef)
            await shoot(browser, server, f"/kins/{chef}", "chat", signed_in=nico)
            await pennys_day(server, fake, penny)
            await shoot(browser, server, f"/kins/{penny}", "chat-cards", signed_in=nico)
            await shoot(browser, server, "/settings", "settings", signed_in=nico)
            for tab in ("Channels", "Webhooks"):
                await shoot(
                    browser, server, "/settings", f"settings-{tab.lower()}", signed_in=nico, tab=tab
                )
            await shoot(browser, server, f"/kins/{chef}/settings", "kin-settings", signed_in=nico)
            task_id = await crons_and_a_question(server, fake, chef)
            await shoot(browser, server, f"/tasks/{task_id}", "task", signed_in=nico)
            await shoot(
                browser, server, f"/kins/{chef}/settings", "kin-crons", signed_in=nico, tab="Crons"
            )
            await shoot(browser, server, "/account", "account", signed_in=nico)
            await shoot(
                browser, server, f"/kins/{chef}", "sidebar", signed_in=nico, desktop=False,
                click="Open navigation",
            )  # fmt: skip
            await shoot(browser, server, "/design", "design", phone=False)


if __name__ == "__main__":
    asyncio.run(main())
