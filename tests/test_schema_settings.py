"""Settings from a pydantic model: validation as field codes, secrets sealed and masked, updates
that keep what was not given again, and the JSON Schema the form renders."""

from __future__ import annotations

import json
import os
from enum import StrEnum
from typing import Literal

import pytest
from pydantic import BaseModel, ConfigDict, Field, SecretStr, field_validator

from kinbot_core.crypto import SecretBox
from kinbot_core.schema_settings import SchemaSettings, SettingsInvalid, SettingsUnreadable

TOKEN = "tg-7781:AAF-very-secret-token"


class Tone(StrEnum):
    CALM = "calm"
    CHEERFUL = "cheerful"


class Example(BaseModel):
    """A plugin's settings."""

    model_config = ConfigDict(
        json_schema_extra={"i18n": {"fr": {"title": "Exemple", "description": "Réglages."}}}
    )

    greeting: str = Field(
        "Hello",
        max_length=20,
        description="What the Kin says first.",
        json_schema_extra={"i18n": {"fr": {"title": "Salutation"}}},
    )
    notes: str = Field("", json_schema_extra={"multiline": True})
    retries: int = Field(3, ge=0, le=10)
    loud: bool = False
    tone: Tone = Tone.CALM
    size: Literal["small", "large"] = "small"
    limit: float | None = None
    token: SecretStr
    backup_key: SecretStr | None = None

    @field_validator("token")
    @classmethod
    def token_shape(cls, value: SecretStr) -> SecretStr:
        if ":" not in value.get_secret_value():
            raise ValueError(f"{value.get_secret_value()} is not a bot token")
        return value


@pytest.fixture
def settings() -> SchemaSettings[Example]:
    return SchemaSettings(Example)


@pytest.fixture
def box() -> SecretBox:
    return SecretBox(os.urandom(32))


def problems(error: pytest.ExceptionInfo[SettingsInvalid]) -> dict[str, str]:
    return {problem["field"]: problem["type"] for problem in error.value.fields}


def test_secret_fields_are_those_typed_secret_str(settings: SchemaSettings[Example]) -> None:
    assert settings.secret_fields == {"token", "backup_key"}


def test_valid_values_give_the_model(settings: SchemaSettings[Example]) -> None:
    instance = settings.validate({"token": TOKEN, "retries": "4", "tone": "cheerful"})
    assert instance.retries == 4 and instance.tone is Tone.CHEERFUL
    assert instance.token.get_secret_value() == TOKEN


def test_invalid_values_are_field_codes_with_limits(settings: SchemaSettings[Example]) -> None:
    with pytest.raises(SettingsInvalid) as error:
        settings.validate({"greeting": "x" * 21, "retries": 11, "size": "huge", "colour": "red"})
    assert problems(error) == {
        "greeting": "string_too_long",
        "retries": "less_than_equal",
        "size": "literal_error",
        "token": "missing",
        "colour": "extra_forbidden",
    }
    by_field = {problem["field"]: problem for problem in error.value.fields}
    assert by_field["greeting"]["max_length"] == 20
    assert by_field["retries"]["le"] == 10
    assert error.value.code == "settings_invalid"


def test_an_error_on_a_secret_never_quotes_it(settings: SchemaSettings[Example]) -> None:
    with pytest.raises(SettingsInvalid) as error:
        settings.validate({"token": "no-colon-secret-value"})
    assert problems(error) == {"token": "value_error"}
    assert "no-colon-secret-value" not in json.dumps(error.value.fields)
    assert "no-colon-secret-value" not in str(error.value)


def test_present_masks_secrets(settings: SchemaSettings[Example]) -> None:
    shown = settings.present(settings.validate({"token": TOKEN}))
    assert shown["token"] == {"set": True}
    assert shown["backup_key"] == {"set": False}
    assert shown["greeting"] == "Hello" and shown["tone"] == "calm"
    assert TOKEN not in json.dumps(shown)


def test_present_with_nothing_saved_shows_the_defaults(settings: SchemaSettings[Example]) -> None:
    shown = settings.present(None)
    assert shown["token"] == {"set": False}
    assert shown["tone"] == "calm" and shown["retries"] == 3 and shown["limit"] is None
    json.dumps(shown)  # JSON-ready
    assert settings.defaults() is None  # the token has no default


