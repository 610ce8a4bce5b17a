"""Everyone is recognisable in the chat (issue 18), in Debian's Chromium against the real server:
two family members see each other's photo and their own tint, and Kins without a picture get a
drawn one that says what they are for. Nicolas reads French, Marie English; desktop and phone."""

from __future__ import annotations

import io
import re
from typing import Any

import httpx
import pytest
from PIL import Image
from playwright.async_api import Browser, Locator, Page, expect

from tests import test_frontend_e2e as e2e
from tests.support.accounts import MARIE, NICOLAS, PASSWORD, register
from tests.support.browser import NEEDS_BROWSER
from tests.support.fakes import FakeOpenAI, Reply
from tests.support.server import RunningServer

pytestmark = NEEDS_BROWSER

VIEWPORTS = {"desktop": {"width": 1280, "height": 800}, "phone": {"width": 390, "height": 844}}


# The browser tests' fixtures, under the names pytest looks for (Nicolas, administrator,
# reads French).
browser, server, fake_llm = e2e.browser, e2e.server, e2e.fake_llm


def photo(color: tuple[int, int, int]) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (64, 64), color).save(out, format="PNG")
    return out.getvalue()


async def with_photo(client: httpx.AsyncClient, color: tuple[int, int, int]) -> dict[str, Any]:
    response = await client.put(
        "/api/me/avatar", files={"avatar": ("me.png", photo(color), "image/png")}
    )
    assert response.status_code == 200, response.text
    user: dict[str, Any] = response.json()["user"]
    assert user["avatar_url"]
    return user


async def make_kin(client: httpx.AsyncClient, name: str, role: str, expertise: str) -> str:
    response = await client.post(
        "/api/kins",
        json={"name": name, "role": role, "character": "Warm and brief.",
              "expertise": expertise, "model": "gpt-4o"},
    )  # fmt: skip
    assert response.status_code == 201, response.text
    kin_id: str = response.json()["kin"]["id"]
    return kin_id


async def say(client: httpx.AsyncClient, kin_id: str, text: str) -> None:
    sent = await client.post(f"/api/kins/{kin_id}/messages", json={"content": text})
    assert sent.status_code == 202, sent.text


async def signed_in_page(
    browser: Browser, server: RunningServer, email: str, viewport: dict[str, int], errors: list[str]
) -> Page:
    """A browser of its own, signed in as `email`; its page errors go to `errors`."""
    context = await browser.new_context(
        locale="en-US", viewport={"width": viewport["width"], "height": viewport["height"]}
    )
    page = await context.new_page()
    page.on("pageerror", lambda error: errors.append(str(error)))
    await page.goto(server.url + "/signin")
    await page.get_by_label("Email").fill(email)
    await page.get_by_label("Password").fill(PASSWORD)
    await page.get_by_role("button", name="Sign in").click()
    await expect(page).to_have_url(re.compile(r"/kins/"))
    return page


def bubble(page: Page, origin: str, text: str) -> Locator:
    return page.locator(f'[data-origin="{origin}"]', has_text=text)


async def background_of(bubble: Locator) -> str:
    body = bubble.locator("[data-bubble], .rounded-2xl").first
    color: str = await body.evaluate("element => getComputedStyle(element).backgroundColor")
    return color


async def sees_the_other(page: Page, mine: str, theirs: str, their_photo: str) -> None:
    """In `page`, the other person's message shows their photo (not initials) and a tint of
    its own, unlike one's own bubble."""
    other = bubble(page, "user", theirs)
    await expect(other).to_be_visible()
    picture = other.locator(f'img[src="{their_photo}"]')
    await expect(picture).to_be_visible()
    assert await picture.evaluate("image => image.complete && image.naturalWidth > 0")
    own = bubble(page, "me", mine)
    await expect(own).to_be_visible()
    assert await background_of(other) != await background_of(own)


@pytest.mark.parametrize("width", VIEWPORTS)
async def test_two_members_see_each_others_photo_and_tint(
    server: RunningServer, browser: Browser, width: str
) -> None:
    nicolas = await with_photo(server.client, (40, 110, 200))
    kin_id = await make_kin(server.client, "Chef", "Family cook", "Vegetarian cooking.")
    async with server.new_client() as marie_client:
        await register(server.client, marie_client, MARIE)
        marie = await with_photo(marie_client, (220, 120, 60))
        await say(server.client, kin_id, "Bonjour Chef")
        await say(marie_client, kin_id, "Hello Chef, no peanuts")

    errors: list[str] = []
    nico_page = await signed_in_page(browser, server, NICOLAS["email"], VIEWPORTS[width], errors)
    marie_page = await signed_in_page(browser, server, MARIE["email"], VIEWPORTS[width], errors)
    for page in (nico_page, marie_page):
        await page.goto(f"{server.url}/kins/{kin_id}")
    await sees_the_other(nico_page, "Bonjour Chef", "Hello Chef, no peanuts", marie["avatar_url"])
    await sees_the_other(
        marie_page, "Hello Chef, no peanuts", "Bonjour Chef", nicolas["avatar_url"]
    )
    # Two-letter initials are gone where a photo exists.
    await expect(bubble(nico_page, "user", "no peanuts")).not_to_contain_text("MA")
    await expect(bubble(marie_page, "user", "Bonjour Chef")).not_to_contain_text("NI")
    # In the dark theme too, Marie's bubble keeps a tint of her own (its dark variant).
    light = await background_of(bubble(nico_page, "user", "no peanuts"))
    await nico_page.emulate_media(color_scheme="dark")
    await expect(nico_page.locator("html")).to_have_class(re.compile(r"\bdark\b"))
    await sees_the_other(nico_page, "Bonjour Chef", "Hello Chef, no peanuts", marie["avatar_url"])
    assert await background_of(bubble(nico_page, "user", "no peanuts")) != light
    assert errors == []
    for page in (nico_page, marie_page):
        await page.context.close()


