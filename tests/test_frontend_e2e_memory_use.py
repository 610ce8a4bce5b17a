"""A Kin's memories page in Debian's Chromium (desktop in English, phone in French): how often
and when last each memory was used, the never-used filter, pinning, archiving and restoring a
memory; and the models of its memory extraction and summaries chosen on its profile tab."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from playwright.async_api import Browser, ViewportSize, expect

from kinbot_core.tools import Speaker, ToolContext
from kinbot_plugins.tools.memory_tools import TOOLS
from tests import test_frontend_e2e as e2e
from tests.support.browser import NEEDS_BROWSER, open_page
from tests.support.fakes import FakeOpenAI
from tests.support.server import RunningServer
from tests.test_frontend_e2e import sign_in

# The browser tests' fixtures, under the names pytest looks for.
browser, server, fake_llm = e2e.browser, e2e.server, e2e.fake_llm

pytestmark = NEEDS_BROWSER

#: Read when the module loads: the test session leaves no ``KINBOT_`` variable to its servers.
SCREENSHOTS = os.environ.get("KINBOT_SCREENSHOTS")
RECALL = next(tool for tool in TOOLS if tool.name == "recall")
WORDS = {
    "en": {
        "settings": "Kin settings",
        "memories": "Memories",
        "used": "Given to the Kin 2 times · looked up once · last used",
        "never": "Never used",
        "fact": "fact",
        "filter": "Show",
        "never_filter": "Never used",
        "all": "All",
        "archived_filter": "Archived",
        "pin": "Pin this memory",
        "unpin": "Unpin this memory",
        "archive": "Archive this memory",
        "restore": "Restore this memory",
        "pinned": "Pinned",
        "archived": "Archived",
        "profile": "Profile",
        "extraction": "Memory extraction",
        "own": "Chef's own model",
    },
    "fr": {
        "settings": "Réglages du Kin",
        "memories": "Souvenirs",
        "used": "Donné au Kin 2 fois · recherché une fois · dernière utilisation",
        "never": "Jamais utilisé",
        "fact": "fait",
        "filter": "Afficher",
        "never_filter": "Jamais utilisés",
        "all": "Tous",
        "archived_filter": "Archivés",
        "pin": "Épingler ce souvenir",
        "unpin": "Désépingler ce souvenir",
        "archive": "Archiver ce souvenir",
        "restore": "Restaurer ce souvenir",
        "pinned": "Épinglé",
        "archived": "Archivé",
        "profile": "Profil",
        "extraction": "Extraction des souvenirs",
        "own": "Le modèle de Chef",
    },
}


@pytest.fixture
def shots(tmp_path: Path) -> Path:
    """Where the screenshots go: the folder ``KINBOT_SCREENSHOTS`` names, to be looked at,
    else the test's own temporary folder."""
    folder = Path(SCREENSHOTS or tmp_path)
    folder.mkdir(parents=True, exist_ok=True)
    return folder


