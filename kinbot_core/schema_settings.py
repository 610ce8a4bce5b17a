"""Settings described by a pydantic model: validated, secrets sealed at rest, shown masked.

A plugin's settings, a channel connection's configuration: anything an administrator fills in
from a form generated from a model. The model is flat (one level of fields: strings, numbers,
booleans, enums or ``Literal`` choices, and secrets). A field typed ``pydantic.SecretStr``
(or ``SecretStr | None``) is a secret:

- it is stored sealed with the instance's ``SecretBox`` under a context the caller chooses
  (``"plugin-settings:<name>"``, say), so a sealed value copied elsewhere does not open;
- the API never returns it: ``present`` shows ``{"set": true}`` or ``{"set": false}``;
- an update that leaves it empty (``""``), absent or as shown (``{"set": true}``) keeps the
  stored value; ``null`` (or ``{"set": false}``) clears it (refused as ``missing`` when the
  field is required).

``form_schema`` is the model's JSON Schema for ``schema-form.tsx``: references inlined,
``X | None`` as ``X`` with ``"nullable": true``, secrets marked ``"secret": true`` (and their
defaults left out), and the fields' order as ``"order"`` (JSON keys may be sorted on the
way). A field's extra JSON Schema may carry ``"multiline": true`` (a text area),
``"enum_titles": {value: label}`` (the words for a choice), and translations of these as
``"i18n": {"fr": {"title": ..., "description": ..., "enum_titles": {...}}}``. The form's
heading is the model's ``title`` (``ConfigDict(title=...)``; not its class name) and its
``description`` one given in ``json_schema_extra`` (not its docstring, which is for
developers); they translate the same way through ``model_config["json_schema_extra"]``.

Invalid values raise ``SettingsInvalid`` with one entry per field, in the shape of the API's
``invalid_request`` details (``field``, pydantic's rule as ``type``, its limits), so the web
interface words it and shows it on the field; a secret's value never appears in an error.
"""

from __future__ import annotations

import base64
import inspect
import json
import types
import typing
from collections.abc import Mapping
from typing import Any, Generic, TypeVar

from pydantic import BaseModel, SecretStr, ValidationError
from pydantic_core import to_jsonable_python

from kinbot_core.crypto import DecryptionError, SecretBox

M = TypeVar("M", bound=BaseModel)

#: The limits of a validation rule a person is told (pydantic's ``ctx`` keys).
_LIMITS = ("min_length", "max_length", "ge", "gt", "le", "lt")
#: What ``present`` shows of a secret in an update: unchanged.
_KEEP = {"set": True}
_CLEAR = {"set": False}


class SettingsInvalid(ValueError):
    """Values that do not fit the settings model. ``fields`` lists each problem as
    ``{"field", "type", "message", <limits>}``: ``type`` is pydantic's rule (``missing``,
    ``string_too_long``, ``extra_forbidden``…), the limits its parameters."""

    code = "settings_invalid"

    def __init__(self, fields: list[dict[str, Any]]) -> None:
        names = ", ".join(sorted({str(field["field"]) for field in fields})) or "the settings"
        super().__init__(f"Some settings are not valid: {names}.")
        self.fields = fields


class SettingsUnreadable(RuntimeError):
    """Stored settings could not be opened (another master key, altered data)."""


class SettingsKeyChanged(SettingsUnreadable):
    """The secrets of stored settings were sealed under another master key (a backup
    restored without its key): they must be entered again, or the original key put back."""


def is_secret_annotation(annotation: Any) -> bool:
    """Whether a field annotation is ``SecretStr`` or ``SecretStr | None``."""
    if annotation is SecretStr:
        return True
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        members = [arg for arg in typing.get_args(annotation) if arg is not type(None)]
        return members == [SecretStr]
    return False


