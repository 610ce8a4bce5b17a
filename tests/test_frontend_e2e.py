"""The web interface in Debian's Chromium, against the real server and a fake OpenAI server."""

from __future__ import annotations

import asyncio
import re
import threading
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.async_api import Browser, Page, expect

from kinbot_core.config import load_settings
from kinbot_core.platform import Platform
from tests.support.accounts import MARIE, NICOLAS, PASSWORD, register, set_up_admin
from tests.support.browser import NEEDS_BROWSER, launched, open_page, toast
from tests.support.fakes import FakeOpenAI, RecordedRequest, Reply
from tests.support.gate_tool import gated_server
from tests.support.provider_setups import API_KEY, add_openai_provider
from tests.support.server import RunningServer, running_server

pytestmark = NEEDS_BROWSER


@pytest.fixture
def fake_llm() -> Iterator[FakeOpenAI]:
    with FakeOpenAI() as fake:
        yield fake


@pytest.fixture
async def server(data_dir: Path, fake_llm: FakeOpenAI) -> AsyncIterator[RunningServer]:
    settings = load_settings(data_dir=data_dir, llm_max_retries=0, llm_timeout_seconds=30)
    async with running_server(Platform(settings)) as server:
        await set_up_admin(server.client)  # Nicolas, who reads French
        await add_openai_provider(server.client, fake_llm)
        skipped = await server.client.post("/api/onboarding/search-providers/skip")
        assert skipped.status_code == 204
        yield server


@pytest.fixture
async def browser() -> AsyncIterator[Browser]:
    async with launched() as browser:
        yield browser


@pytest.fixture
async def page(browser: Browser) -> AsyncIterator[Page]:
    async with open_page(browser) as page:
        yield page


async def make_kin(server: RunningServer) -> dict[str, Any]:
    response = await server.client.post(
        "/api/kins",
        json={"name": "Chef", "role": "Family cook", "character": "Warm and brief.",
              "expertise": "Vegetarian cooking.", "model": "gpt-4o"},
    )  # fmt: skip
    assert response.status_code == 201, response.text
    kin: dict[str, Any] = response.json()["kin"]
    return kin


def bubble(page: Page, origin: str, text: str) -> Any:
    return page.locator(f'[data-origin="{origin}"]', has_text=text)


@pytest.fixture
async def empty_server(data_dir: Path) -> AsyncIterator[RunningServer]:
    settings = load_settings(data_dir=data_dir, llm_max_retries=0, llm_timeout_seconds=30)
    async with running_server(Platform(settings)) as server:
        yield server


async def test_onboarding_from_an_empty_data_directory_to_a_first_reply(
    empty_server: RunningServer, fake_llm: FakeOpenAI, page: Page
) -> None:
    await page.goto(empty_server.url + "/")
    await expect(page).to_have_url(re.compile(r"/onboarding$"))

    # Screen 1: identity. Choosing French switches the interface at once.
    await page.get_by_label("First name").fill("Nicolas")
    await page.get_by_label("Last name").fill("Durand")
    await page.get_by_label("Email").fill(NICOLAS["email"])
    await page.get_by_label("Pseudonym").fill("Nico")
    await page.get_by_label("Language").select_option("fr")
    await page.get_by_label("Mot de passe", exact=True).fill(PASSWORD)
    await page.get_by_label("Confirmer le mot de passe").fill(PASSWORD + "!")
    await page.get_by_role("button", name="Continuer").click()
    await expect(page.get_by_text("Les deux mots de passe diffèrent.")).to_be_visible()
    await page.get_by_label("Confirmer le mot de passe").fill(PASSWORD)
    await page.get_by_role("button", name="Continuer").click()

    # Screen 2: providers. Continue only once a chat model and memory search are covered.
    await expect(page.get_by_text("Connectez vos fournisseurs d'IA")).to_be_visible()
    cont = page.get_by_role("button", name="Continuer")
    await expect(cont).to_be_disabled()
    await page.locator("#ai-type").select_option("openai")
    await page.locator("#ai-api_key").fill(API_KEY)
    await page.locator("#ai-base_url").fill(f"{fake_llm.base_url}/v1")
    await page.get_by_role("button", name="Tester la connexion").click()
    await expect(page.get_by_role("status").filter(has_text="Connecté à OpenAI")).to_be_visible()
    await page.get_by_role("button", name="Ajouter", exact=True).click()
    openai = page.locator('[data-provider="OpenAI"]')
    await expect(openai.get_by_text("recherche dans la mémoire", exact=True)).to_be_visible()
    await expect(page.get_by_text("Un modèle de conversation et la recherche")).to_be_visible()
    # The offer of local models goes: it would say they were set up.
    await expect(page.locator("[data-local-setup]")).to_have_count(0)
    await cont.click()

    # Screen 3: search providers, skipped; then the first Kin's dialog opens by itself.
    await page.get_by_role("button", name="Passer").click()
    dialog = page.get_by_role("dialog")
    await expect(dialog.get_by_text("Créez votre premier Kin")).to_be_visible()
    await dialog.get_by_label("Nom").fill("Chef")
    await dialog.get_by_label("Rôle").fill("Cuisinier de la famille")
    await dialog.get_by_label("Modèle").select_option(index=1)
    await dialog.get_by_role("button", name="Créer le Kin").click()
    await expect(page).to_have_url(re.compile(r"/kins/[^/]+$"))
    await expect(page.get_by_role("heading", name="Chef", exact=True)).to_be_visible()

    fake_llm.enqueue(Reply(text="Bonjour Nico ! Que cuisinons-nous ?"))
    composer = page.get_by_placeholder("Écrire à Chef…")
    await composer.fill("Bonjour Chef")
    await composer.press("Enter")
    await expect(bubble(page, "assistant", "Bonjour Nico ! Que cuisinons-nous ?")).to_be_visible()
    status = (await empty_server.client.get("/api/onboarding")).json()
    assert status == {
        "step": "done",
        "completed": ["identity", "providers", "search_providers", "first_kin"],
        "setup_code_required": False,
        "signed_in": False,  # the test's own client, not the browser
    }