@pytest.mark.parametrize(
    ("language", "viewport"),
    [("en", ViewportSize(width=1280, height=800)), ("fr", ViewportSize(width=390, height=844))],
    ids=["desktop-en", "phone-fr"],
)
async def test_memories_show_their_use_and_are_pinned_archived_and_restored(
    server: RunningServer,
    fake_llm: FakeOpenAI,
    browser: Browser,
    language: str,
    viewport: ViewportSize,
    shots: Path,
) -> None:
    words = WORDS[language]
    changed = await server.client.patch("/api/me", json={"language": language})
    assert changed.status_code == 200, changed.text
    platform = server.platform
    async with open_page(browser) as page:
        await sign_in(page, server)
        await page.set_viewport_size(viewport)
        kin_id = (await server.client.get("/api/kins")).json()["kins"][0]["id"]
        memory = platform.memory
        peanuts = await memory.memorize(kin_id, "Marie is allergic to peanuts", "fact", "Marie")
        # Two turns give the peanuts memory to the Kin; its recall tool finds it once.
        for _ in range(2):
            context = await memory.backend().prompt_context(platform, kin_id, "Marie peanuts")
            assert context.memories[0].startswith("Marie is allergic to peanuts")
        speaker = Speaker("user", None, "Nico")
        found = await RECALL.run(
            ToolContext(platform, kin_id, "Chef", speaker), {"query": "peanuts"}
        )
        assert found["memories"][0]["id"] == peanuts.id
        # A memory learnt since: never used yet.
        veggie = await memory.memorize(kin_id, "Nicolas is vegetarian", "fact", "Nicolas")

        await page.get_by_role("link", name=words["settings"]).click()
        await page.get_by_role("tab", name=words["memories"]).click()
        await page.reload()  # the address keeps the tab (…/settings#memories)
        peanut_row = page.locator(f'[data-memory="{peanuts.id}"]')
        veggie_row = page.locator(f'[data-memory="{veggie.id}"]')
        await expect(peanut_row.locator("[data-usage]")).to_contain_text(words["used"])
        await expect(peanut_row.locator("[data-usage]")).to_have_attribute("data-usage", "2/1")
        await expect(veggie_row.get_by_text(words["never"], exact=True)).to_be_visible()
        await expect(veggie_row.get_by_text(words["fact"], exact=True)).to_be_visible()
        await page.screenshot(path=str(shots / f"memories-{language}.png"), full_page=True)

        # The never-used filter shows only the vegetarian memory.
        await page.get_by_label(words["filter"]).select_option(label=words["never_filter"])
        await expect(veggie_row).to_be_visible()
        await expect(peanut_row).to_have_count(0)
        await page.get_by_label(words["filter"]).select_option(label=words["all"])

        # Pin the vegetarian memory: always given to the Kin from now on.
        await veggie_row.get_by_role("button", name=words["pin"]).click()
        await expect(veggie_row.get_by_text(words["pinned"], exact=True)).to_be_visible()
        await expect(veggie_row.get_by_role("button", name=words["unpin"])).to_be_visible()
        context = await memory.backend().prompt_context(platform, kin_id, "What is for dinner?")
        assert context.memories[0] == "Nicolas is vegetarian (fact, about Nicolas)"

        # Archive the peanuts memory: still listed, never given; then restore it.
        await peanut_row.get_by_role("button", name=words["archive"]).click()
        await expect(peanut_row.get_by_text(words["archived"], exact=True)).to_be_visible()
        await expect(peanut_row).to_have_attribute("data-archived", "true")
        context = await memory.backend().prompt_context(platform, kin_id, "Marie peanuts")
        assert not any("peanuts" in line for line in context.memories)
        await page.get_by_label(words["filter"]).select_option(label=words["archived_filter"])
        await expect(peanut_row).to_be_visible()
        await expect(veggie_row).to_have_count(0)
        await page.screenshot(path=str(shots / f"archived-{language}.png"), full_page=True)
        await peanut_row.get_by_role("button", name=words["restore"]).click()
        await expect(peanut_row).to_have_count(0)  # no longer archived
        await page.get_by_label(words["filter"]).select_option(label=words["all"])
        await expect(peanut_row).to_have_attribute("data-archived", "false")
        listed = (await server.client.get(f"/api/kins/{kin_id}/memories")).json()["memories"]
        marks = {item["id"]: (item["pinned"], item["archived_at"]) for item in listed}
        assert marks == {peanuts.id: (False, None), veggie.id: (True, None)}

        # The profile tab: memory extraction on the Kin's own model.
        await page.get_by_role("tab", name=words["profile"]).click()
        await page.get_by_label(words["extraction"]).select_option(label=words["own"])
        await expect(page.get_by_label(words["extraction"])).to_have_value("@kin")
        card = page.locator("[data-background-models]")
        await card.scroll_into_view_if_needed()
        await card.screenshot(path=str(shots / f"models-{language}.png"))
        kin = (await server.client.get(f"/api/kins/{kin_id}")).json()["kin"]
        assert kin["memory_extraction_model"] == "@kin"
