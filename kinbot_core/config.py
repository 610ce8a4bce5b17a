"""The platform's settings: ``Settings`` gathers the groups of ``kinbot_core.setting_groups``,
where each field has its default and its description.

Values come, highest priority first, from explicit overrides (command-line options), the
environment (``KINBOT_<NAME>``), an optional TOML file, then the defaults. The TOML file
is ``KINBOT_CONFIG_FILE`` when set, otherwise ``kinbot.toml`` in the data directory if present;
its keys are the setting names (``task_max_depth = 2``). ``docs/configuration.md`` lists every
setting and a test keeps it in sync with these modules.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import field_validator
from pydantic_settings import (
    BaseSettings,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
    TomlConfigSettingsSource,
)

from kinbot_core.setting_groups.channels import ChannelSettings
from kinbot_core.setting_groups.memory import MemorySettings
from kinbot_core.setting_groups.runtime import RuntimeSettings
from kinbot_core.setting_groups.server import ServerSettings, default_data_dir
from kinbot_core.setting_groups.tools import ToolSettings

ENV_PREFIX = "KINBOT_"
CONFIG_FILE_ENV = "KINBOT_CONFIG_FILE"
CONFIG_FILE_NAME = "kinbot.toml"


# The groups' fields come in the order of the bases read from the last (the server's first).
class Settings(
    ChannelSettings, ToolSettings, MemorySettings, RuntimeSettings, ServerSettings, BaseSettings
):
    """The platform's configuration. Field descriptions are the documentation."""

    model_config = SettingsConfigDict(env_prefix=ENV_PREFIX, extra="forbid", frozen=True)

    @field_validator(
        "disabled_plugins",
        "trusted_origins",
        "fetch_allowed_networks",
        "egress_allowed_ports",
        "allowed_hosts",
        "push_allowed_networks",
        mode="before",
    )
    @classmethod
    def _split_names(cls, value: Any) -> Any:
        if isinstance(value, str):
            return [name.strip() for name in value.split(",") if name.strip()]
        return value


def _config_file(overrides: dict[str, Any], explicit: Path | None) -> Path | None:
    if explicit is not None:
        return explicit
    if os.environ.get(CONFIG_FILE_ENV):
        return Path(os.environ[CONFIG_FILE_ENV])
    data_dir = overrides.get("data_dir") or os.environ.get(f"{ENV_PREFIX}DATA_DIR")
    candidate = Path(data_dir) if data_dir else default_data_dir()
    candidate = candidate / CONFIG_FILE_NAME
    return candidate if candidate.is_file() else None


def load_settings(config_file: Path | None = None, **overrides: Any) -> Settings:
    """Build the settings from overrides, the environment, the TOML file and the defaults.

    Raises ``FileNotFoundError`` when an explicitly named config file does not exist, and
    pydantic's ``ValidationError`` (with every wrong field) for invalid values.
    """
    overrides = {key: value for key, value in overrides.items() if value is not None}
    toml_file = _config_file(overrides, config_file)
    if toml_file is not None and not toml_file.is_file():
        raise FileNotFoundError(f"configuration file not found: {toml_file}")

    class _Loaded(Settings):
        @classmethod
        def settings_customise_sources(
            cls,
            settings_cls: type[BaseSettings],
            init_settings: PydanticBaseSettingsSource,
            env_settings: PydanticBaseSettingsSource,
            dotenv_settings: PydanticBaseSettingsSource,
            file_secret_settings: PydanticBaseSettingsSource,
        ) -> tuple[PydanticBaseSettingsSource, ...]:
            sources: list[PydanticBaseSettingsSource] = [init_settings, env_settings]
            if toml_file is not None:
                sources.append(TomlConfigSettingsSource(settings_cls, toml_file))
            return tuple(sources)

    return _Loaded(**overrides)


@dataclass(frozen=True)
class SettingReference:
    """One row of the configuration reference."""

    name: str
    env: str
    default: str
    description: str


def settings_reference() -> list[SettingReference]:
    """The documentation of every setting, in declaration order."""
    rows = []
    for name, info in Settings.model_fields.items():
        if name == "data_dir":
            default = "user data dir (`~/.local/share/kinbot` on Linux)"
        elif name == "secret_key":
            default = "generated"
        elif info.default_factory is not None:
            default = f"`{info.default_factory()}`"  # type: ignore[call-arg]
        else:
            default = f"`{info.default}`"
        rows.append(
            SettingReference(name, f"{ENV_PREFIX}{name.upper()}", default, info.description or "")
        )
    return rows


def settings_reference_markdown() -> str:
    """The configuration reference as the Markdown table ``docs/configuration.md`` holds."""
    lines = ["| Setting | Environment variable | Default | Description |", "|---|---|---|---|"]
    for row in settings_reference():
        lines.append(f"| `{row.name}` | `{row.env}` | {row.default} | {row.description} |")
    return "\n".join(lines)


def public_settings(settings: Settings) -> dict[str, Any]:
    """The effective settings as JSON-ready values, with secrets masked."""
    values = settings.model_dump(mode="json")
    if settings.secret_key is not None:
        values["secret_key"] = "********"
    return values