async def test_sign_in_talk_to_a_kin_and_see_everyone_in_the_chat(
    server: RunningServer, fake_llm: FakeOpenAI, page: Page
) -> None:
    kin = await make_kin(server)
    console_errors: list[str] = []
    page.on("console", lambda m: console_errors.append(m.text) if m.type == "error" else None)
    await page.goto(server.url + "/")
    await expect(page).to_have_url(re.compile(r"/signin$"))
    await expect(page.get_by_role("button", name="Sign in")).to_be_visible()
    assert console_errors == []  # a signed-out visit is not an error (no 401 from /api/me)
    await page.get_by_label("Email").fill(NICOLAS["email"])
    await page.get_by_label("Password").fill(PASSWORD)
    await page.get_by_role("button", name="Sign in").click()

    # Signed in: the interface speaks Nicolas's language and opens the only Kin.
    await expect(page).to_have_url(re.compile(f"/kins/{kin['id']}$"))
    sidebar = page.get_by_role("navigation", name="KinBot")
    await expect(sidebar.get_by_text("Family cook")).to_be_visible()
    composer = page.get_by_placeholder("Écrire à Chef…")

    # A long reply: it begins, then waits until the test stops it; nothing of it is stored.
    fake_llm.enqueue(
        Reply(
            text="Un très long récit. " * 20, chunk_size=4, chunk_delay=0.05,
            held=threading.Event(), held_after=10,
        )
    )  # fmt: skip
    await composer.fill("Raconte-moi tout.")
    await composer.press("Enter")
    await expect(bubble(page, "me", "Raconte-moi tout.")).to_be_visible()
    await expect(bubble(page, "assistant", "Un très long récit.")).to_be_visible()
    stored = (await server.client.get(f"/api/kins/{kin['id']}/messages")).json()["messages"]
    assert [m["role"] for m in stored] == ["user"]  # the text on screen came from the stream

    # While the turn runs, a new message waits in the queue, and says so.
    await composer.fill("Et un dessert ?")
    await composer.press("Enter")
    await expect(bubble(page, "me", "Et un dessert ?").get_by_text("En attente")).to_be_visible()

    # Another person's message shows with their name.
    async with server.new_client() as marie:
        await register(server.client, marie, MARIE)
        sent = await marie.post(
            f"/api/kins/{kin['id']}/messages", json={"content": "Sans cacahuètes !"}
        )
        assert sent.status_code == 202, sent.text
    marie_bubble = bubble(page, "user", "Sans cacahuètes !")
    await expect(marie_bubble).to_be_visible()
    await expect(marie_bubble.get_by_text("Marie", exact=True)).to_be_visible()

    # Stop the running turn from the composer; the queued messages then get their replies.
    await page.get_by_role("button", name="Arrêter").click()
    await expect(bubble(page, "assistant", "Hello from the fake")).to_have_count(2)
    await expect(page.get_by_text("En attente")).to_have_count(0)

    # Dark mode, kept across a reload; the history reloads from the API.
    html = page.locator("html")
    await expect(html).not_to_have_class(re.compile(r"\bdark\b"))
    await page.get_by_role("button", name="Basculer le mode sombre").first.click()
    await expect(html).to_have_class(re.compile(r"\bdark\b"))
    await page.reload()
    await expect(html).to_have_class(re.compile(r"\bdark\b"))
    await expect(bubble(page, "user", "Sans cacahuètes !")).to_be_visible()


async def test_the_design_page_shows_every_component_in_light_and_dark(
    server: RunningServer, page: Page
) -> None:
    await page.goto(server.url + "/design")
    for theme in ("light", "dark"):
        panel = page.locator(f'[data-theme-panel="{theme}"]')
        await expect(panel.get_by_role("button", name="Create Kin")).to_be_visible()
        for origin in ("me", "user", "assistant", "kin", "task", "cron", "error", "system"):
            await expect(panel.locator(f'[data-origin="{origin}"]').first).to_be_visible()
    await page.get_by_role("button", name="Open a dialog").first.click()
    dialog = page.get_by_role("dialog")
    await expect(dialog).to_be_visible()
    await page.keyboard.press("Escape")
    await expect(dialog).to_have_count(0)
    await page.get_by_role("button", name="Show a toast").first.click()
    await expect(toast(page, "Your changes are kept.")).to_be_visible()


async def sign_in(page: Page, server: RunningServer) -> None:
    """Sign Nicolas in, with a Kin already there (else the first Kin's dialog opens)."""
    await make_kin(server)
    await page.goto(server.url + "/signin")
    await page.get_by_label("Email").fill(NICOLAS["email"])
    await page.get_by_label("Password").fill(PASSWORD)
    await page.get_by_role("button", name="Sign in").click()
    await expect(page.get_by_role("navigation", name="KinBot")).to_be_visible()


