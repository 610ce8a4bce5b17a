"""Configuration: defaults, environment, TOML file, validation, and the documented reference."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import ValidationError

from kinbot_core.config import (
    Settings,
    load_settings,
    public_settings,
    settings_reference,
    settings_reference_markdown,
)

ROOT = Path(__file__).resolve().parents[1]


def test_the_specification_limits_are_the_defaults(data_dir: Path) -> None:
    settings = load_settings(data_dir=data_dir)
    assert settings.task_max_depth == 3
    assert settings.task_max_request_input == 3
    assert settings.database_path == data_dir / "kinbot.db"


def test_environment_overrides_toml_which_overrides_defaults(
    data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    data_dir.mkdir(parents=True)
    (data_dir / "kinbot.toml").write_text("task_max_depth = 2\ncron_max_active = 7\n")
    monkeypatch.setenv("KINBOT_CRON_MAX_ACTIVE", "9")
    monkeypatch.setenv("KINBOT_DISABLED_PLUGINS", "metrics, event_log")
    settings = load_settings(data_dir=data_dir)
    assert settings.task_max_depth == 2
    assert settings.cron_max_active == 9
    assert settings.disabled_plugins == ["metrics", "event_log"]


def test_an_explicit_config_file_and_command_line_overrides(tmp_path: Path) -> None:
    config = tmp_path / "custom.toml"
    config.write_text('host = "0.0.0.0"\nport = 9000\n')
    settings = load_settings(config, data_dir=tmp_path, port=9100)
    assert (settings.host, settings.port) == ("0.0.0.0", 9100)
    with pytest.raises(FileNotFoundError):
        load_settings(tmp_path / "missing.toml")


def test_invalid_values_and_unknown_keys_are_refused(
    data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("KINBOT_TASK_MAX_DEPTH", "0")
    with pytest.raises(ValidationError, match="task_max_depth"):
        load_settings(data_dir=data_dir)
    monkeypatch.delenv("KINBOT_TASK_MAX_DEPTH")
    data_dir.mkdir(parents=True)
    (data_dir / "kinbot.toml").write_text("task_max_detph = 2\n")
    with pytest.raises(ValidationError, match="task_max_detph"):
        load_settings(data_dir=data_dir)


def test_the_secret_key_is_never_shown(data_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KINBOT_SECRET_KEY", "correct-horse-battery-staple")
    settings = load_settings(data_dir=data_dir)
    assert "correct-horse" not in repr(settings)
    assert public_settings(settings)["secret_key"] == "********"


def test_docs_configuration_lists_every_setting_exactly() -> None:
    document = (ROOT / "docs" / "configuration.md").read_text()
    assert settings_reference_markdown() in document
    documented = {
        line.split("|")[1].strip().strip("`")
        for line in document.splitlines()
        if line.startswith("| `")
    }
    assert documented == {row.name for row in settings_reference()}
    assert documented == set(Settings.model_fields)
