"""A first run without traps, in Debian's Chromium against the real server (issue 18).

The local path end to end (an Ollama-like server faked on loopback, memory search on this
computer, no account anywhere), the add form's defaults (the type list's order, a default name
that passes validation, field hints that match the rules, plain words instead of capability
ids), the first Kin on a phone, its starter prompts and the composer's focus, and the
"Advanced" disclosures of the settings pages: at desktop and phone widths, in English and
French.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
from playwright.async_api import Browser, Page, ViewportSize, expect

from tests import test_frontend_e2e as e2e
from tests.support.accounts import NICOLAS, PASSWORD, set_up_admin
from tests.support.browser import NEEDS_BROWSER
from tests.support.fakes import FakeOpenAI, Reply
from tests.support.provider_setups import add_openai_provider
from tests.support.server import RunningServer
from tests.test_frontend_e2e_a11y import DESKTOP, PHONE, assert_fits, open_signed_in

pytestmark = NEEDS_BROWSER

# The browser tests' fixtures, under the names pytest looks for.
browser, fake_llm, empty_server = e2e.browser, e2e.fake_llm, e2e.empty_server
NICO_EN = {**NICOLAS, "language": "en"}
#: An Ollama-like server: chat models only, so memory search has to come from this computer.
LOCAL_MODELS = ["llama3.2", "qwen2.5"]
#: (UI language, viewport): each language at one width, and the other width in the other test.
WIDTHS = [pytest.param("en", DESKTOP, id="en-desktop"), pytest.param("fr", PHONE, id="fr-phone")]
WORDS = {
    "en": {
        "continue": "Continue", "skip": "Skip", "use_local": "Use local models",
        "local_models": "Local models", "local_memory": "Local memory",
        "chat_model": "chat model", "memory_search": "memory search",
        "ready": "A chat model and memory search are ready.", "add": "Add",
        "name": "Name", "role": "Role", "expertise": "Expertise", "model": "Model",
        "create": "Create Kin", "greeting": "Hello, I'm Chef!",
        "prompt": "What can you do for me with vegetarian cooking?",
        "create_a_kin": "Create a Kin", "close": "Close", "first_kin": "Create your first Kin",
        "advanced": "Advanced", "summary": "Summary", "plugins": "Plugins",
        "address_hint": "Ollama's usual address is filled in",
        "local_done": "Local models and memory search are set up.",
        "only_memory": "Needed: it provides the only memory backend.",
        "metrics": "Monitoring counters", "metrics_name": "Plugin name: metrics",
        "providers_title": "Connect your AI providers",
    },
    "fr": {
        "continue": "Continuer", "skip": "Passer", "use_local": "Utiliser les modèles locaux",
        "local_models": "Modèles locaux", "local_memory": "Mémoire locale",
        "chat_model": "modèle de conversation", "memory_search": "recherche dans la mémoire",
        "ready": "Un modèle de conversation et la recherche dans la mémoire sont prêts.",
        "add": "Ajouter", "name": "Nom", "role": "Rôle", "expertise": "Expertise",
        "model": "Modèle", "create": "Créer le Kin", "greeting": "Bonjour, je suis Chef !",
        "prompt": "Que peux-tu faire pour moi côté cuisine végétarienne ?",
        "create_a_kin": "Créer un Kin", "close": "Fermer", "first_kin": "Créez votre premier Kin",
        "advanced": "Avancé", "summary": "Résumé", "plugins": "Plugins",
        "address_hint": "L'adresse habituelle d'Ollama est déjà remplie",
        "local_done": "Les modèles locaux et la recherche dans la mémoire sont prêts.",
        "only_memory": "Indispensable : c'est le seul moteur de mémoire.",
        "metrics": "Compteurs de supervision", "metrics_name": "Nom du plugin : metrics",
        "providers_title": "Connectez vos fournisseurs d'IA",
    },
}  # fmt: skip
#: How long adding local embeddings may take: the first one loads the model in the process.
MODEL_LOAD_MS = 180_000
EXPERTISE = {"en": "Vegetarian cooking. Quick weeknight dinners.", "fr": "Cuisine végétarienne."}


@pytest.fixture
def local_llm() -> Iterator[FakeOpenAI]:
    with FakeOpenAI(models=LOCAL_MODELS) as fake:
        yield fake


@pytest.fixture
async def admin_server(
    empty_server: RunningServer, fake_llm: FakeOpenAI, language: str
) -> RunningServer:
    """The server with Nicolas, administrator, reading ``language``, and an OpenAI provider."""
    await set_up_admin(empty_server.client, {**NICOLAS, "language": language})
    await add_openai_provider(empty_server.client, fake_llm)
    return empty_server


async def new_page(browser: Browser, viewport: ViewportSize) -> Page:
    context = await browser.new_context(locale="en-US", viewport=viewport, reduced_motion="reduce")
    context.set_default_timeout(30_000)
    return await context.new_page()


async def create_first_kin(page: Page, words: dict[str, str], language: str) -> None:
    """Fill the first Kin's dialog (Chef, vegetarian cooking) and create it."""
    dialog = page.get_by_role("dialog")
    await expect(dialog.get_by_text(words["first_kin"])).to_be_visible()
    await dialog.get_by_label(words["name"], exact=True).fill("Chef")
    await dialog.get_by_label(words["role"], exact=True).fill("Family cook")
    await dialog.get_by_label(words["expertise"], exact=True).fill(EXPERTISE[language])
    await dialog.get_by_label(words["model"], exact=True).select_option(index=1)
    await dialog.get_by_role("button", name=words["create"]).click()
    await expect(dialog).to_have_count(0)


