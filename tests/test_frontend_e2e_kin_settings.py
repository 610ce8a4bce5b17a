"""A Kin's settings in Debian's Chromium: the crons tab following the live feed, custom tools
removed from the tools tab (every tab in sight at phone width), roles written in French
sentences, the internet for its scripts switched, and the Kin deleted, only by an
administrator or its creator."""

from __future__ import annotations

import re

from playwright.async_api import Browser, ConsoleMessage, Page, expect

from tests import test_frontend_e2e as e2e
from tests.support.accounts import MARIE, PASSWORD, invite, register
from tests.support.browser import NEEDS_BROWSER, toast
from tests.support.fakes import FakeOpenAI, Reply
from tests.support.server import RunningServer
from tests.test_frontend_e2e import bubble, sign_in

# The browser tests' fixtures, under the names pytest looks for.
browser, page, server, fake_llm = e2e.browser, e2e.page, e2e.server, e2e.fake_llm

pytestmark = NEEDS_BROWSER


async def open_tab(page: Page, tab: str) -> None:
    await page.get_by_role("link", name="Réglages du Kin").click()
    await expect(page.get_by_role("heading", name="Réglages de Chef")).to_be_visible()
    await page.get_by_role("tab", name=tab).click()


async def test_the_crons_tab_follows_other_people_the_kin_and_the_scheduler(
    server: RunningServer, fake_llm: FakeOpenAI, page: Page
) -> None:
    await sign_in(page, server)
    kin_id = (await server.client.get("/api/kins")).json()["kins"][0]["id"]
    await open_tab(page, "Crons")
    await expect(page.get_by_text("Pas encore de cron.")).to_be_visible()

    async with server.new_client() as marie:
        await register(server.client, marie, MARIE)
        # Marie creates a cron in her own browser: it shows here without a reload.
        created = await marie.post(
            "/api/crons",
            json={"kin_id": kin_id, "name": "Tea time", "schedule": "0 16 * * *",
                  "task_description": "Remind everyone of tea."},
        )  # fmt: skip
        assert created.status_code == 201, created.text
        cron = created.json()["cron"]
        tea = page.get_by_role("listitem", name="Tea time")
        await expect(tea.get_by_text("0 16 * * *")).to_be_visible()
        await expect(tea.get_by_text("Actif", exact=True)).to_be_visible()
        await expect(tea.get_by_text("Pas encore exécuté")).to_be_visible()
        await expect(tea.locator("[data-next-run]")).to_contain_text("Prochaine exécution")

        # Her change and her pause follow.
        changed = await marie.patch(
            f"/api/crons/{cron['id']}", json={"schedule": "30 16 * * 1-5", "active": False}
        )
        assert changed.status_code == 200, changed.text
        await expect(tea.get_by_text("30 16 * * 1-5")).to_be_visible()
        await expect(tea.get_by_text("En pause", exact=True)).to_be_visible()
        await expect(tea.locator("[data-next-run]")).to_have_count(0)  # a paused cron never runs

        # The Kin proposes one, from a message sent elsewhere: it shows, awaiting confirmation.
        proposal = {"name": "Weekly menu", "schedule": "0 18 * * 0",
                    "task_description": "Plan next week's dinners."}  # fmt: skip
        fake_llm.enqueue(Reply(tool_calls=[("create_cron", proposal)]), Reply(text="Proposé."))
        sent = await marie.post(
            f"/api/kins/{kin_id}/messages", json={"content": "Plan the menus every Sunday"}
        )
        assert sent.status_code == 202, sent.text
        weekly = page.get_by_role("listitem", name="Weekly menu")
        await expect(weekly.get_by_text("En attente de confirmation")).to_be_visible()
        await expect(weekly.get_by_text("Proposé par Chef")).to_be_visible()
        names = page.get_by_role("list", name="Crons").get_by_role("listitem")
        await expect(names).to_have_count(2)

        # A run of the scheduler: its last run, its state, then its end show as they happen.
        resumed = await marie.patch(f"/api/crons/{cron['id']}", json={"active": True})
        next_run = resumed.json()["cron"]["next_run_at"]
        assert next_run is not None
        await expect(tea.get_by_text("Actif", exact=True)).to_be_visible()
        fake_llm.enqueue(Reply(text="Tea is served."))
        task_id = await server.platform.crons.scheduler.fire(cron["id"], next_run)
        assert task_id is not None
        last_run = tea.locator('[data-last-run="completed"]')
        await expect(last_run).to_contain_text("Dernière exécution : terminée")
        await expect(last_run).to_have_attribute("href", f"/tasks/{task_id}")

        # Marie deletes it: it goes away here too.
        deleted = await marie.delete(f"/api/crons/{cron['id']}")
        assert deleted.status_code == 204, deleted.text
        await expect(tea).to_have_count(0)
        await expect(names).to_have_count(1)

    # What the tab shows is what the API lists, after a reload as well.
    listed = (await server.client.get(f"/api/crons?kin_id={kin_id}")).json()["crons"]
    assert [c["name"] for c in listed] == ["Weekly menu"]
    await page.reload()
    await page.get_by_role("tab", name="Crons").click()
    await expect(weekly.get_by_text("En attente de confirmation")).to_be_visible()
    await expect(names).to_have_count(1)