async def kin_icon(picture: Locator) -> str:
    """The drawing inside a Kin's generated picture (its icon, without the gradient)."""
    drawing: str = await picture.evaluate(
        "svg => [...svg.querySelectorAll('path, circle, rect, line, polyline, ellipse')]"
        ".filter(shape => shape.closest('svg') !== svg)"
        ".map(shape => shape.outerHTML).join('')"
    )
    return drawing


@pytest.mark.parametrize("width", VIEWPORTS)
async def test_kins_without_a_picture_get_one_drawn_from_their_role(
    server: RunningServer, browser: Browser, width: str
) -> None:
    chef = await make_kin(server.client, "Chef", "Cuisinier de la famille", "Cuisine végétarienne.")
    prof = await make_kin(server.client, "Prof", "Teacher", "Homework help in maths.")
    await say(server.client, chef, "Bonjour Chef")
    await say(server.client, prof, "Bonjour Prof")
    errors: list[str] = []
    page = await signed_in_page(browser, server, NICOLAS["email"], VIEWPORTS[width], errors)

    icons: dict[str, str] = {}
    for kin_id, name in ((chef, "Chef"), (prof, "Prof")):
        await page.goto(f"{server.url}/kins/{kin_id}")
        header = page.get_by_role("main").locator("header")
        # Nicolas reads French: the picture is named in French.
        picture = header.get_by_role("img", name=f"Image de {name}")
        await expect(picture).to_be_visible()
        assert await picture.evaluate("element => element.tagName.toLowerCase()") == "svg"
        await expect(header).not_to_contain_text(name.upper()[:2])
        icons[name] = await kin_icon(picture)
        assert icons[name]
        # Its reply shows the same drawing beside it.
        reply = bubble(page, "assistant", "Hello from the fake")
        await expect(reply).to_be_visible()
        in_bubble = reply.get_by_role("img", name=f"Image de {name}")
        await expect(in_bubble).to_be_visible()
        assert await kin_icon(in_bubble) == icons[name]
    assert icons["Chef"] != icons["Prof"]

    if width == "desktop":  # on a phone the sidebar is a drawer, closed
        sidebar = page.get_by_role("navigation", name="KinBot")
        for kin_id, name in ((chef, "Chef"), (prof, "Prof")):
            # Decorative there: the name is written beside it.
            drawn = sidebar.locator(f'[data-kin-id="{kin_id}"] svg[aria-hidden="true"]').first
            await expect(drawn).to_be_visible()
            assert await kin_icon(drawn) == icons[name]
    assert errors == []
    await page.context.close()


@pytest.mark.parametrize("width", VIEWPORTS)
async def test_a_task_page_draws_its_replies_from_the_kin_doing_it(
    server: RunningServer, fake_llm: FakeOpenAI, browser: Browser, width: str
) -> None:
    prof = await make_kin(server.client, "Prof", "Teacher", "Homework help in maths.")
    fake_llm.enqueue(
        Reply(tool_calls=[("spawn_self", {"task_description": "Three exercises", "mode": "async"})])
    )
    await say(server.client, prof, "Prépare des exercices")
    errors: list[str] = []
    page = await signed_in_page(browser, server, NICOLAS["email"], VIEWPORTS[width], errors)
    await page.goto(f"{server.url}/kins/{prof}")
    teacher = page.get_by_role("main").locator("header").get_by_role("img", name="Image de Prof")
    await expect(teacher).to_be_visible()
    teacher_icon = await kin_icon(teacher)

    # Its reply after the tool call: by then the task exists.
    await expect(bubble(page, "assistant", "Hello from the fake")).to_be_visible()
    tasks = (await server.client.get(f"/api/tasks?kin_id={prof}")).json()["tasks"]
    assert len(tasks) == 1, tasks
    await page.goto(f"{server.url}/tasks/{tasks[0]['id']}")
    panel = page.get_by_role("main", name=tasks[0]["title"])
    reply = panel.locator('[data-origin="assistant"]').first
    await expect(reply).to_be_visible()
    drawn = reply.get_by_role("img", name=f"Image de {tasks[0]['title']}")
    await expect(drawn).to_be_visible()
    assert await kin_icon(drawn) == teacher_icon
    assert errors == []
    await page.context.close()