@pytest.mark.parametrize(("language", "viewport"), WIDTHS)
async def test_the_local_path_runs_from_an_empty_data_directory_to_a_first_reply(
    empty_server: RunningServer,
    local_llm: FakeOpenAI,
    browser: Browser,
    language: str,
    viewport: ViewportSize,
) -> None:
    words = WORDS[language]
    page = await new_page(browser, viewport)
    await page.goto(empty_server.url + "/")
    await expect(page).to_have_url(re.compile(r"/onboarding$"))

    # Screen 1: the administrator (an account on this KinBot, not with any provider).
    await page.get_by_label("First name").fill("Nicolas")
    await page.get_by_label("Last name").fill("Durand")
    await page.get_by_label("Email").fill(NICOLAS["email"])
    await page.get_by_label("Pseudonym").fill("Nico")
    await page.get_by_label("Language").select_option(language)
    await page.locator("#password").fill(PASSWORD)
    await page.locator("#password_confirmation").fill(PASSWORD)
    await page.get_by_role("button", name=words["continue"]).click()

    # Screen 2 starts at its top, its title focused: the keyboard goes on from there.
    await expect(page.locator(":focus")).to_have_text(words["providers_title"])
    await page.wait_for_function("window.scrollY === 0")

    # The local path in one step: the server's address, one button.
    local = page.locator("[data-local-setup]")
    address = local.get_by_role("textbox")
    await expect(address).to_have_value("http://127.0.0.1:11434/v1")  # Ollama's, suggested
    await expect(local).to_contain_text(words["address_hint"])
    await assert_fits(page, "onboarding, providers")
    await address.fill(f"{local_llm.base_url}/v1")
    await local.get_by_role("button", name=words["use_local"]).click()
    models = page.locator(f'[data-provider="{words["local_models"]}"]')
    memory = page.locator(f'[data-provider="{words["local_memory"]}"]')
    # The first local embedding loads the model (torch and all): slow on a busy machine.
    await expect(memory.get_by_text(words["memory_search"], exact=True)).to_be_visible(
        timeout=MODEL_LOAD_MS
    )
    await expect(models.get_by_text(words["chat_model"], exact=True)).to_be_visible()
    await expect(page.get_by_text(words["ready"])).to_be_visible()
    await expect(local.get_by_role("status")).to_have_text(words["local_done"])
    await page.get_by_role("button", name=words["continue"]).click()

    # Screen 3 skipped; the first Kin; its chat greets, the composer has the focus.
    await page.get_by_role("button", name=words["skip"]).click()
    await create_first_kin(page, words, language)
    await expect(page.locator("#composer")).to_be_focused()
    starters = page.locator("[data-starter-prompts]")
    await expect(starters.get_by_role("heading", name=words["greeting"])).to_be_visible()
    await expect(starters.get_by_role("button")).to_have_count(3)
    local_llm.enqueue(Reply(text="Une soupe de poireaux ?"))
    await starters.get_by_role("button", name=words["prompt"]).click()
    await expect(e2e.bubble(page, "me", words["prompt"])).to_be_visible()
    await expect(e2e.bubble(page, "assistant", "Une soupe de poireaux ?")).to_be_visible()
    await expect(starters).to_have_count(0)

    # No account anywhere: no key was asked for or stored; the chat ran on the local server.
    providers = await empty_server.platform.providers.configured("ai")
    assert sorted(p.type for p in providers) == ["local-embeddings", "openai-compatible"]
    assert all(p.secrets == {} for p in providers)
    chat = local_llm.requests_to("chat")[-1]
    assert chat.body["model"] in LOCAL_MODELS
    sent = str(chat.body["messages"][-1]["content"]).replace("\u00a0", " ")  # French spacing
    assert words["prompt"] in sent
    await page.context.close()