async def test_a_custom_tool_is_removed_from_the_tools_tab_at_phone_width(
    server: RunningServer, fake_llm: FakeOpenAI, page: Page
) -> None:
    await sign_in(page, server)
    await page.set_viewport_size({"width": 390, "height": 844})
    kin_id = (await server.client.get("/api/kins")).json()["kins"][0]["id"]
    source = "import json, sys\nn = json.load(sys.stdin)['n']\nprint(n * 2)\n"
    schema = {"type": "object", "required": ["n"],
              "properties": {"n": {"type": "integer", "description": "The number to double."},
                             "unit": {"enum": ["g", "kg"]}}}  # fmt: skip
    fake_llm.enqueue(
        Reply(tool_calls=[("write_file", {"path": "tools/double.py", "content": source})]),
        Reply(tool_calls=[("register_tool", {"name": "double", "description": "Doubles a number.",
                                             "parameters": schema, "path": "tools/double.py"})]),
        Reply(text="Outil prêt."),
    )  # fmt: skip
    composer = page.get_by_placeholder("Écrire à Chef…")
    await composer.fill("Fabrique-toi un outil qui double les nombres.")
    await composer.press("Enter")
    await expect(bubble(page, "assistant", "Outil prêt.")).to_be_visible()

    await open_tab(page, "Outils")
    # Every tab of the row shows whole at phone width (it wraps: none is cut off unseen).
    tabs = page.get_by_role("tab")
    await expect(tabs).to_have_count(6)
    for tab in await tabs.all():
        await expect(tab).to_be_in_viewport(ratio=1)
    double = page.get_by_role("listitem", name="double", exact=True)
    await expect(double.get_by_text("Doubles a number.")).to_be_visible()
    arguments = double.get_by_role("list", name="Arguments de double")
    await expect(arguments.get_by_role("listitem")).to_have_count(2)
    await expect(arguments.get_by_role("listitem").first).to_contain_text("n*: integer")
    await expect(arguments.get_by_role("listitem").last).to_contain_text('unit: "g" | "kg"')

    # With the keyboard: Escape keeps the tool, confirming removes it.
    remove = double.get_by_role("button", name="Retirer l'outil double")
    await remove.focus()
    await page.keyboard.press("Enter")
    dialog = page.get_by_role("dialog")
    await expect(dialog.get_by_text("Chef ne pourra plus l'appeler")).to_be_visible()
    await page.keyboard.press("Escape")
    await expect(dialog).to_have_count(0)
    await expect(double).to_be_visible()
    await remove.click()
    await dialog.get_by_role("button", name="Supprimer").click()
    await expect(toast(page, "Outil double retiré")).to_be_visible()
    await expect(double).to_have_count(0)
    await expect(page.get_by_text("Ce Kin n'a enregistré aucun outil.")).to_be_visible()
    tools = (await server.client.get(f"/api/kins/{kin_id}/custom-tools")).json()["tools"]
    assert tools == []


