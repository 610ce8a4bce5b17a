"""Who can use a Kin, in Debian's Chromium (desktop in English, phone in French): the
administrator restricts a Kin to themselves in its settings; Marie, who had it open in her
sidebar, sees it vanish at once and cannot open it any more (its chat's and its settings'
addresses say it is not here and lead back to a Kin she has); the administrator's sidebar
shows it with a lock, and so does the list of every Kin's access in Settings."""

from __future__ import annotations

import re

import pytest
from playwright.async_api import Browser, Page, expect

from tests import test_frontend_e2e as e2e
from tests.support.accounts import MARIE, NICOLAS, PASSWORD, register
from tests.support.browser import NEEDS_BROWSER, open_page
from tests.support.server import RunningServer

browser, server, fake_llm = e2e.browser, e2e.server, e2e.fake_llm

pytestmark = NEEDS_BROWSER

WORDS = {
    "en": {
        "tab": "Access",
        "members": "Only these members",
        "save": "Save",
        "saved": "Access saved.",
        "menu": "Open navigation",
        "lock": "Restricted to some members",
        "admin_tab": "Kin access",
        "listed": "Only Nico",
        "unavailable": "This Kin is not here",
        "open_chef": "Open Chef",
    },
    "fr": {
        "tab": "Accès",
        "members": "Seulement ces membres",
        "save": "Enregistrer",
        "saved": "Accès enregistré.",
        "menu": "Ouvrir la navigation",
        "lock": "Réservé à certains membres",
        "admin_tab": "Accès aux Kins",
        "listed": "Seulement Nico",
        "unavailable": "Ce Kin n'est pas là",
        "open_chef": "Ouvrir Chef",
    },
}


async def sign_in(page: Page, server: RunningServer, email: str) -> None:
    await page.goto(server.url + "/signin")
    await page.get_by_label(re.compile("Email|E-mail")).fill(email)
    await page.get_by_label(re.compile("Password|Mot de passe")).fill(PASSWORD)
    await page.get_by_role("button", name=re.compile("Sign in|Se connecter")).click()
    await expect(page).to_have_url(re.compile(r"/kins/"))


async def open_sidebar(page: Page, words: dict[str, str], phone: bool) -> None:
    if phone:
        await page.get_by_role("button", name=words["menu"]).first.click()


@pytest.mark.parametrize(
    "language,width,height", [("en", 1280, 800), ("fr", 390, 844)], ids=["desktop-en", "phone-fr"]
)
async def test_an_admin_restricts_a_kin_and_the_other_member_no_longer_sees_it(
    server: RunningServer, browser: Browser, language: str, width: int, height: int
) -> None:
    words = WORDS[language]
    phone = width < 500
    admin = server.client
    assert (await admin.patch("/api/me", json={"language": language})).is_success
    await e2e.make_kin(server)  # "Chef", shared
    budget = await admin.post("/api/kins", json={"name": "Budget", "model": "gpt-4o"})
    budget_id = budget.json()["kin"]["id"]
    async with server.new_client() as marie_client:
        await register(admin, marie_client, {**MARIE, "language": language})

    viewport = {"width": width, "height": height}
    async with (
        open_page(browser, viewport=viewport) as nico,
        open_page(browser, viewport=viewport) as marie,
    ):
        await sign_in(nico, server, NICOLAS["email"])
        await sign_in(marie, server, MARIE["email"])
        await open_sidebar(marie, words, phone)
        # Role queries see only what is shown (a phone also has the desktop's hidden sidebar).
        in_marie_list = marie.get_by_role("button", name=re.compile("^Budget"))
        await expect(in_marie_list).to_be_visible()

        # Nicolas keeps Budget to himself (he is ticked first), and saves.
        await nico.goto(f"{server.url}/kins/{budget_id}/settings")
        await nico.get_by_role("tab", name=words["tab"]).click()
        await nico.get_by_role("radio", name=words["members"]).check()
        boxes = nico.locator('input[name="kin_member"]')
        await expect(boxes).to_have_count(2)
        await expect(nico.locator('input[name="kin_member"]:checked')).to_have_count(1)
        await nico.get_by_role("button", name=words["save"], exact=True).click()
        await expect(nico.get_by_text(words["saved"], exact=True)).to_be_visible()
        await expect(nico.locator('[data-kin-access="members"]')).to_be_visible()

        # Marie's sidebar loses it at once; its address is as unknown as any other.
        await expect(in_marie_list).to_have_count(0)
        await expect(marie.get_by_role("button", name=re.compile("^Chef"))).to_be_visible()
        # Its settings' address says only that it is not here, as for one deleted, and leads
        # back to a Kin she has.
        for gone in (budget_id, "no-such-kin"):
            await marie.goto(f"{server.url}/kins/{gone}/settings")
            await expect(marie.get_by_role("heading", name=words["unavailable"])).to_be_visible()
            await expect(marie.get_by_role("tab", name=words["tab"])).to_have_count(0)
            assert "Budget" not in await marie.content()
        await marie.get_by_role("link", name=words["open_chef"]).click()
        await expect(marie).to_have_url(re.compile(r"/kins/(?!" + budget_id + r")[^/]+$"))
        # Its chat's address says only that it is not here, and leads back to a Kin she has.
        await marie.goto(f"{server.url}/kins/{budget_id}")
        await expect(marie.get_by_role("heading", name=words["unavailable"])).to_be_visible()
        assert "Budget" not in await marie.content()
        await marie.get_by_role("link", name=words["open_chef"]).click()
        await expect(marie).to_have_url(re.compile(r"/kins/(?!" + budget_id + ")"))

        # Nicolas's sidebar shows the lock beside it, and not beside Chef.
        await nico.goto(f"{server.url}/kins/{budget_id}")
        await open_sidebar(nico, words, phone)
        in_nico_list = nico.get_by_role("button", name=re.compile("^Budget"))
        await expect(in_nico_list.get_by_role("img", name=words["lock"])).to_be_visible()
        chef = nico.get_by_role("button", name=re.compile("^Chef"))
        await expect(chef).to_be_visible()
        await expect(chef.get_by_role("img", name=words["lock"])).to_have_count(0)

        # Settings list every Kin's access for administrators, with the same lock.
        await nico.goto(f"{server.url}/settings")
        await nico.get_by_role("tab", name=words["admin_tab"]).click()
        listed = nico.get_by_role("listitem", name="Budget")
        await expect(listed.get_by_role("img", name=words["lock"])).to_be_visible()
        await expect(listed).to_contain_text(words["listed"])