def test_sealed_settings_hold_no_secret_in_clear_and_open_again(
    settings: SchemaSettings[Example], box: SecretBox
) -> None:
    instance = settings.validate({"token": TOKEN, "backup_key": "backup-key-98765", "loud": True})
    stored = settings.seal(instance, box, "plugin-settings:example")
    assert TOKEN not in stored and "backup-key-98765" not in stored
    assert json.loads(stored)["values"]["loud"] is True
    assert settings.open(stored, box, "plugin-settings:example") == instance


def test_sealed_settings_do_not_open_under_another_context(
    settings: SchemaSettings[Example], box: SecretBox
) -> None:
    stored = settings.seal(settings.validate({"token": TOKEN}), box, "plugin-settings:a")
    with pytest.raises(SettingsUnreadable):
        settings.open(stored, box, "plugin-settings:b")
    with pytest.raises(SettingsUnreadable):
        settings.open("not json", box, "plugin-settings:a")


def test_opening_ignores_a_removed_field_and_defaults_an_added_one(box: SecretBox) -> None:
    class Before(BaseModel):
        old: str = "x"
        token: SecretStr

    class After(BaseModel):
        token: SecretStr
        added: int = 7

    stored = SchemaSettings(Before).seal(Before(token=SecretStr(TOKEN)), box, "c")
    reopened = SchemaSettings(After).open(stored, box, "c")
    assert reopened.added == 7 and reopened.token.get_secret_value() == TOKEN


def test_an_update_keeps_secrets_left_empty_or_as_shown(settings: SchemaSettings[Example]) -> None:
    current = settings.validate({"token": TOKEN, "backup_key": "backup-key-98765"})
    for kept in ("", {"set": True}):
        updated = settings.merge(current, {"greeting": "Hi", "token": kept, "backup_key": kept})
        assert updated.greeting == "Hi"
        assert updated.token.get_secret_value() == TOKEN
        assert updated.backup_key is not None
        assert updated.backup_key.get_secret_value() == "backup-key-98765"
    absent = settings.merge(current, {"loud": True})
    assert absent.token.get_secret_value() == TOKEN and absent.greeting == "Hello"


def test_an_update_replaces_or_clears_a_secret(settings: SchemaSettings[Example]) -> None:
    current = settings.validate({"token": TOKEN, "backup_key": "backup-key-98765"})
    replaced = settings.merge(current, {"token": "new:token"})
    assert replaced.token.get_secret_value() == "new:token"
    for clear in (None, {"set": False}):
        assert settings.merge(current, {"backup_key": clear}).backup_key is None
    with pytest.raises(SettingsInvalid) as error:
        settings.merge(current, {"token": None})
    assert problems(error) == {"token": "missing"}


def test_a_first_save_needs_the_required_secret(settings: SchemaSettings[Example]) -> None:
    with pytest.raises(SettingsInvalid) as error:
        settings.merge(None, {"token": {"set": True}})
    assert problems(error) == {"token": "missing"}
    with pytest.raises(SettingsInvalid):
        settings.merge(None, ["not", "an", "object"])  # type: ignore[arg-type]


def test_the_form_schema_marks_secrets_and_inlines_choices(
    settings: SchemaSettings[Example],
) -> None:
    schema = settings.form_schema()
    props = schema["properties"]
    assert props["token"]["secret"] is True and props["token"]["type"] == "string"
    assert props["backup_key"]["secret"] is True and props["backup_key"]["nullable"] is True
    assert "default" not in props["backup_key"] and "anyOf" not in props["backup_key"]
    assert props["tone"]["enum"] == ["calm", "cheerful"] and props["tone"]["default"] == "calm"
    assert props["tone"]["title"] == "Tone"  # the field's, not the enum class's
    assert props["size"]["enum"] == ["small", "large"]
    assert props["limit"] == {"type": "number", "nullable": True, "default": None, "title": "Limit"}
    assert props["retries"]["minimum"] == 0 and props["retries"]["maximum"] == 10
    assert props["notes"]["multiline"] is True
    assert props["greeting"]["i18n"]["fr"]["title"] == "Salutation"
    assert schema["i18n"]["fr"]["title"] == "Exemple"
    assert schema["required"] == ["token"]
    assert "$defs" not in schema and "$ref" not in json.dumps(schema)


def test_a_secret_below_the_top_level_is_refused() -> None:
    class Nested(BaseModel):
        tokens: list[SecretStr] = []

    with pytest.raises(TypeError, match="top-level"):
        SchemaSettings(Nested)
