"""The master key: generated once into a private key file, or derived from KINBOT_SECRET_KEY."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from kinbot_core.config import load_settings
from kinbot_core.master_key import KEY_FILE_NAME, MasterKeyError, load_master_key


def test_a_key_is_generated_on_first_start_and_kept(data_dir: Path) -> None:
    settings = load_settings(data_dir=data_dir)
    first = load_master_key(settings)
    key_file = data_dir / KEY_FILE_NAME
    assert stat.S_IMODE(os.stat(key_file).st_mode) == 0o600
    assert len(first) == 32
    assert load_master_key(settings) == first


def test_a_key_file_readable_by_others_is_made_private(data_dir: Path) -> None:
    settings = load_settings(data_dir=data_dir)
    key = load_master_key(settings)
    os.chmod(data_dir / KEY_FILE_NAME, 0o644)
    assert load_master_key(settings) == key
    assert stat.S_IMODE(os.stat(data_dir / KEY_FILE_NAME).st_mode) == 0o600


def test_the_environment_key_is_used_and_no_file_written(
    data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("KINBOT_SECRET_KEY", "family passphrase")
    key = load_master_key(load_settings(data_dir=data_dir))
    assert len(key) == 32
    assert key == load_master_key(load_settings(data_dir=data_dir))
    monkeypatch.setenv("KINBOT_SECRET_KEY", "another passphrase")
    assert load_master_key(load_settings(data_dir=data_dir)) != key
    assert not (data_dir / KEY_FILE_NAME).exists()


def test_a_damaged_key_file_stops_the_start_with_a_reason(data_dir: Path) -> None:
    data_dir.mkdir(parents=True)
    (data_dir / KEY_FILE_NAME).write_text("not base64 at all!\n")
    with pytest.raises(MasterKeyError, match=r"KinBot key file|byte key"):
        load_master_key(load_settings(data_dir=data_dir))