async def test_an_invitation_names_the_role_in_lower_case_in_french(
    server: RunningServer, browser: Browser
) -> None:
    code = await invite(server.client, "admin")
    context = await browser.new_context(locale="fr-FR")
    try:
        guest = await context.new_page()
        await guest.goto(f"{server.url}/invite/{code}")
        await expect(guest.get_by_text("Rejoindre KinBot")).to_be_visible()
        subtitle = guest.get_by_text(re.compile("Vous êtes invité·e comme"))
        await expect(subtitle).to_have_text(
            "Vous êtes invité·e comme administrateur·rice. Présentez-vous."
        )
    finally:
        await context.close()


async def test_only_an_administrator_or_its_creator_gives_a_kins_scripts_the_internet(
    server: RunningServer, page: Page, browser: Browser
) -> None:
    await sign_in(page, server)
    kin_id = (await server.client.get("/api/kins")).json()["kins"][0]["id"]
    await open_tab(page, "Profil")
    await expect(page.get_by_role("button", name="Supprimer ce Kin")).to_be_visible()
    switch = page.get_by_role("switch", name="Les scripts de Chef peuvent utiliser internet")
    await expect(switch).not_to_be_checked()
    await switch.click()
    await expect(switch).to_be_checked()
    kin = (await server.client.get(f"/api/kins/{kin_id}")).json()["kin"]
    assert kin["network_access"] is True

    # Marie, a member who did not create Chef, sees the setting but cannot change it.
    async with server.new_client() as marie_api:
        await register(server.client, marie_api, MARIE)
        diary = await marie_api.post("/api/kins", json={"name": "Diary", "model": "gpt-4o"})
        assert diary.status_code == 201, diary.text
    context = await browser.new_context(locale="en-US")
    try:
        marie = await context.new_page()
        asked: list[str] = []
        marie.on("request", lambda request: asked.append(request.url))
        console_errors: list[str] = []

        def on_console(message: ConsoleMessage) -> None:
            if message.type == "error":
                console_errors.append(message.text)

        marie.on("console", on_console)
        await marie.goto(f"{server.url}/signin")
        await marie.get_by_label("Email").fill(MARIE["email"])
        await marie.get_by_label("Password").fill(PASSWORD)
        await marie.get_by_role("button", name="Sign in").click()
        await expect(marie.get_by_role("navigation", name="KinBot")).to_be_visible()
        await marie.goto(f"{server.url}/kins/{kin_id}/settings")
        theirs = marie.get_by_role("switch", name="Chef's scripts may use the internet")
        await expect(theirs).to_be_checked()
        await expect(theirs).to_be_disabled()
        await expect(
            marie.get_by_text("Only an administrator or the person who created Chef")
        ).to_be_visible()
        # Nor may she delete Chef (and its whole history); a Kin she created, she may.
        await expect(marie.get_by_role("button", name="Delete this Kin")).to_have_count(0)
        # Its Tools tab does not ask for the administrators' approval rules (403) nor show them.
        async with marie.expect_response(re.compile(r"/api/kins/[^/]+/mcp-servers$")):
            await marie.get_by_role("tab", name="Tools").click()
        await expect(marie.get_by_role("heading", name="Approvals")).to_have_count(0)
        assert not [url for url in asked if "approval-rules" in url], asked
        assert console_errors == []
        await marie.goto(f"{server.url}/kins/{diary.json()['kin']['id']}/settings")
        await expect(marie.get_by_role("heading", name="Diary's settings")).to_be_visible()
        await expect(marie.get_by_role("button", name="Delete this Kin")).to_be_visible()
    finally:
        await context.close()
