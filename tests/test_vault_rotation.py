"""``kinbot vault rotate-key``, run in its own process as an administrator runs it: vault
values, provider configurations and secrets pending in messages re-encrypted under a new
master key, the key file replaced atomically, the old ciphertexts gone from the file; refusals
that change nothing."""

from __future__ import annotations

import base64
import json
import os
import sqlite3
import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from kinbot_core.config import load_settings
from kinbot_core.crypto import DecryptionError, SecretBox
from kinbot_core.master_key import KEY_FILE_NAME, load_master_key
from kinbot_core.platform import Platform
from kinbot_core.vault import SecretUnreadable
from tests.support.fakes import FakeOpenAI
from tests.support.provider_setups import API_KEY

TOKEN = "ghp_Zq7xK9mP2vL4nR8tW1yBc3"
#: Pasted in a message, detected on arrival: sealed in ``pending_secret``.
PASTED = "ghp_Pa5t3dT0k3nInTh3Ch4tN0tY3tSt0r3d00"
BOT_TOKEN = "7046289315:AAHk3pQm9ZrT2vWx8YbN4cLd6FgJ1sEo5Ui"


def rotate(data_dir: Path, **env: str) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("KINBOT_")}
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "kinbot_web.cli",
            "vault",
            "rotate-key",
            "--data-dir",
            str(data_dir),
        ],
        capture_output=True,
        text=True,
        timeout=60,
        env={**clean, **env},
        check=False,
    )


@pytest.fixture
def fake_llm() -> Iterator[FakeOpenAI]:
    with FakeOpenAI() as fake:
        yield fake


async def fill(data_dir: Path, fake: FakeOpenAI, **settings: str) -> dict[str, bytes]:
    """A platform with a vault secret and a provider; returns their sealed values."""
    platform = Platform(load_settings(data_dir=data_dir, **settings))  # type: ignore[arg-type]
    await platform.start()
    try:
        await platform.vault.create("GITHUB_TOKEN", TOKEN)
        config = {"api_key": API_KEY, "base_url": f"{fake.base_url}/v1"}
        await platform.providers.add("ai", "openai", "OpenAI", config)
        kin = await platform.kins.create({"name": "Dev", "model": "gpt-4o"})
        message = await platform.kins.enqueue(
            kin.id, f"my token {PASTED}", source="user", sender_id=None, sender_name="Nico"
        )
        assert message.redaction_pending
        await platform.channels.connections.create(
            "telegram", "Family bot", {"bot_token": BOT_TOKEN}, [kin.id], enabled=False
        )
    finally:
        await platform.stop()
    return sealed_values(data_dir)


def sealed_values(data_dir: Path) -> dict[str, bytes]:
    with sqlite3.connect(data_dir / "kinbot.db") as conn:
        vault = conn.execute("select value_sealed from vault_secret").fetchone()[0]
        provider = conn.execute("select config_sealed from provider").fetchone()[0]
        pending = conn.execute("select value_sealed from pending_secret").fetchone()[0]
        vapid = conn.execute("select private_sealed from vapid_key").fetchone()[0]
        channel = json.loads(conn.execute("select settings from channel_connection").fetchone()[0])
    return {
        "vault": bytes(vault),
        "provider": bytes(provider),
        "pending": bytes(pending),
        "vapid": bytes(vapid),
        "channel": base64.b64decode(channel["sealed"]),
    }


async def check_readable(data_dir: Path, **settings: str) -> None:
    platform = Platform(load_settings(data_dir=data_dir, **settings))  # type: ignore[arg-type]
    await platform.start()
    try:
        assert await platform.vault.read_value("GITHUB_TOKEN", kin_id="k", turn=None) == TOKEN
        (provider,) = await platform.providers.configured("ai")
        assert provider.name == "OpenAI" and provider.secrets
        # The secret pending in a message opens too: stored in the Vault, it reads back.
        (kin,) = await platform.kins.list_all()
        message_id = (await platform.kins.messages(kin.id))[0].id
        await platform.vault.pending.store(kin.id, message_id, 1, "PASTED_TOKEN")
        assert await platform.vault.read_value("PASTED_TOKEN", kin_id="k", turn=None) == PASTED
        # The channel's token and the VAPID key open.
        assert platform.notifications.public_key is not None
        (connection,) = await platform.channels.connections.list_all()
        opened = await platform.channels.connections.settings_of(connection.id)
        assert opened.bot_token.get_secret_value() == BOT_TOKEN  # type: ignore[attr-defined]
    finally:
        await platform.stop()


