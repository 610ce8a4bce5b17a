"""Secrets hidden on arrival, in Debian's Chromium, at phone and desktop width: a member's
pasted token shows as a chip with a note (never its value); an administrator says one hidden
text is not a secret and stores the other in the Vault from the chip's menu; Settings → Vault
then changes the secret's value and asks before deleting it."""

from __future__ import annotations

import pytest
from playwright.async_api import Page, expect

from tests import test_frontend_e2e as e2e
from tests.support.accounts import MARIE, register
from tests.support.browser import NEEDS_BROWSER
from tests.support.fakes import FakeOpenAI
from tests.support.secret_samples import KEYS
from tests.support.server import RunningServer
from tests.test_frontend_e2e import bubble, sign_in

# The browser tests' fixtures, under the names pytest looks for.
browser, page, server, fake_llm = e2e.browser, e2e.page, e2e.server, e2e.fake_llm

pytestmark = NEEDS_BROWSER

TOKEN = next(k.value for k in KEYS if k.name == "github classic")
BUILD_ID = next(k.value for k in KEYS if k.name == "random 40")
NEW_VALUE = "ghp_replaced0value0for0the0test0only00"


@pytest.mark.parametrize("width,height", [(390, 844), (1280, 800)], ids=["phone", "desktop"])
async def test_a_hidden_secret_is_dismissed_or_stored_from_the_chat_then_edited_and_deleted(
    server: RunningServer, fake_llm: FakeOpenAI, page: Page, width: int, height: int
) -> None:
    await sign_in(page, server)
    await page.set_viewport_size({"width": width, "height": height})
    kin_id = (await server.client.get("/api/kins")).json()["kins"][0]["id"]

    async with server.new_client() as marie:
        await register(server.client, marie, MARIE)
        sent = await marie.post(
            f"/api/kins/{kin_id}/messages",
            json={"content": f"Le build {BUILD_ID} est prêt, et mon token : {TOKEN}"},
        )
        assert sent.status_code == 202, sent.text
    message = bubble(page, "user", "Le build")
    first = message.locator("[data-pending-secret='1']")
    second = message.locator("[data-pending-secret='2']")
    await expect(first).to_have_text("Secret 1 masqué")
    await expect(second).to_have_text("Secret 2 masqué")
    await expect(message.locator("[data-secret-note]")).to_contain_text(
        "Un secret a été détecté et masqué"
    )
    await expect(bubble(page, "assistant", "Hello from the fake")).to_be_visible()
    content = await page.content()
    assert TOKEN not in content and BUILD_ID not in content

    # Nico (an administrator) says the first is not a secret, after a confirmation.
    await first.click()
    await page.get_by_role("menuitem", name="Ce n'est pas un secret").click()
    dialog = page.get_by_role("dialog", name="Ce n'est pas un secret ?")
    await dialog.get_by_role("button", name="L'afficher").click()
    await expect(message).to_contain_text(f"Le build {BUILD_ID} est prêt")
    await expect(first).to_have_count(0)
    await expect(second).to_be_visible()

    # He stores the second in the Vault: the message then names its key.
    await second.click()
    await page.get_by_role("menuitem", name="Ranger dans le coffre-fort…").click()
    dialog = page.get_by_role("dialog", name="Ranger ce secret dans le coffre-fort")
    await dialog.get_by_label("Clé", exact=True).fill("MARIE_TOKEN")
    await dialog.get_by_role("button", name="Ranger", exact=True).click()
    await expect(message).to_contain_text("mon token : [SECRET: MARIE_TOKEN]")
    await expect(message.locator("[data-secret-note]")).to_have_count(0)
    assert TOKEN not in await page.content()
    platform = server.platform
    assert await platform.vault.read_value("MARIE_TOKEN", kin_id=kin_id, turn=None) == TOKEN

    # Settings → Vault: a new value and description; deleting asks first.
    await page.goto(server.url + "/settings")
    await page.get_by_role("tab", name="Coffre-fort").click()
    secret = page.locator('[data-secret="MARIE_TOKEN"]')
    await expect(secret).to_contain_text("********")
    await secret.get_by_role("button", name="Modifier MARIE_TOKEN").click()
    dialog = page.get_by_role("dialog", name="Modifier MARIE_TOKEN")
    await dialog.get_by_label("Nouvelle valeur").fill(NEW_VALUE)
    await dialog.get_by_label("Description").fill("Le token GitHub de Marie")
    await dialog.get_by_role("button", name="Enregistrer").click()
    await expect(dialog).to_have_count(0)
    await expect(secret).to_contain_text("Le token GitHub de Marie")
    assert NEW_VALUE not in await page.content()
    assert await platform.vault.read_value("MARIE_TOKEN", kin_id=kin_id, turn=None) == NEW_VALUE

    await secret.get_by_role("button", name="Supprimer MARIE_TOKEN").click()
    dialog = page.get_by_role("dialog", name="Supprimer MARIE_TOKEN ?")
    await dialog.get_by_role("button", name="Annuler").click()
    await expect(dialog).to_have_count(0)
    await expect(secret).to_be_visible()
    await secret.get_by_role("button", name="Supprimer MARIE_TOKEN").click()
    await dialog.get_by_role("button", name="Supprimer", exact=True).click()
    await expect(secret).to_have_count(0)
    assert (await server.client.get("/api/vault")).json()["secrets"] == []
