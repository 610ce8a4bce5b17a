"""The interface speaks its user's language, not the server's nor the browser's: in Debian's
Chromium, a validation error, a failed connection test (the provider's own words on a second
line) and the task page's date read in French for a French user and in English for an English
one, in a browser set to the other language; English at desktop width, French at phone width
(the diagonal of the four: a language's words do not depend on the width)."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from typing import Any

import pytest
from playwright.async_api import Browser, Page, ViewportSize, expect

from tests import test_frontend_e2e as e2e
from tests.support.browser import NEEDS_BROWSER, open_page
from tests.support.fakes import FakeOpenAI, RecordedRequest, Reply
from tests.support.provider_setups import API_KEY
from tests.support.server import RunningServer
from tests.support.sse import sse_stream
from tests.test_frontend_e2e import make_kin

# The browser tests' fixtures, under the names pytest looks for.
browser, server, fake_llm = e2e.browser, e2e.server, e2e.fake_llm

pytestmark = NEEDS_BROWSER

#: The UI language under test, and the browser's locale: always the other language.
LANGUAGES = {"fr": "en-US", "en": "fr-FR"}
WIDTHS: dict[str, ViewportSize] = {
    "desktop": {"width": 1280, "height": 800},
    "phone": {"width": 390, "height": 844},
}
#: (UI language, width): each language at one width.
CASES = [
    pytest.param(("en", "desktop"), id="desktop-en"),
    pytest.param(("fr", "phone"), id="phone-fr"),
]

#: What the fake OpenAI server answers a key it does not know (its own words, in English).
PROVIDER_REFUSAL = (
    "Incorrect API key provided. You can find your API key at"
    " https://platform.openai.com/account/api-keys."
)

FR_MONTHS = ("janv.", "févr.", "mars", "avr.", "mai", "juin",
             "juil.", "août", "sept.", "oct.", "nov.", "déc.")  # fmt: skip
EN_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun",
             "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")  # fmt: skip

#: What each screen says, by UI language.
WORDS: dict[str, dict[str, Any]] = {
    "fr": {
        "vault": "Coffre-fort",
        "account": "Mon compte",
        "providers": "Fournisseurs d'IA",
        "add": "Ajouter",
        "test": "Tester la connexion",
        "too_long": "Vérifiez la description (500 caractères au plus).",
        "refused": "La connexion a échoué : Le fournisseur a refusé la clé d'API.",
        "said": "Le fournisseur a répondu : ",
        "connected": re.compile(r"^Connecté à OpenAI\s: \d+ modèles\."),
    },
    "en": {
        "vault": "Vault",
        "account": "My account",
        "providers": "AI providers",
        "add": "Add",
        "test": "Test connection",
        "too_long": "Check the description (at most 500 characters).",
        "refused": "The connection failed: The provider refused the API key.",
        "said": "The provider said: ",
        "connected": re.compile(r"^Connected to OpenAI: \d+ models\."),
    },
}


def written(seconds: float, language: str) -> str:
    """How the interface writes a date and time in ``language`` (the page runs in UTC)."""
    when = datetime.fromtimestamp(seconds, UTC)
    if language == "fr":
        return f"{when.day} {FR_MONTHS[when.month - 1]} {when.year}, {when:%H:%M}"
    hour = when.hour % 12 or 12
    noon = "AM" if when.hour < 12 else "PM"
    return f"{EN_MONTHS[when.month - 1]} {when.day}, {when.year}, {hour}:{when:%M} {noon}"


@pytest.fixture(params=CASES)
def case(request: pytest.FixtureRequest) -> tuple[str, str]:
    language, width = request.param
    return str(language), str(width)


@pytest.fixture
def language(case: tuple[str, str]) -> str:
    return case[0]


@pytest.fixture
async def page(browser: Browser, case: tuple[str, str]) -> AsyncIterator[Page]:
    language, width = case
    options = {"locale": LANGUAGES[language], "viewport": WIDTHS[width]}
    async with open_page(browser, timezone_id="UTC", **options) as page:
        yield page


async def sign_in(page: Page, server: RunningServer, language: str) -> dict[str, Any]:
    """Nicolas, who reads ``language``, signs in (the sign-in page follows the browser)."""
    changed = await server.client.patch("/api/me", json={"language": language})
    assert changed.status_code == 200, changed.text
    kin = await make_kin(server)
    await page.goto(server.url + "/signin")
    await page.locator("#email").fill("nicolas@example.org")
    await page.locator("#password").fill("correct horse battery staple")
    await page.locator("button[type=submit]").click()
    await expect(page).to_have_url(re.compile(r"/kins/[^/]+$"))
    return kin


async def test_a_validation_error_reads_in_the_users_language(
    server: RunningServer, page: Page, language: str
) -> None:
    words = WORDS[language]
    await sign_in(page, server, language)
    await page.goto(server.url + "/settings")
    await page.get_by_role("tab", name=words["vault"]).click()
    await page.locator("#secret-key").fill("LONG_NOTE")
    await page.locator("#secret-value").fill("a value of the secret")
    await page.locator("#secret-description").fill("x" * 501)
    await page.get_by_role("button", name=words["add"], exact=True).click()
    # The server refuses the field: its rule and limit, worded by the interface.
    await expect(page.get_by_text(words["too_long"], exact=True)).to_be_visible()
    await expect(page.get_by_text("The request is not valid.")).to_have_count(0)
    assert (await server.client.get("/api/vault")).json()["secrets"] == []


async def test_a_connection_test_reads_in_the_users_language(
    server: RunningServer, fake_llm: FakeOpenAI, page: Page, language: str
) -> None:
    words = WORDS[language]
    fake_llm.valid_keys = {API_KEY}
    await sign_in(page, server, language)
    await page.goto(server.url + "/settings")
    await page.get_by_role("tab", name=words["providers"]).click()
    await page.locator("#ai-type").select_option("openai")
    await page.locator("#ai-base_url").fill(f"{fake_llm.base_url}/v1")

    # A key the provider refuses: why, in the user's words; the provider's own English only
    # on a second line that says whose words they are.
    await page.locator("#ai-api_key").fill("sk-not-a-key-of-this-account")
    await page.get_by_role("button", name=words["test"]).click()
    report = page.get_by_role("status").filter(has_text=words["refused"])
    await expect(report).to_have_text(words["refused"])
    said = words["said"] + PROVIDER_REFUSAL
    await expect(page.get_by_test_id("connection-detail")).to_have_text(said)

    # The right key: connected, with the number of models, in the same language.
    await page.locator("#ai-api_key").fill(API_KEY)
    await page.get_by_role("button", name=words["test"]).click()
    await expect(page.get_by_role("status").filter(has_text=words["connected"])).to_be_visible()
    await expect(page.get_by_test_id("connection-detail")).to_have_count(0)


def spawning(request: RecordedRequest) -> Reply | None:
    """The Kin hands a soup search to a task, whose sub-Kin answers at once."""
    if request.endpoint != "chat":
        return None
    messages = request.body["messages"]
    if "ephemeral sub-Kin" in messages[0]["content"]:
        return Reply(text="Leek and potato soup.")
    if any(message["role"] == "tool" for message in messages):
        return Reply(text="C'est noté.")
    task = {"task_description": "Find a soup for tonight", "mode": "async"}
    return Reply(tool_calls=[("spawn_self", task)])


async def test_the_task_pages_date_reads_in_the_users_language(
    server: RunningServer, fake_llm: FakeOpenAI, page: Page, language: str
) -> None:
    fake_llm.responder = spawning
    kin = await sign_in(page, server, language)
    async with sse_stream(server.client) as stream:
        sent = await server.client.post(
            f"/api/kins/{kin['id']}/messages", json={"content": "A soup tonight?"}
        )
        assert sent.status_code == 202, sent.text
        done = await stream.wait_for(
            lambda event: (
                event.type == "task.updated" and event.data["task"]["status"] == "completed"
            ),
            seconds=120,  # only bounds a hang: a busy machine runs the turns slowly
        )
    task_id = done.data["task"]["id"]
    task = (await server.client.get(f"/api/tasks/{task_id}")).json()["task"]

    await page.goto(f"{server.url}/tasks/{task_id}")
    date = page.get_by_role("main", name="Find a soup for tonight").locator("time").first
    # "3 déc. 2026, 11:37" in French, "Dec 3, 2026, 11:37 AM" in English, whatever the browser.
    await expect(date).to_have_text(written(task["created_at"], language))


async def test_my_account_opened_directly_reads_in_the_users_language(
    server: RunningServer, page: Page, language: str
) -> None:
    """A reload of My account (or a notification's link to it) in a browser of the other
    language: the page speaks the person's own."""
    await sign_in(page, server, language)
    await page.goto(server.url + "/account")
    await expect(page.get_by_role("heading", level=1)).to_have_text(WORDS[language]["account"])