def file_bytes(data_dir: Path) -> bytes:
    path = data_dir / "kinbot.db"
    with sqlite3.connect(path) as conn:
        conn.execute("pragma wal_checkpoint(truncate)")
    return path.read_bytes()


async def test_rotation_reencrypts_everything_under_a_new_key_file(
    data_dir: Path, fake_llm: FakeOpenAI
) -> None:
    before = await fill(data_dir, fake_llm)
    key_file = data_dir / KEY_FILE_NAME
    old_key = load_master_key(load_settings(data_dir=data_dir))

    result = rotate(data_dir)
    assert result.returncode == 0, result.stderr
    assert "1 in provider" in result.stdout and "1 in vault_secret" in result.stdout
    assert "1 in pending_secret" in result.stdout
    assert "1 in vapid_key" in result.stdout and "1 in channel_connection" in result.stdout
    new_key = load_master_key(load_settings(data_dir=data_dir))
    assert new_key != old_key
    assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
    assert sorted(n for n in os.listdir(data_dir) if n.startswith(KEY_FILE_NAME)) == [KEY_FILE_NAME]
    after = sealed_values(data_dir)
    raw = file_bytes(data_dir)
    for name, sealed in before.items():
        assert after[name] != sealed and sealed not in raw  # the old ciphertext is gone
    with pytest.raises(DecryptionError):
        SecretBox(old_key).open(after["vault"], "vault:x")
    await check_readable(data_dir)


async def test_rotation_with_a_passphrase_takes_the_new_one_from_the_environment(
    data_dir: Path, fake_llm: FakeOpenAI
) -> None:
    await fill(data_dir, fake_llm, secret_key="old family passphrase")
    refused = rotate(data_dir, KINBOT_SECRET_KEY="old family passphrase")
    assert refused.returncode == 2 and "KINBOT_NEW_SECRET_KEY" in refused.stderr
    result = rotate(
        data_dir,
        KINBOT_SECRET_KEY="old family passphrase",
        KINBOT_NEW_SECRET_KEY="new family passphrase",
    )
    assert result.returncode == 0, result.stderr
    assert "set KINBOT_SECRET_KEY" in result.stdout
    assert not (data_dir / KEY_FILE_NAME).exists()
    await check_readable(data_dir, secret_key="new family passphrase")
    with pytest.raises(SecretUnreadable):  # the platform starts; the values do not open
        await check_readable(data_dir, secret_key="old family passphrase")


async def test_refusals_change_nothing(data_dir: Path, fake_llm: FakeOpenAI) -> None:
    before = await fill(data_dir, fake_llm)
    key = (data_dir / KEY_FILE_NAME).read_bytes()
    with sqlite3.connect(data_dir / "kinbot.db") as conn:
        conn.execute("create table plugin_thing (id text primary key, token_sealed blob)")
    unknown = rotate(data_dir)
    assert unknown.returncode == 2 and "plugin_thing.token_sealed" in unknown.stderr
    with sqlite3.connect(data_dir / "kinbot.db") as conn:
        conn.execute("drop table plugin_thing")
    (data_dir / f"{KEY_FILE_NAME}.new").write_bytes(b"left over\n")
    interrupted = rotate(data_dir)
    assert interrupted.returncode == 2 and "interrupted" in interrupted.stderr
    assert (data_dir / KEY_FILE_NAME).read_bytes() == key
    assert not (data_dir / f"{KEY_FILE_NAME}.old").exists()
    assert sealed_values(data_dir) == before
    (data_dir / f"{KEY_FILE_NAME}.new").unlink()
    await check_readable(data_dir)
