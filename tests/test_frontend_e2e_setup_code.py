"""A fresh instance opened from another machine: the onboarding page asks for the set-up code
printed in the server's log, or takes it from the log's link (Debian's Chromium)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
from playwright.async_api import Browser, Page, expect

from tests.support.accounts import PASSWORD
from tests.support.browser import NEEDS_BROWSER, launched
from tests.support.serve_process import KinbotProcess, kinbot_serve, non_loopback_address

pytestmark = NEEDS_BROWSER


@pytest.fixture
def remote_server(tmp_path: Path) -> Iterator[tuple[KinbotProcess, str]]:
    """``kinbot serve`` on a non-loopback address of this machine: the browser reaches it
    there, so the server sees it as another machine. Yields the server and its set-up code."""
    address = non_loopback_address()
    if address is None:
        pytest.skip("this machine has no address other than loopback")
    with kinbot_serve(tmp_path / "data", tmp_path / "serve.log", host=address) as server:
        link = server.setup_link()
        assert link is not None, server.log_text()
        yield server, link[1]


@pytest.fixture
async def browser() -> AsyncIterator[Browser]:
    async with launched() as browser:
        yield browser


async def open_page(browser: Browser, locale: str) -> Page:
    context = await browser.new_context(locale=locale, viewport={"width": 1280, "height": 800})
    context.set_default_timeout(30_000)
    return await context.new_page()


async def fill_identity(page: Page) -> None:
    for field, value in (
        ("first_name", "Nicolas"),
        ("last_name", "Durand"),
        ("email", "nicolas@example.org"),
        ("pseudonym", "Nico"),
        ("password", PASSWORD),
        ("password_confirmation", PASSWORD),
    ):
        await page.locator(f"#{field}").fill(value)


async def test_the_link_in_the_log_fills_the_code_in(
    remote_server: tuple[KinbotProcess, str], browser: Browser
) -> None:
    server, code = remote_server
    page = await open_page(browser, "en-US")
    await page.goto(f"{server.url}/onboarding?setup={code}")
    field = page.get_by_label("Set-up code")
    await expect(field).to_have_value(code)
    await fill_identity(page)
    await page.get_by_role("button", name="Continue").click()
    await expect(page.get_by_role("heading", name="Connect your AI providers")).to_be_visible()


async def test_the_page_asks_for_the_code_and_says_when_it_is_wrong(
    remote_server: tuple[KinbotProcess, str], browser: Browser
) -> None:
    server, code = remote_server
    page = await open_page(browser, "fr-FR")
    await page.goto(f"{server.url}/")  # the app sends a fresh instance to onboarding
    field = page.get_by_label("Code d'installation")
    await expect(field).to_be_visible()
    await expect(page.get_by_text("pas encore d'administrateur")).to_be_visible()
    await fill_identity(page)
    await field.fill("not-the-code")
    await page.get_by_role("button", name="Continuer").click()
    await expect(page.get_by_role("alert")).to_have_text(
        "Ce n'est pas le code d'installation : recopiez-le depuis le journal de KinBot "
        "(il change à chaque démarrage)."
    )
    await field.fill(code)
    await page.get_by_role("button", name="Continuer").click()
    await expect(
        page.get_by_role("heading", name="Connectez vos fournisseurs d'IA")
    ).to_be_visible()