async def test_settings_keep_secrets_masked_and_disable_plugins(
    server: RunningServer, page: Page
) -> None:
    await sign_in(page, server)
    await page.get_by_role("button", name="Nico").click()
    await page.get_by_role("menuitem", name="Réglages").click()
    await expect(page.get_by_role("heading", name="Réglages")).to_be_visible()

    # The vault: a secret added is listed by its key, its value masked and gone from the page.
    await page.get_by_role("tab", name="Coffre-fort").click()
    value = "ghp_0123456789abcdefSECRET"
    await page.get_by_label("Clé", exact=True).fill("GITHUB_TOKEN")
    await page.get_by_label("Valeur").fill(value)
    await page.get_by_role("button", name="Ajouter", exact=True).click()
    secret = page.locator('[data-secret="GITHUB_TOKEN"]')
    await expect(secret).to_contain_text("********")
    await expect(page.get_by_label("Valeur")).to_have_value("")
    assert value not in await page.content()
    stored = (await server.client.get("/api/vault")).json()["secrets"]
    assert [s["key"] for s in stored] == ["GITHUB_TOKEN"]

    # Plugins: switching one off takes effect at once (its routes answer 404).
    assert (await server.client.get("/api/ext/metrics/prometheus")).status_code == 200
    await page.get_by_role("tab", name="Plugins").click()
    switch = page.get_by_role("switch", name="Activer Compteurs de supervision")
    await expect(switch).to_be_checked()
    await switch.click()
    await expect(switch).not_to_be_checked()
    await expect(page.locator('[data-plugin="metrics"]')).to_contain_text("Désactivé")
    assert (await server.client.get("/api/ext/metrics/prometheus")).status_code == 404


async def test_my_account_switches_the_language(server: RunningServer, page: Page) -> None:
    await sign_in(page, server)
    await page.get_by_role("button", name="Nico").click()
    await page.get_by_role("menuitem", name="Mon compte").click()
    await expect(page.get_by_role("heading", name="Mon compte")).to_be_visible()
    # Chosen is kept: the page speaks it at once, and a reload without Save keeps it.
    await page.get_by_label("Langue").select_option("en")
    await expect(toast(page, "Language saved")).to_be_visible()
    me = (await server.client.get("/api/me")).json()["user"]
    assert me["language"] == "en"
    await page.reload()
    await expect(page.get_by_role("heading", name="My account")).to_be_visible()


async def test_a_file_goes_along_with_a_message(
    server: RunningServer, fake_llm: FakeOpenAI, page: Page, tmp_path: Path
) -> None:
    await sign_in(page, server)
    recipe = tmp_path / "recipe.txt"
    recipe.write_text("Coconut chickpea curry: onion, garlic, curry paste, chickpeas.")
    await page.get_by_test_id("composer-files").set_input_files(str(recipe))
    await expect(page.get_by_role("list", name="Joindre un fichier")).to_contain_text("recipe.txt")
    fake_llm.enqueue(Reply(text="Lovely recipe!"))
    await page.get_by_placeholder("Écrire à Chef…").fill("Voici la recette")
    await page.get_by_role("button", name="Envoyer").click()
    sent = bubble(page, "me", "Voici la recette")
    await expect(sent.get_by_role("link", name="recipe.txt")).to_be_visible()
    await expect(bubble(page, "assistant", "Lovely recipe!")).to_be_visible()
    await expect(page.get_by_role("list", name="Joindre un fichier")).to_have_count(0)
    kin_id = page.url.rsplit("/", 1)[-1]
    history = (await server.client.get(f"/api/kins/{kin_id}/messages")).json()["messages"]
    assert history[0]["attachments"][0]["filename"] == "recipe.txt"
    prompt = fake_llm.requests_to("chat")[-1].body["messages"]
    assert "Coconut chickpea curry" in str(prompt[-1]["content"])


async def test_a_file_dropped_on_the_chat_goes_along_with_the_next_message(
    server: RunningServer, fake_llm: FakeOpenAI, page: Page
) -> None:
    await sign_in(page, server)
    chat = page.get_by_role("main", name="Chef")
    dragged = await page.evaluate_handle(
        """() => {
            const data = new DataTransfer();
            const list = new File(["Shopping: leeks, cream."], "list.txt", { type: "text/plain" });
            data.items.add(list);
            return data;
        }"""
    )
    overlay = page.get_by_test_id("drop-overlay")
    await chat.dispatch_event("dragover", {"dataTransfer": dragged})
    await expect(overlay).to_have_class(re.compile(r"\bopacity-100\b"))
    await chat.dispatch_event("drop", {"dataTransfer": dragged})
    await expect(overlay).to_have_class(re.compile(r"\bopacity-0\b"))
    attached = page.get_by_role("list", name="Joindre un fichier")
    await expect(attached).to_contain_text("list.txt")
    fake_llm.enqueue(Reply(text="Noted."))
    await page.get_by_placeholder("Écrire à Chef…").fill("La liste")
    await page.get_by_role("button", name="Envoyer").click()
    sent = bubble(page, "me", "La liste")
    await expect(sent.get_by_role("link", name="list.txt")).to_be_visible()
    await expect(bubble(page, "assistant", "Noted.")).to_be_visible()  # the model was asked
    await expect(attached).to_have_count(0)
    prompt = fake_llm.requests_to("chat")[-1].body["messages"]
    assert "leeks, cream" in str(prompt[-1]["content"])


