"""The Vault: administration over real HTTP (values never returned), encryption at rest, the
maskers (whole text, streamed text split anywhere, data), and log scrubbing."""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator
from typing import Any

import pytest

from kinbot_core.config import Settings
from kinbot_core.platform import Platform
from kinbot_core.vault import Masker, VaultError, placeholder
from kinbot_core.vault.masking import LogScrubber
from tests.support.accounts import MARIE, register, set_up_admin
from tests.support.database_bytes import database_bytes
from tests.support.server import RunningServer, running_server

TOKEN = "ghp_Zq7xK9mP2vL4nR8tW1yB"
NOTION = "secret_nT5wQ8eR2yU6iO9pA3sD"


@pytest.fixture
async def server(settings: Settings) -> AsyncIterator[RunningServer]:
    async with running_server(Platform(settings)) as server:
        await set_up_admin(server.client)
        yield server


async def add_secret(server: RunningServer, key: str, value: str, **extra: Any) -> Any:
    response = await server.client.post("/api/vault", json={"key": key, "value": value, **extra})
    assert response.status_code == 201, response.text
    return response.json()["secret"]


# -- administration ------------------------------------------------------------------------


async def test_an_admin_manages_secrets_whose_values_no_endpoint_returns(
    server: RunningServer,
) -> None:
    created = await add_secret(server, "GITHUB_TOKEN", TOKEN, description="The family repo")
    assert created["key"] == "GITHUB_TOKEN" and created["value"] == "********"
    assert created["placeholder"] == "[SECRET: GITHUB_TOKEN]"
    await add_secret(server, "NOTION_API_KEY", NOTION)
    client = server.client
    bodies = [
        (await client.get("/api/vault")).text,
        (await client.get("/api/vault/GITHUB_TOKEN")).text,
        (await client.patch("/api/vault/GITHUB_TOKEN", json={"description": "Repo"})).text,
        (await client.patch("/api/vault/NOTION_API_KEY", json={"value": NOTION + "x"})).text,
        (await client.post("/api/vault", json={"key": "GITHUB_TOKEN", "value": TOKEN})).text,
        (await client.post("/api/vault", json={"key": "bad key", "value": TOKEN})).text,
        (await client.post("/api/vault", json={"key": "K", "value": [TOKEN]})).text,
        (await client.get("/openapi.json")).text,
    ]
    for body in bodies:
        assert TOKEN not in body and NOTION not in body
    listing = (await client.get("/api/vault")).json()["secrets"]
    assert [(s["key"], s["description"]) for s in listing] == [
        ("GITHUB_TOKEN", "Repo"),
        ("NOTION_API_KEY", ""),
    ]
    assert server.platform.vault.keys() == ["GITHUB_TOKEN", "NOTION_API_KEY"]

    renamed = await client.patch("/api/vault/NOTION_API_KEY", json={"key": "NOTION_TOKEN"})
    assert renamed.status_code == 200 and renamed.json()["secret"]["key"] == "NOTION_TOKEN"
    assert (await client.get("/api/vault/NOTION_API_KEY")).status_code == 404
    assert (await client.delete("/api/vault/NOTION_TOKEN")).status_code == 204
    assert (await client.delete("/api/vault/NOTION_TOKEN")).status_code == 404
    assert [s["key"] for s in (await client.get("/api/vault")).json()["secrets"]] == [
        "GITHUB_TOKEN"
    ]


async def test_bad_input_gets_a_clear_4xx(server: RunningServer) -> None:
    client = server.client
    await add_secret(server, "GITHUB_TOKEN", TOKEN)
    cases = [
        ({"key": "github_token", "value": TOKEN}, 400, "vault_invalid"),
        ({"key": "GITHUB__TOKEN", "value": TOKEN}, 400, "vault_invalid"),
        ({"key": "1TOKEN", "value": TOKEN}, 400, "vault_invalid"),
        ({"key": "PIN", "value": "123"}, 400, "vault_invalid"),
        ({"key": "PADDED", "value": f" {TOKEN} "}, 400, "vault_invalid"),
        ({"key": "GITHUB_TOKEN", "value": TOKEN}, 409, "key_taken"),
        ({"key": "NO_VALUE"}, 400, "invalid_request"),
    ]
    for body, status, code in cases:
        response = await client.post("/api/vault", json=body)
        assert (response.status_code, response.json()["error"]["code"]) == (status, code), body
        assert TOKEN not in response.text
    assert "upper-case" in (await client.post("/api/vault", json=cases[0][0])).text
    missing = await client.patch("/api/vault/NOPE", json={"description": "x"})
    assert missing.status_code == 404 and missing.json()["error"]["code"] == "not_found"


async def test_only_administrators_reach_the_vault(server: RunningServer) -> None:
    await add_secret(server, "GITHUB_TOKEN", TOKEN)
    async with server.new_client() as marie:
        await register(server.client, marie, MARIE)
        for method, path, body in [
            ("GET", "/api/vault", None),
            ("POST", "/api/vault", {"key": "MINE", "value": "something"}),
            ("GET", "/api/vault/GITHUB_TOKEN", None),
            ("PATCH", "/api/vault/GITHUB_TOKEN", {"value": "replaced!"}),
            ("DELETE", "/api/vault/GITHUB_TOKEN", None),
        ]:
            response = await marie.request(method, path, json=body)
            assert response.status_code == 403, (method, path)
        async with server.new_client() as stranger:
            assert (await stranger.get("/api/vault")).status_code == 401
    assert server.platform.vault.keys() == ["GITHUB_TOKEN"]