async def open_providers_screen(
    server: RunningServer, browser: Browser, language: str, viewport: ViewportSize
) -> Page:
    """Onboarding's providers screen, the administrator (in ``language``) signed in."""
    await set_up_admin(server.client, {**NICOLAS, "language": language})
    return await open_signed_in(browser, server, "/onboarding", viewport=viewport)


@pytest.mark.parametrize(("language", "viewport"), WIDTHS)
async def test_the_type_list_opens_on_the_providers_most_people_have(
    empty_server: RunningServer, browser: Browser, language: str, viewport: ViewportSize
) -> None:
    page = await open_providers_screen(empty_server, browser, language, viewport)
    kind = page.locator("#ai-type")
    await expect(kind).to_have_value("openai")  # never an embedder such as Voyage AI
    values = await kind.locator("option").evaluate_all("(options) => options.map((o) => o.value)")
    assert values[:6] == [
        "openai", "anthropic", "gemini", "openai-compatible", "voyage", "local-embeddings",
    ]  # fmt: skip
    labels = await kind.locator("option").all_inner_texts()
    assert not any("all-MiniLM" in label for label in labels), labels
    await assert_fits(page, "onboarding, providers")
    await page.context.close()


@pytest.mark.parametrize(("language", "viewport"), WIDTHS)
async def test_a_server_added_without_a_name_gets_a_valid_default_name(
    empty_server: RunningServer,
    local_llm: FakeOpenAI,
    browser: Browser,
    language: str,
    viewport: ViewportSize,
) -> None:
    words = WORDS[language]
    page = await open_providers_screen(empty_server, browser, language, viewport)
    kind = page.locator("#ai-type")
    await kind.select_option("openai-compatible")
    await page.locator("#ai-base_url").fill(f"{local_llm.base_url}/v1")
    await expect(page.locator("#ai-name")).to_have_value("")
    await page.get_by_role("button", name=words["add"], exact=True).click()
    added = page.locator(f'[data-provider="{words["local_models"]}"]')
    await expect(added).to_be_visible()
    await expect(page.get_by_role("alert")).to_have_count(0)

    # A second one without a name gets a free name, not a refusal.
    await kind.select_option("openai-compatible")
    await expect(page.locator("#ai-name")).to_have_attribute(
        "placeholder", f"{words['local_models']} 2"
    )
    await page.locator("#ai-base_url").fill(f"{local_llm.base_url}/v1")
    await page.get_by_role("button", name=words["add"], exact=True).click()
    await expect(page.locator(f'[data-provider="{words["local_models"]} 2"]')).to_be_visible()
    views = await empty_server.platform.providers.configured("ai")
    assert [view.name for view in views] == [words["local_models"], f"{words['local_models']} 2"]
    await page.context.close()