async def test_a_running_task_is_listed_opened_and_cancelled(
    server: RunningServer, fake_llm: FakeOpenAI, page: Page
) -> None:
    await sign_in(page, server)
    long = Reply(
        text="Je cherche encore. " * 20, chunk_size=4, chunk_delay=0.02,
        held=threading.Event(), held_after=10,
    )  # fmt: skip
    # The parent's follow-up and the sub-Kin's work both begin, then wait until stopped: the
    # task stays running.
    fake_llm.enqueue(
        Reply(
            tool_calls=[
                ("spawn_self", {"task_description": "Find three soup recipes", "mode": "async"})
            ]
        ),
        long,
        long,
    )
    composer = page.get_by_placeholder("Écrire à Chef…")
    await composer.fill("Trouve des soupes")
    await composer.press("Enter")
    sidebar = page.get_by_role("navigation", name="KinBot")
    running = sidebar.get_by_role("list", name="Tâches", exact=True)
    task_button = running.get_by_role("button", name=re.compile("Find three soup recipes"))
    await expect(task_button).to_contain_text("en cours")
    await task_button.click()
    await expect(page).to_have_url(re.compile(r"/tasks/[^/]+$"))
    panel = page.get_by_role("main", name="Find three soup recipes")
    await expect(panel.get_by_text("Find three soup recipes", exact=True).first).to_be_visible()
    await expect(panel.get_by_text("Je cherche encore.").first).to_be_visible()
    await panel.get_by_role("button", name="Annuler la tâche").click()
    await expect(panel.get_by_text("annulée", exact=True)).to_be_visible()
    # The button went with the running state: the keyboard is on the task's title, not lost.
    await expect(panel.get_by_role("heading", name="Find three soup recipes")).to_be_focused()
    await expect(task_button).to_have_count(0)
    recent = sidebar.get_by_role("list", name="Tâches récentes")
    await expect(recent.get_by_role("button", name=re.compile("Find three soup"))).to_be_visible()
    kin_id = (await server.client.get("/api/kins")).json()["kins"][0]["id"]
    await server.client.post(f"/api/kins/{kin_id}/stop")


def family_script(request: RecordedRequest) -> Reply | None:
    """The Kin spawns an awaited task whose sub-Kin asks a question; nobody answers it yet."""
    if request.endpoint != "chat":
        return None
    messages = request.body["messages"]
    last = messages[-1]
    text = last.get("content") if isinstance(last.get("content"), str) else ""
    if "ephemeral sub-Kin" in messages[0]["content"]:
        if last["role"] == "user":
            return Reply(tool_calls=[("request_input", {"question": "Leek or pumpkin soup?"})])
        return Reply(text="Waiting for the answer.")
    if last["role"] == "tool" or "asks you" in text:
        return Reply(text="Je transmets la question.")
    task = {"task_description": "Find a soup for tonight", "mode": "await"}
    return Reply(tool_calls=[("spawn_self", task)])


async def test_a_tasks_question_shows_in_the_chat_and_on_the_task_page(
    server: RunningServer, fake_llm: FakeOpenAI, page: Page
) -> None:
    fake_llm.responder = family_script
    await sign_in(page, server)
    composer = page.get_by_placeholder("Écrire à Chef…")
    await composer.fill("Une soupe ce soir ?")
    await composer.press("Enter")

    # The question reaches the Kin's chat as the task's message, with how to answer it.
    question = bubble(page, "task", "Leek or pumpkin soup?")
    await expect(question).to_be_visible()
    hint = question.locator("[data-task-question]")
    await expect(hint).to_contain_text("Find a soup for tonight pose une question")
    await expect(hint).to_contain_text("Chef transmet votre réponse à la tâche")
    await hint.get_by_role("link", name="Ouvrir la tâche").click()

    # The task page: its state, whom it reports to, the question waiting, its session.
    await expect(page).to_have_url(re.compile(r"/tasks/task_[^/]+$"))
    panel = page.get_by_role("main", name="Find a soup for tonight")
    waiting = panel.get_by_role("status", name="Une question attend une réponse")
    await expect(waiting).to_contain_text("Leek or pumpkin soup?")
    await expect(panel.get_by_text("en cours", exact=True)).to_be_visible()
    await expect(panel.get_by_text("attendue", exact=True)).to_be_visible()
    await expect(panel.get_by_text("La session de la tâche")).to_be_visible()
    await expect(panel.get_by_text("Waiting for the answer.")).to_be_visible()
    task_id = page.url.rsplit("/", 1)[-1]
    task = (await server.client.get(f"/api/tasks/{task_id}")).json()["task"]
    assert task["awaiting_input"] is True and task["status"] == "in_progress"

    # Once cancelled, the task moves to the recent ones and its page stays reachable.
    await panel.get_by_role("button", name="Annuler la tâche").click()
    await expect(panel.get_by_text("annulée", exact=True)).to_be_visible()
    await expect(waiting).to_have_count(0)
    recent = page.get_by_role("list", name="Tâches récentes")
    finished = recent.get_by_role("button", name=re.compile("Find a soup for tonight"))
    await expect(finished).to_contain_text("annulée")
    await panel.get_by_role("link", name="Rend compte à Chef").click()
    await expect(page).to_have_url(re.compile(r"/kins/[^/]+$"))
    await finished.click()
    await expect(page).to_have_url(re.compile(f"/tasks/{task_id}$"))
    await expect(page.get_by_role("main", name="Find a soup for tonight")).to_be_visible()