async def test_values_are_encrypted_at_rest_and_read_back_after_a_restart(
    settings: Settings,
) -> None:
    platform = Platform(settings)
    await platform.start()
    try:
        await platform.vault.create("GITHUB_TOKEN", TOKEN, "repo")
    finally:
        await platform.stop()
    raw = database_bytes(settings.database_path)
    assert TOKEN.encode() not in raw and b"GITHUB_TOKEN" in raw
    again = Platform(settings)
    await again.start()
    try:
        assert await again.vault.read_value("GITHUB_TOKEN", kin_id="k", turn=None) == TOKEN
        assert again.vault.masker().mask(f"token {TOKEN}.") == "token [SECRET: GITHUB_TOKEN]."
        with pytest.raises(VaultError, match="no secret named OTHER"):
            await again.vault.read_value("OTHER", kin_id="k", turn=None)
    finally:
        await again.stop()


# -- masking --------------------------------------------------------------------------------

SECRETS = {"GITHUB_TOKEN": "ghp_abcdef123456", "SHORT": "abcd", "NOTION": "ntn_1234abcd"}


def test_masking_replaces_every_value_longest_first() -> None:
    masker = Masker(SECRETS)
    text = "use ghp_abcdef123456 then abcd, ntn_1234abcd and ghp_abcdef123456!"
    assert masker.mask(text) == (
        "use [SECRET: GITHUB_TOKEN] then [SECRET: SHORT], [SECRET: NOTION] and "
        "[SECRET: GITHUB_TOKEN]!"
    )
    assert masker.mask("nothing here") == "nothing here"
    assert masker.mask_data({"h": ["Bearer ghp_abcdef123456", 3], "n": None}) == {
        "h": ["Bearer [SECRET: GITHUB_TOKEN]", 3],
        "n": None,
    }
    assert not Masker({}) and Masker({}).mask(text) == text
    quoted = Masker({"PASSWORD": 'pa"ss\\wörd'})
    assert quoted.mask(json.dumps({"p": 'pa"ss\\wörd'})) == '{"p": "[SECRET: PASSWORD]"}'
    assert Masker({"PIN": "123"}).mask("123") == "123"  # too short to be masked (refused)


def test_a_stream_never_lets_out_part_of_a_value_whatever_the_cut() -> None:
    cases = [
        (SECRETS, "Your token is ghp_abcdef123456, and ghp_ab is not one; abcd ntn_1234abcd ab"),
        ({"A": "xyzab", "B": "abcdef", "C": "abcd"}, "1 xyzabcdef 2 abcdef abcdx abcd"),
    ]
    for secrets, text in cases:
        masker = Masker(secrets)
        expected = masker.mask(text)
        for size in range(1, len(text) + 1):
            stream = masker.stream()
            emitted = ""
            for piece in [text[i : i + size] for i in range(0, len(text), size)]:
                emitted += stream.feed(piece)
                # what a browser has seen so far is always the start of the masked text: no
                # character of a value is ever sent, even when a value is split across deltas
                assert expected.startswith(emitted), (text, size)
            assert emitted + stream.flush() == expected, (text, size)
    masker = Masker(SECRETS)
    value = SECRETS["GITHUB_TOKEN"]
    for cut in range(1, len(value)):
        stream = masker.stream()
        first, second = stream.feed("a " + value[:cut]), stream.feed(value[cut:] + " b")
        assert first == "a "
        assert first + second + stream.flush() == "a [SECRET: GITHUB_TOKEN] b"


def test_placeholders_name_the_key() -> None:
    assert placeholder("GITHUB_TOKEN") == "[SECRET: GITHUB_TOKEN]"


# -- logs -----------------------------------------------------------------------------------


async def test_log_records_never_carry_a_value(
    platform: Platform, caplog: pytest.LogCaptureFixture
) -> None:
    await platform.vault.create("GITHUB_TOKEN", TOKEN)
    logger = logging.getLogger("kinbot.test.vault")
    with caplog.at_level(logging.DEBUG):
        logger.info("calling with %s", TOKEN)
        logger.warning(f"formatted in the message: {TOKEN}")
        logging.getLogger().error("root %(t)s", {"t": TOKEN})
        try:
            raise RuntimeError(f"bad credentials {TOKEN}")
        except RuntimeError:
            logger.exception("a failure")
        await platform.vault.update("GITHUB_TOKEN", new_key="GH_TOKEN")
        logger.info("after a rename: %s", TOKEN)
    assert TOKEN not in caplog.text
    assert "calling with [SECRET: GITHUB_TOKEN]" in caplog.text
    assert "RuntimeError: bad credentials [SECRET: GITHUB_TOKEN]" in caplog.text
    assert "after a rename: [SECRET: GH_TOKEN]" in caplog.text
    assert "root [SECRET: GITHUB_TOKEN]" in caplog.text


def test_a_scrubber_is_an_ordinary_logging_filter() -> None:
    scrubber = LogScrubber()
    scrubber.update(Masker({"K": "value-1234"}))
    record = logging.LogRecord("x", logging.INFO, __file__, 1, "v=%s", ("value-1234",), None)
    assert scrubber.filter(record) and record.getMessage() == "v=[SECRET: K]"


async def test_tools_that_store_their_arguments_get_placeholders(platform: Platform) -> None:
    await platform.vault.create("GITHUB_TOKEN", TOKEN)

    class Shell:
        name = "run_command"

    class Notebook:
        name = "write_note"
        stores_arguments = True

    arguments = {"text": f"git push https://{TOKEN}@github.com", "n": 1}
    masked = {"text": "git push https://[SECRET: GITHUB_TOKEN]@github.com", "n": 1}
    assert platform.vault.arguments_for(Shell(), arguments) == arguments
    assert platform.vault.arguments_for(Notebook(), arguments) == masked
    memorize = next(t for t in platform.registries.tools if t.name == "memorize")
    assert platform.vault.arguments_for(memorize, arguments) == masked