@pytest.mark.parametrize(("language", "viewport"), WIDTHS)
async def test_an_address_without_v1_is_explained_once_on_test_and_on_add(
    empty_server: RunningServer,
    local_llm: FakeOpenAI,
    browser: Browser,
    language: str,
    viewport: ViewportSize,
) -> None:
    words = WORDS[language]
    nothing_answers = re.compile("Nothing answers at this address|Rien ne répond à cette adresse")
    page = await open_providers_screen(empty_server, browser, language, viewport)
    await page.locator("#ai-type").select_option("openai-compatible")
    await page.locator("#ai-base_url").fill(local_llm.base_url)  # its API is under /v1
    await page.get_by_role(
        "button", name=re.compile("^(Test connection|Tester la connexion)$")
    ).click()
    await expect(page.get_by_text(nothing_answers)).to_have_count(1)
    await expect(page.get_by_text(f"{local_llm.base_url}/v1", exact=False)).to_have_count(1)
    # Adding tests again and is refused for the same reason: said once, not twice.
    await page.get_by_role("button", name=words["add"], exact=True).click()
    await expect(page.get_by_role("alert").filter(has_text=nothing_answers)).to_have_count(1)
    await expect(page.get_by_text(nothing_answers)).to_have_count(1)
    assert await empty_server.platform.providers.configured("ai") == []
    await page.context.close()


@pytest.mark.parametrize(("language", "viewport"), WIDTHS)
async def test_a_required_server_address_is_suggested_and_its_hint_follows_the_rule(
    empty_server: RunningServer, browser: Browser, language: str, viewport: ViewportSize
) -> None:
    words = WORDS[language]
    page = await open_providers_screen(empty_server, browser, language, viewport)
    await page.locator("#ai-type").select_option("openai-compatible")
    base_url = page.locator("#ai-base_url")
    await expect(base_url).to_have_value("http://127.0.0.1:11434/v1")
    field = base_url.locator("xpath=..")
    await expect(field).not_to_contain_text(
        re.compile("Leave empty|Laissez vide|optional|facultatif", re.I)
    )
    await expect(field).to_contain_text(words["address_hint"])
    # An optional address (OpenAI's) says it may be left empty.
    await page.locator("#ai-type").select_option("openai")
    await expect(page.locator("#ai-base_url")).to_have_value("")
    await expect(page.locator("#ai-base_url").locator("xpath=..")).to_contain_text(
        re.compile("Leave empty|Laissez vide")
    )
    await page.context.close()


@pytest.mark.parametrize(("language", "viewport"), WIDTHS)
async def test_capabilities_are_named_in_plain_words(
    admin_server: RunningServer, browser: Browser, language: str, viewport: ViewportSize
) -> None:
    words = WORDS[language]
    page = await open_signed_in(browser, admin_server, "/settings", viewport=viewport)
    openai = page.locator('[data-provider="OpenAI"]')
    await expect(openai.get_by_text(words["chat_model"], exact=True)).to_be_visible()
    await expect(openai.get_by_text(words["memory_search"], exact=True)).to_be_visible()
    await expect(openai).not_to_contain_text(re.compile(r"\bllm\b|\bembedding\b"))
    await page.context.close()