async def test_a_kins_settings_edit_it_and_forget_a_memory(
    server: RunningServer, page: Page
) -> None:
    await sign_in(page, server)
    kin_id = (await server.client.get("/api/kins")).json()["kins"][0]["id"]
    memory = server.platform.memory
    await memory.memorize(kin_id, "Marie is allergic to peanuts", "fact", "Marie")
    await memory.memorize(kin_id, "Léo does not like spicy food", "preference", "Léo")
    await page.get_by_role("link", name="Réglages du Kin").click()
    await expect(page.get_by_role("heading", name="Réglages de Chef")).to_be_visible()

    await page.get_by_label("Rôle").fill("Chef de la maison")
    await page.get_by_role("button", name="Enregistrer", exact=True).click()
    await expect(toast(page, "Enregistré")).to_be_visible()
    kin = (await server.client.get(f"/api/kins/{kin_id}")).json()["kin"]
    assert kin["role"] == "Chef de la maison"

    await page.get_by_role("tab", name="Souvenirs").click()
    peanuts = page.locator("[data-memory]", has_text="Marie is allergic to peanuts")
    await expect(peanuts).to_be_visible()
    await page.get_by_label("Chercher dans les souvenirs").fill("spicy")
    await page.get_by_label("Chercher dans les souvenirs").press("Enter")
    await expect(page.locator("[data-memory]").first).to_contain_text("spicy")
    await page.get_by_label("Chercher dans les souvenirs").fill("zzqqxx")
    await page.get_by_label("Chercher dans les souvenirs").press("Enter")
    await expect(
        page.get_by_text("Aucun souvenir ne correspond à «\u00a0zzqqxx\u00a0».")
    ).to_be_visible()
    await expect(page.locator("[data-memory]")).to_have_count(0)
    await page.get_by_label("Chercher dans les souvenirs").fill("")
    await page.get_by_label("Chercher dans les souvenirs").press("Enter")
    # Deleting asks first (archiving is the gentler choice), and Cancel keeps the memory.
    await peanuts.get_by_role("button", name="Supprimer ce souvenir").click()
    confirm = page.get_by_role("dialog", name="Supprimer ce souvenir\u00a0?")
    await expect(confirm).to_contain_text("«\u00a0Marie is allergic to peanuts\u00a0»")
    await confirm.get_by_role("button", name="Annuler").click()
    await expect(confirm).to_have_count(0)
    await expect(peanuts).to_be_visible()
    await peanuts.get_by_role("button", name="Supprimer ce souvenir").click()
    await confirm.get_by_role("button", name="Supprimer", exact=True).click()
    await expect(peanuts).to_have_count(0)
    left = (await server.client.get(f"/api/kins/{kin_id}/memories")).json()["memories"]
    assert [m["content"] for m in left] == ["Léo does not like spicy food"]

    await page.get_by_role("tab", name="Résumé").click()
    await expect(page.get_by_text("Pas encore de résumé")).to_be_visible()
    # Too short a conversation to summarise: said as a state, not as an error.
    await page.get_by_role("button", name="Résumer maintenant").click()
    await expect(toast(page, "Rien à résumer pour l'instant")).to_be_visible()
    toasts = page.get_by_role("region", name=re.compile(r"^Notifications"))
    await expect(toasts.get_by_text("Une erreur est survenue")).to_have_count(0)
    await page.get_by_role("link", name="Retour au chat").click()
    await expect(page).to_have_url(re.compile(f"/kins/{kin_id}$"))
    sidebar = page.get_by_role("navigation", name="KinBot")
    await expect(sidebar.get_by_text("Chef de la maison")).to_be_visible()


async def test_a_kins_crons_are_created_edited_paused_confirmed_and_deleted(
    server: RunningServer, fake_llm: FakeOpenAI, page: Page
) -> None:
    await sign_in(page, server)
    kin_id = (await server.client.get("/api/kins")).json()["kins"][0]["id"]

    # The Kin proposes a cron: it waits for a person's confirmation.
    proposal = {"name": "Weekly menu", "schedule": "0 18 * * 0",
                "task_description": "Plan next week's dinners."}  # fmt: skip
    fake_llm.enqueue(Reply(tool_calls=[("create_cron", proposal)]), Reply(text="Proposé."))
    composer = page.get_by_placeholder("Écrire à Chef…")
    await composer.fill("Planifie les menus chaque dimanche")
    await composer.press("Enter")
    await expect(bubble(page, "assistant", "Proposé.")).to_be_visible()

    # The chat says the proposal waits for a person, and leads to where it is confirmed.
    waiting = page.locator("[data-cron-proposal]")
    await expect(waiting).to_contain_text("qu'une fois confirmée par quelqu'un")
    await waiting.get_by_role("link", name="les crons de Chef").click()
    await expect(page.get_by_role("tab", name="Crons")).to_have_attribute("aria-selected", "true")
    weekly = page.get_by_role("listitem", name="Weekly menu")
    await expect(weekly.get_by_text("En attente de confirmation")).to_be_visible()
    await expect(weekly.get_by_text("Proposé par Chef")).to_be_visible()
    await weekly.get_by_role("button", name="Confirmer").click()
    await expect(weekly.get_by_text("Actif", exact=True)).to_be_visible()
    await expect(weekly.get_by_role("button", name="Confirmer")).to_have_count(0)
    # The keyboard stays on the cron: its button that took Confirm's place has the focus.
    await expect(weekly.get_by_role("button", name="Mettre en pause")).to_be_focused()
    await page.get_by_role("link", name="Retour au chat").click()
    await expect(bubble(page, "assistant", "Proposé.")).to_be_visible()
    await expect(page.locator("[data-cron-proposal]")).to_have_count(0)  # no longer waits
    await expect(page.locator('[data-cron-outcome="confirmed"]')).to_contain_text(
        "Cron confirmé : Weekly menu."
    )
    await page.get_by_role("link", name="Réglages du Kin").click()
    await page.get_by_role("tab", name="Crons").click()

    # A person's own cron: a bad schedule is refused in the dialog, a good one is active at once.
    await page.get_by_role("button", name="Nouveau cron").click()
    dialog = page.get_by_role("dialog")
    await dialog.get_by_label("Nom").fill("Tea time")
    await dialog.get_by_label("Répétition").select_option("custom")
    await dialog.get_by_label("Expression cron").fill("every day at four")
    await dialog.get_by_label("Ce que fait la tâche").fill("Remind everyone of tea.")
    await dialog.get_by_role("button", name="Enregistrer").click()
    await expect(dialog.get_by_role("alert")).to_be_visible()
    await dialog.get_by_label("Expression cron").fill("0 16 * * *")
    await dialog.get_by_role("button", name="Enregistrer").click()
    await expect(dialog).to_have_count(0)
    tea = page.get_by_role("listitem", name="Tea time")
    await expect(tea.get_by_text("0 16 * * *")).to_be_visible()
    await expect(tea.get_by_text("Actif", exact=True)).to_be_visible()

    # Edited, paused, resumed: the API has each change.
    await tea.get_by_role("button", name="Modifier Tea time").click()
    await expect(dialog.get_by_label("Répétition")).to_have_value("daily")  # read back
    await dialog.get_by_label("Répétition").select_option("weekdays")
    await dialog.get_by_label("À", exact=True).fill("16:30")
    await dialog.get_by_role("button", name="Enregistrer").click()
    await expect(tea.get_by_text("30 16 * * 1-5")).to_be_visible()
    await tea.get_by_role("button", name="Mettre en pause").click()
    await expect(tea.get_by_text("En pause", exact=True)).to_be_visible()
    crons = (await server.client.get(f"/api/crons?kin_id={kin_id}")).json()["crons"]
    by_name = {cron["name"]: cron for cron in crons}
    assert by_name["Tea time"]["schedule"] == "30 16 * * 1-5"
    assert by_name["Tea time"]["state"] == "inactive"
    assert by_name["Weekly menu"]["state"] == "active"
    await tea.get_by_role("button", name="Reprendre").click()
    await expect(tea.get_by_text("Actif", exact=True)).to_be_visible()

    # Deleted after a confirmation.
    await tea.get_by_role("button", name="Supprimer le cron Tea time").click()
    await page.get_by_role("dialog").get_by_role("button", name="Supprimer").click()
    await expect(tea).to_have_count(0)
    # The keyboard goes to the same button of the next cron, not to the top of the page.
    await expect(page.get_by_role("button", name="Supprimer le cron Weekly menu")).to_be_focused()
    crons = (await server.client.get(f"/api/crons?kin_id={kin_id}")).json()["crons"]
    assert [cron["name"] for cron in crons] == ["Weekly menu"]