class SchemaSettings(Generic[M]):
    """The settings machinery for one model class: validate, merge, seal, open, present.

    Raises ``TypeError`` at construction for a model that hides a secret below its top
    level (``list[SecretStr]``, a nested model with one), which could not be kept sealed.
    """

    def __init__(self, model: type[M]) -> None:
        self.model = model
        self.secret_fields = frozenset(
            name
            for name, info in model.model_fields.items()
            if is_secret_annotation(info.annotation)
        )
        self._check_flat()

    def _check_flat(self) -> None:
        schema = self.model.model_json_schema()
        hidden = [
            path
            for path, node in _walk(schema, "")
            if node.get("format") == "password"
            and not any(path.startswith(f"/properties/{name}") for name in self.secret_fields)
        ]
        if hidden:
            raise TypeError(
                f"{self.model.__name__}: secrets are only supported as top-level fields typed "
                f"SecretStr or SecretStr | None (found one at {hidden[0]})"
            )

    # -- values ------------------------------------------------------------------------------

    def validate(self, values: Mapping[str, Any]) -> M:
        """The model instance for ``values`` (a JSON object), or ``SettingsInvalid``.

        Names the model does not have are refused (``extra_forbidden``)."""
        unknown = [
            {"field": str(name), "type": "extra_forbidden", "message": "Not a setting."}
            for name in values
            if name not in self.model.model_fields
        ]
        try:
            instance = self.model.model_validate(dict(values))
        except ValidationError as exc:
            raise SettingsInvalid(unknown + self._problems(exc)) from None
        if unknown:
            raise SettingsInvalid(unknown)
        return instance

    def defaults(self) -> M | None:
        """The instance with every default, or ``None`` when a field has no default."""
        try:
            return self.model.model_validate({})
        except ValidationError:
            return None

    def merge(self, current: M | None, update: Mapping[str, Any]) -> M:
        """``current`` (``None``: nothing saved yet) changed by ``update``, validated.

        A field absent from ``update`` keeps its value; a secret given as ``""`` or
        ``{"set": true}`` keeps its value, as ``null`` or ``{"set": false}`` is cleared."""
        if not isinstance(update, Mapping):
            raise SettingsInvalid([{"field": "", "type": "dict_type", "message": "Not an object."}])
        merged = self.raw_values(current) if current is not None else {}
        for name, value in update.items():
            if name in self.secret_fields:
                if value == "" or value == _KEEP:
                    continue
                if value is None or value == _CLEAR:
                    merged.pop(name, None)
                    continue
            merged[name] = value
        return self.validate(merged)

    def raw_values(self, instance: M) -> dict[str, Any]:
        """Every value of ``instance`` as JSON-ready data, secrets in clear (never for a
        response or a log: for sealing and merging)."""
        values = instance.model_dump(mode="json", exclude=set(self.secret_fields))
        for name in self.secret_fields:
            secret = getattr(instance, name)
            if secret is not None:
                values[name] = secret.get_secret_value()
        return values

    def present(self, instance: M | None) -> dict[str, Any]:
        """The values for an API response: plain values as JSON, each secret as
        ``{"set": bool}``. ``None`` (nothing saved) shows the defaults (``None`` where a
        field has none)."""
        if instance is not None:
            shown = instance.model_dump(mode="json", exclude=set(self.secret_fields))
            for name in self.secret_fields:
                shown[name] = {"set": getattr(instance, name) is not None}
            return shown
        shown = {}
        for name, info in self.model.model_fields.items():
            default = None if info.is_required() else info.get_default(call_default_factory=True)
            if name in self.secret_fields:
                shown[name] = {"set": default is not None}
            else:
                shown[name] = to_jsonable_python(default)
        return shown

    # -- storage -----------------------------------------------------------------------------

    def seal(self, instance: M, box: SecretBox, context: str) -> str:
        """``instance`` as stored text (JSON): the plain values readable, the secrets sealed
        together under ``context``."""
        values = self.raw_values(instance)
        secrets = {name: values.pop(name) for name in self.secret_fields if name in values}
        stored: dict[str, Any] = {"values": values}
        if secrets:
            sealed = box.seal(json.dumps(secrets).encode(), context)
            stored["sealed"] = base64.b64encode(sealed).decode("ascii")
        return json.dumps(stored, ensure_ascii=False)

    def open(self, stored: str, box: SecretBox, context: str) -> M:
        """What ``seal`` produced, validated again (a field added since gets its default).

        Raises ``SettingsUnreadable`` when it cannot be opened, ``SettingsInvalid`` when the
        values no longer fit the model."""
        try:
            document = json.loads(stored)
            values = dict(document["values"])
            if "sealed" in document:
                opened = box.open(base64.b64decode(document["sealed"]), context)
                values.update(json.loads(opened))
        except (ValueError, KeyError, TypeError) as exc:  # DecryptionError is a RuntimeError
            raise SettingsUnreadable(
                f"stored settings cannot be read ({type(exc).__name__})"
            ) from None
        except DecryptionError as exc:
            raise SettingsKeyChanged(str(exc)) from None
        except RuntimeError as exc:
            raise SettingsUnreadable(str(exc)) from None
        known = {name: value for name, value in values.items() if name in self.model.model_fields}
        return self.validate(known)

    def plain_values(self, stored: str) -> dict[str, Any]:
        """The values of stored settings that are not sealed (no secret), unvalidated:
        what is kept of them when their secrets cannot be opened and are entered again."""
        try:
            values = dict(json.loads(stored)["values"])
        except (ValueError, KeyError, TypeError):
            return {}
        return {name: value for name, value in values.items() if name in self.model.model_fields}

    # -- the form ----------------------------------------------------------------------------

    def form_schema(self) -> dict[str, Any]:
        """The JSON Schema ``schema-form.tsx`` renders (see the module docstring)."""
        schema = self.model.model_json_schema()
        definitions = schema.pop("$defs", {})
        # pydantic's defaults are for developers: the class name, the docstring.
        if schema.get("title") == self.model.__name__:
            del schema["title"]
        if self.model.__doc__ and schema.get("description") == inspect.cleandoc(self.model.__doc__):
            del schema["description"]
        properties: dict[str, Any] = {}
        for name, field_schema in schema.get("properties", {}).items():
            prop = _inline(field_schema, definitions)
            prop.setdefault("title", name.replace("_", " ").capitalize())
            if name in self.secret_fields:
                prop.pop("default", None)
                prop.pop("writeOnly", None)
                prop["secret"] = True
            properties[name] = prop
        schema["properties"] = properties
        # JSON objects may come back with their keys sorted (Quart's JSON does): the model's order.
        schema["order"] = list(properties)
        schema.setdefault("required", [])
        return schema

    # -- errors ------------------------------------------------------------------------------

    def _problems(self, exc: ValidationError) -> list[dict[str, Any]]:
        problems = []
        for error in exc.errors(include_url=False, include_input=False, include_context=True):
            location = [str(part) for part in error["loc"]]
            secret = bool(location) and location[0] in self.secret_fields
            rule = error["type"]
            if secret and rule in ("too_short", "too_long"):
                rule = f"string_{rule}"  # pydantic counts a secret's characters as "items"
            problem: dict[str, Any] = {
                "field": ".".join(location),
                "type": rule,
                # A validator's words may quote the value: not for a secret.
                "message": "Not a valid secret." if secret else error["msg"],
            }
            context = error.get("ctx") or {}
            problem.update({key: context[key] for key in _LIMITS if key in context})
            problems.append(problem)
        return problems


def _walk(node: Any, path: str) -> typing.Iterator[tuple[str, dict[str, Any]]]:
    if isinstance(node, dict):
        yield path, node
        for key, value in node.items():
            yield from _walk(value, f"{path}/{key}")
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from _walk(value, f"{path}/{index}")


def _inline(field_schema: dict[str, Any], definitions: dict[str, Any]) -> dict[str, Any]:
    """A property with its ``$ref`` replaced by the definition, ``X | None`` as ``X``."""
    prop = dict(field_schema)
    ref = prop.pop("$ref", None)
    if isinstance(ref, str) and ref.startswith("#/$defs/"):
        definition = definitions.get(ref.removeprefix("#/$defs/"), {})
        # The definition's title is a class name: the field's own words (or name) instead.
        shared = {k: v for k, v in definition.items() if k not in ("title", "description")}
        prop = {**shared, **prop}
    choices = prop.get("anyOf")
    if isinstance(choices, list):
        others = [choice for choice in choices if choice != {"type": "null"}]
        if len(others) == 1 and len(others) < len(choices):
            del prop["anyOf"]
            prop = {**_inline(others[0], definitions), **prop, "nullable": True}
    return prop