@pytest.mark.parametrize(
    ("language", "viewport"),
    [pytest.param("fr", PHONE, id="fr-phone"), pytest.param("en", PHONE, id="en-phone")],
)
async def test_a_closed_first_kin_dialog_on_a_phone_leaves_a_way_to_create_one(
    admin_server: RunningServer, browser: Browser, language: str, viewport: ViewportSize
) -> None:
    words = WORDS[language]
    assert (await admin_server.client.post("/api/onboarding/search-providers/skip")).is_success
    page = await open_signed_in(browser, admin_server, "/", viewport=viewport)
    dialog = page.get_by_role("dialog")
    await expect(dialog.get_by_text(words["first_kin"])).to_be_visible()
    await page.keyboard.press("Escape")
    await expect(dialog).to_have_count(0)

    create = page.get_by_role("main").get_by_role("button", name=words["create_a_kin"])
    await expect(create).to_be_visible()
    await assert_fits(page, "no Kin yet")
    await create.click()
    await create_first_kin(page, {**words, "first_kin": words["name"]}, language)
    await expect(page.get_by_role("heading", level=1)).to_have_text("Chef")
    await expect(page.locator("#composer")).to_be_focused()
    await page.context.close()


@pytest.mark.parametrize(("language", "viewport"), WIDTHS)
async def test_machine_details_of_the_settings_pages_wait_behind_advanced(
    admin_server: RunningServer, browser: Browser, language: str, viewport: ViewportSize
) -> None:
    words = WORDS[language]
    kin = await e2e.make_kin(admin_server)
    page = await open_signed_in(browser, admin_server, "/settings", viewport=viewport)

    # A plugin by its name for people; its package name and hooks hidden until its
    # "Advanced" disclosure is opened from the keyboard.
    await page.get_by_role("tab", name=words["plugins"]).click()
    metrics = page.locator('[data-plugin="metrics"]')
    hooks = metrics.get_by_text(re.compile(r"^Hooks"))
    package = metrics.get_by_text(words["metrics_name"])
    await expect(metrics.get_by_text(words["metrics"])).to_be_visible()
    await expect(hooks).to_be_hidden()
    await expect(package).to_be_hidden()
    disclosure = metrics.get_by_text(words["advanced"], exact=True)
    await disclosure.focus()
    await page.keyboard.press("Enter")
    await expect(hooks).to_be_visible()
    await expect(package).to_be_visible()
    memory = page.locator('[data-plugin="sqlite_memory"]')  # what cannot be turned off, and why
    await expect(memory).to_contain_text(words["only_memory"])
    await expect(memory.get_by_role("switch")).to_be_disabled()
    await assert_fits(page, "settings, plugins")

    # A Kin's summary: the token counts and the threshold, likewise.
    await page.goto(f"{admin_server.url}/kins/{kin['id']}/settings")
    await page.get_by_role("tab", name=words["summary"]).click()
    panel = page.get_by_role("tabpanel")
    tokens = panel.get_by_text(re.compile("tokens|jetons"))
    await expect(panel.get_by_text(words["advanced"], exact=True)).to_be_visible()
    await expect(tokens).to_be_hidden()
    await panel.get_by_text(words["advanced"], exact=True).focus()
    await page.keyboard.press(" ")
    await expect(tokens).to_be_visible()
    await page.context.close()


async def test_the_provider_types_come_most_common_first_with_valid_default_names(
    empty_server: RunningServer,
) -> None:
    await set_up_admin(empty_server.client, NICO_EN)
    types = (await empty_server.client.get("/api/providers/types")).json()["types"]
    assert [t["name"] for t in types][:6] == [
        "openai", "anthropic", "gemini", "openai-compatible", "voyage", "local-embeddings",
    ]  # fmt: skip
    by_name: dict[str, Any] = {t["name"]: t for t in types}
    assert by_name["openai-compatible"]["default_name"] == "Local models"
    base_url = next(
        f for f in by_name["openai-compatible"]["config_fields"] if f["name"] == "base_url"
    )
    assert base_url["required"] and "Leave empty" not in base_url["help"]
    search = (await empty_server.client.get("/api/search-providers/types")).json()["types"]
    assert [t["name"] for t in search] == ["brave", "searxng"]