async def test_a_proposed_cron_is_confirmed_or_declined_in_the_chat(
    server: RunningServer, fake_llm: FakeOpenAI, page: Page
) -> None:
    await sign_in(page, server)
    kin_id = (await server.client.get("/api/kins")).json()["kins"][0]["id"]
    composer = page.get_by_placeholder("Écrire à Chef…")
    for name, answer in (("Weekly menu", "Proposé."), ("Shopping list", "Proposée aussi.")):
        proposal = {"name": name, "schedule": "0 18 * * 0", "task_description": "Plan it."}
        fake_llm.enqueue(Reply(tool_calls=[("create_cron", proposal)]), Reply(text=answer))
        await composer.fill(f"Planifie {name}")
        await composer.press("Enter")
        await expect(bubble(page, "assistant", answer)).to_be_visible()

    menu = page.get_by_role("group", name="Cron proposé : Weekly menu")
    await menu.get_by_role("button", name="Confirmer").click()
    await expect(toast(page, "Cron confirmé : Weekly menu.")).to_be_visible()
    await expect(menu).to_have_count(0)
    # The line says what became of it, and has the keyboard the buttons had.
    confirmed = page.locator('[data-cron-outcome="confirmed"]')
    await expect(confirmed).to_contain_text("Cron confirmé : Weekly menu.")
    await expect(confirmed).to_be_focused()
    shopping = page.get_by_role("group", name="Cron proposé : Shopping list")
    await shopping.get_by_role("button", name="Refuser").click()
    await expect(toast(page, "Proposition refusée : Shopping list.")).to_be_visible()
    await expect(page.locator("[data-cron-proposal]")).to_have_count(0)
    gone = page.locator('[data-cron-outcome="gone"]')
    await expect(gone).to_contain_text("Proposition refusée : Shopping list.")
    await expect(gone).to_be_focused()
    await page.reload()  # read back: a declined proposal is gone, and says so
    await expect(gone).to_contain_text("Non retenue : la proposition a été refusée")
    await expect(confirmed).to_contain_text("Cron confirmé : Weekly menu.")
    crons = (await server.client.get(f"/api/crons?kin_id={kin_id}")).json()["crons"]
    assert [(cron["name"], cron["state"]) for cron in crons] == [("Weekly menu", "active")]


async def test_an_invitation_brings_in_a_person_whom_the_admin_then_manages(
    server: RunningServer, browser: Browser, page: Page
) -> None:
    await sign_in(page, server)
    await page.goto(server.url + "/settings")
    await page.get_by_role("tab", name="Utilisateurs").click()
    await page.get_by_label("Note").fill("Pour Marie")
    await page.get_by_role("button", name="Créer une invitation").click()
    shown = page.get_by_role("status", name="Lien d'invitation")
    link = (await shown.locator("code").inner_text()).strip()
    code = link.rsplit("/", 1)[-1]
    invitations = page.get_by_role("list", name="Invitations")
    await expect(invitations.get_by_text("Pour Marie")).to_be_visible()
    await expect(invitations.get_by_text("En attente", exact=True)).to_be_visible()
    assert code not in (await server.client.get("/api/invitations")).text  # shown once only

    # Marie follows the link in her own browser and creates her account.
    context = await browser.new_context(locale="en-US")
    marie = await context.new_page()
    await marie.goto(f"{server.url}/invite/{code}")
    await expect(marie.get_by_text("You were invited as a member")).to_be_visible()
    for label, value in (("First name", "Marie"), ("Last name", "Durand"),
                         ("Email", MARIE["email"]), ("Pseudonym", "Marie")):  # fmt: skip
        await marie.get_by_label(label, exact=True).fill(value)
    await marie.get_by_label("Password", exact=True).fill(PASSWORD)
    await marie.get_by_label("Confirm password").fill(PASSWORD)
    await marie.get_by_role("button", name="Create my account").click()
    await expect(marie.get_by_role("navigation", name="KinBot")).to_be_visible()
    # The code is used up: a second visit says so.
    await marie.goto(f"{server.url}/register?code={code}")
    await expect(marie.get_by_role("alert")).to_contain_text("already used")
    await context.close()

    # The administrator sees her, makes her an administrator, disables her, removes her.
    await page.reload()
    await page.get_by_role("tab", name="Utilisateurs").click()
    await expect(invitations.get_by_text("Utilisée", exact=True)).to_be_visible()
    row = page.get_by_role("listitem", name="Marie Durand")
    await row.get_by_label("Rôle de Marie Durand").select_option("admin")
    await expect(row.get_by_label("Rôle de Marie Durand")).to_have_value("admin")
    await row.get_by_role("switch", name="Marie Durand peut se connecter").click()
    await expect(row.get_by_text("Désactivé", exact=True)).to_be_visible()
    users = {u["email"]: u for u in (await server.client.get("/api/users")).json()["users"]}
    assert users[MARIE["email"]]["role"] == "admin"
    assert users[MARIE["email"]]["is_active"] is False
    await row.get_by_role("button", name="Supprimer Marie Durand").click()
    await page.get_by_role("dialog").get_by_role("button", name="Supprimer").click()
    await expect(row).to_have_count(0)
    emails = {u["email"] for u in (await server.client.get("/api/users")).json()["users"]}
    assert MARIE["email"] not in emails


async def test_an_ai_provider_is_renamed_and_removed_in_the_settings(
    server: RunningServer, page: Page
) -> None:
    await sign_in(page, server)
    provider = (await server.client.get("/api/providers")).json()["providers"][0]
    await page.goto(server.url + "/settings")
    row = page.locator(f'[data-provider="{provider["name"]}"]')
    await row.get_by_role("button", name=f"Modifier {provider['name']}").click()
    dialog = page.get_by_role("dialog")
    await expect(dialog.get_by_label("Clé d'API")).to_have_value("")  # a secret is never shown
    await dialog.get_by_label("Nom").fill("Maison")
    await dialog.get_by_role("button", name="Enregistrer").click()
    renamed = page.locator('[data-provider="Maison"]')
    await expect(renamed).to_be_visible()
    found = (await server.client.get(f"/api/providers/{provider['id']}")).json()["provider"]
    assert found["name"] == "Maison"
    await renamed.get_by_role("button", name="Supprimer Maison").click()
    await page.get_by_role("dialog").get_by_role("button", name="Supprimer").click()
    await expect(renamed).to_have_count(0)
    assert (await server.client.get("/api/providers")).json()["providers"] == []


async def test_a_kins_tools_tab_assigns_mcp_servers_and_shows_the_sandbox(
    server: RunningServer, page: Page
) -> None:
    await sign_in(page, server)
    kin_id = (await server.client.get("/api/kins")).json()["kins"][0]["id"]
    created = await server.client.post(
        "/api/mcp-servers",
        json={"name": "pantry", "transport": "stdio", "command": "/nonexistent/pantry-mcp"},
    )
    assert created.status_code == 201, created.text
    server_id = created.json()["server"]["id"]
    async with asyncio.timeout(60):  # its command does not exist: the connection fails
        while True:
            found = (await server.client.get(f"/api/mcp-servers/{server_id}")).json()
            if found["server"]["status"]["state"] == "failed":
                break
            await asyncio.sleep(0.05)
    await page.get_by_role("link", name="Réglages du Kin").click()
    await page.get_by_role("tab", name="Outils").click()
    pantry = page.get_by_role("listitem", name="pantry")
    await expect(pantry.get_by_text("stdio", exact=True)).to_be_visible()
    # Why it failed, in the user's language, without the system's English.
    await expect(
        pantry.get_by_text("La commande « /nonexistent/pantry-mcp » est introuvable", exact=False)
    ).to_be_visible()
    await expect(pantry.get_by_text("Errno", exact=False)).to_have_count(0)
    await expect(pantry.get_by_text("Error:")).to_have_count(0)
    switch = pantry.get_by_role("switch", name="Chef peut utiliser pantry")
    await expect(switch).to_have_attribute("aria-checked", "false")
    await switch.click()
    await expect(switch).to_have_attribute("aria-checked", "true")
    assigned = (await server.client.get(f"/api/kins/{kin_id}/mcp-servers")).json()
    assert assigned["server_ids"] == [server_id]
    tools = (await server.client.get(f"/api/kins/{kin_id}/custom-tools")).json()
    sandbox = page.locator(f'[data-sandbox="{tools["sandbox"]}"]')
    await expect(sandbox).to_be_visible()
    if tools["sandbox"] in ("bubblewrap", "landlock"):  # what it means, not which tool does it
        await expect(sandbox).to_contain_text("Les scripts de Chef tournent isolés")
        await expect(sandbox).not_to_contain_text(re.compile("bubblewrap|landlock", re.I))
    await expect(page.get_by_text("Ce Kin n'a enregistré aucun outil.")).to_be_visible()


async def test_mcp_servers_are_added_edited_with_masked_values_and_removed(
    server: RunningServer, page: Page
) -> None:
    await sign_in(page, server)
    await page.goto(server.url + "/settings")
    await page.get_by_role("tab", name="Serveurs MCP").click()
    await page.get_by_role("button", name="Ajouter un serveur MCP").click()
    dialog = page.get_by_role("dialog")
    await dialog.get_by_label("Nom").fill("pantry")
    await dialog.get_by_label("Commande").fill("/nonexistent/pantry-mcp")
    await dialog.get_by_label("Arguments").fill("--stdio")
    await dialog.get_by_label("Environnement").fill("PANTRY_TOKEN=tok-very-secret-42")
    await dialog.get_by_role("button", name="Enregistrer").click()
    pantry = page.get_by_role("listitem", name="pantry")
    await expect(pantry.get_by_text("/nonexistent/pantry-mcp --stdio")).to_be_visible()
    listed = (await server.client.get("/api/mcp-servers")).json()["servers"][0]
    assert listed["config"]["env"] == {"PANTRY_TOKEN": "********"}

    # Editing shows the value masked, and keeps it while the command changes.
    await pantry.get_by_role("button", name="Modifier pantry").click()
    await expect(dialog.get_by_label("Environnement")).to_have_value("PANTRY_TOKEN=********")
    await expect(page.get_by_text("tok-very-secret-42")).to_have_count(0)
    await dialog.get_by_label("Commande").fill("/nonexistent/pantry-mcp-2")
    await dialog.get_by_role("button", name="Enregistrer").click()
    await expect(pantry.get_by_text("/nonexistent/pantry-mcp-2 --stdio")).to_be_visible()
    found = (await server.client.get(f"/api/mcp-servers/{listed['id']}")).json()["server"]
    assert found["config"]["command"] == "/nonexistent/pantry-mcp-2"
    assert found["config"]["env"] == {"PANTRY_TOKEN": "********"}
    assert "tok-very-secret-42" not in (await page.content())

    await pantry.get_by_role("button", name="Supprimer pantry").click()
    await page.get_by_role("dialog").get_by_role("button", name="Supprimer").click()
    await expect(pantry).to_have_count(0)
    assert (await server.client.get("/api/mcp-servers")).json()["servers"] == []


async def test_a_chat_opened_mid_reply_shows_the_running_tool_and_the_whole_text(
    data_dir: Path, fake_llm: FakeOpenAI, page: Page
) -> None:
    async with gated_server(data_dir, fake_llm) as (server, gate):
        assert (await server.client.post("/api/onboarding/search-providers/skip")).is_success
        kin = await make_kin(server)
        fake_llm.enqueue(Reply(text="Let me check the oven.", tool_calls=[("wait_for_oven", {})]))
        # The reply streams its first six sentences, then is held until the test stops it:
        # the page is reloaded mid-reply however long that takes.
        begun = "Preheated. " + "The oven is hot. " * 6
        reply = begun + "The oven is hot. " * 10
        fake_llm.enqueue(
            Reply(
                text=reply, chunk_size=4, chunk_delay=0.05, held=threading.Event(),
                held_after=1 + len(begun) // 4,  # the role's event, then the text's
            )
        )  # fmt: skip
        sent = await server.client.post(
            f"/api/kins/{kin['id']}/messages", json={"content": "Can we bake?"}
        )
        assert sent.status_code == 202
        await asyncio.wait_for(gate.entered.wait(), 10)

        # Opened while a tool call runs: the call shows, with the reply stored before it.
        await page.goto(server.url + "/signin")
        await page.get_by_label("Email").fill(NICOLAS["email"])
        await page.get_by_label("Password").fill(PASSWORD)
        await page.get_by_role("button", name="Sign in").click()
        running = page.locator('[data-running-tool="wait_for_oven"]')
        await expect(running).to_be_visible()
        await expect(bubble(page, "assistant", "Let me check the oven.")).to_be_visible()

        # Reopened mid-reply: the text streamed before the page loaded shows from its start.
        gate.opened.set()
        await expect(running).to_have_count(0)
        streamed = bubble(page, "assistant", "Preheated.")
        await expect(streamed).to_contain_text("The oven is hot. " * 3)
        await page.reload()
        await expect(streamed).to_be_visible()
        shown = await streamed.locator("p").first.inner_text()
        assert shown.startswith("Preheated. The oven is hot.") and reply.startswith(shown.strip())
        await expect(streamed).to_contain_text("The oven is hot. " * 5)

        # Stopped from the reopened page: what had streamed stays, marked as stopped.
        await page.get_by_role("button", name="Arrêter").click()
        stopped = page.locator("[data-origin='assistant']", has=page.locator("[data-stopped]"))
        await expect(stopped).to_contain_text("Preheated. " + "The oven is hot. " * 5)


async def test_a_lost_stream_resumes_without_losing_or_repeating_a_message(
    server: RunningServer, fake_llm: FakeOpenAI, page: Page
) -> None:
    await sign_in(page, server)
    kin = (await server.client.get("/api/kins")).json()["kins"][0]
    composer = page.get_by_placeholder("Écrire à Chef…")
    await composer.fill("Bonjour !")
    await composer.press("Enter")
    await expect(bubble(page, "assistant", "Hello from the fake")).to_have_count(1)

    # The server drops every stream; while the browser waits to reconnect, Marie writes and
    # Chef answers her. The browser resumes from its last event id and gets both, once.
    server.platform.live.close_all()
    banner = page.get_by_role("status").filter(has_text="reconnexion")
    await expect(banner).to_be_visible()
    async with server.new_client() as marie:
        await register(server.client, marie, MARIE)
        sent = await marie.post(f"/api/kins/{kin['id']}/messages", json={"content": "Et moi ?"})
        assert sent.status_code == 202, sent.text
    await expect(bubble(page, "user", "Et moi ?")).to_have_count(1)
    await expect(bubble(page, "assistant", "Hello from the fake")).to_have_count(2)
    await expect(bubble(page, "me", "Bonjour !")).to_have_count(1)
    await page.wait_for_timeout(500)  # a duplicate would arrive with the replay
    await expect(bubble(page, "assistant", "Hello from the fake")).to_have_count(2)
    await expect(banner).to_have_count(0)
