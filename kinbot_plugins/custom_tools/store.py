"""The custom tools a Kin registered, persisted in the ``custom_tool`` table."""

from __future__ import annotations

import json
import re
import time
from dataclasses import dataclass
from typing import Any

import peewee

from kinbot_core.db import Database
from kinbot_core.db.models import CustomToolRecord
from kinbot_core.tools import ToolError

NAME_PATTERN = re.compile(r"^[a-z][a-z0-9_]{1,62}$")
MAX_DESCRIPTION = 2000
MAX_SCHEMA_CHARS = 20_000
#: Custom tools one Kin may have.
MAX_TOOLS_PER_KIN = 100
EMPTY_SCHEMA: dict[str, Any] = {"type": "object", "properties": {}}


@dataclass(frozen=True)
class CustomTool:
    """A registered script: its tool name, description, argument schema and path."""

    kin_id: str
    name: str
    description: str
    parameters: dict[str, Any]
    path: str
    created_at: float
    updated_at: float

    @classmethod
    def of(cls, row: CustomToolRecord) -> CustomTool:
        return cls(
            kin_id=row.__data__["kin"],
            name=row.name,
            description=row.description,
            parameters=json.loads(row.parameters),
            path=row.path,
            created_at=row.created_at,
            updated_at=row.updated_at,
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "description": self.description,
            "parameters": self.parameters,
            "path": self.path,
            "created_at": self.created_at,
            "updated_at": self.updated_at,
        }


def checked_name(name: Any) -> str:
    """A tool name models accept: lower-case letters, digits and underscores."""
    if not isinstance(name, str) or not NAME_PATTERN.match(name):
        raise ToolError(
            "'name' must be 2 to 63 lower-case letters, digits or underscores, "
            "starting with a letter (e.g. 'convert_pdf')."
        )
    return name


def checked_description(description: Any) -> str:
    if not isinstance(description, str) or not description.strip():
        raise ToolError("'description' must say what the tool does.")
    if len(description) > MAX_DESCRIPTION:
        raise ToolError(f"'description' is longer than {MAX_DESCRIPTION} characters.")
    return description.strip()


def checked_schema(parameters: Any) -> dict[str, Any]:
    """A valid JSON Schema of an object (the tool's named arguments)."""
    if parameters is None:
        return dict(EMPTY_SCHEMA)
    if isinstance(parameters, str):
        try:
            parameters = json.loads(parameters)
        except ValueError:
            raise ToolError("'parameters' must be a JSON Schema object.") from None
    if not isinstance(parameters, dict) or parameters.get("type") != "object":
        raise ToolError('\'parameters\' must be a JSON Schema with "type": "object".')
    if len(json.dumps(parameters)) > MAX_SCHEMA_CHARS:
        raise ToolError(f"'parameters' is longer than {MAX_SCHEMA_CHARS} characters.")
    from jsonschema import Draft202012Validator  # by the first check, not at start-up
    from jsonschema.exceptions import SchemaError

    try:
        Draft202012Validator.check_schema(parameters)
    except SchemaError as exc:
        raise ToolError(f"'parameters' is not a valid JSON Schema: {exc.message}") from None
    parameters.setdefault("properties", {})
    return parameters


_ANY_TOOL = "select 1 from custom_tool where kin_id = ? limit 1"


class CustomToolStore:
    """Reads and writes a Kin's custom tools."""

    def __init__(self, db: Database) -> None:
        self._db = db

    async def list(self, kin_id: str) -> list[CustomTool]:
        """The Kin's custom tools, by name."""
        # Every turn asks; most Kins have none.
        if not self._db.read_kept(_ANY_TOOL, (kin_id,), [("custom_tool", kin_id)]):
            return []
        rows = await self._db.read(
            lambda: list(
                CustomToolRecord.select()
                .where(CustomToolRecord.kin == kin_id)
                .order_by(CustomToolRecord.name)
            )
        )
        return [CustomTool.of(row) for row in rows]

    async def get(self, kin_id: str, name: str) -> CustomTool:
        """One of the Kin's tools, or ``ToolError``."""
        row = await self._db.read(lambda: _row(kin_id, name))
        if row is None:
            raise ToolError(f"You have no custom tool named {name!r} (see list_custom_tools).")
        return CustomTool.of(row)

    async def add(
        self, kin_id: str, name: str, description: str, parameters: dict[str, Any], path: str
    ) -> CustomTool:
        """Register a new tool; its name must be free for this Kin."""

        def insert() -> CustomToolRecord:
            count = CustomToolRecord.select().where(CustomToolRecord.kin == kin_id).count()
            if count >= MAX_TOOLS_PER_KIN:
                raise ToolError(f"You already have {MAX_TOOLS_PER_KIN} custom tools.")
            now = time.time()
            try:
                return CustomToolRecord.create(
                    kin=kin_id,
                    name=name,
                    description=description,
                    parameters=json.dumps(parameters),
                    path=path,
                    created_at=now,
                    updated_at=now,
                )
            except peewee.IntegrityError:
                raise ToolError(
                    f"You already have a custom tool named {name!r}: "
                    "change it with update_custom_tool."
                ) from None

        return CustomTool.of(await self._db.write(insert))

    async def update(self, kin_id: str, name: str, changes: dict[str, Any]) -> CustomTool:
        """Change a tool's description, parameters or path."""
        values = {
            key: json.dumps(value) if key == "parameters" else value
            for key, value in changes.items()
        }

        def update() -> CustomToolRecord | None:
            CustomToolRecord.update(**values, updated_at=time.time()).where(
                (CustomToolRecord.kin == kin_id) & (CustomToolRecord.name == name)
            ).execute()
            return _row(kin_id, name)

        row = await self._db.write(update)
        if row is None:
            raise ToolError(f"You have no custom tool named {name!r} (see list_custom_tools).")
        return CustomTool.of(row)

    async def delete(self, kin_id: str, name: str) -> bool:
        """Forget a tool (its script stays in the workspace); whether it existed."""
        deleted = await self._db.write(
            lambda: (
                CustomToolRecord.delete()
                .where((CustomToolRecord.kin == kin_id) & (CustomToolRecord.name == name))
                .execute()
            )
        )
        return bool(deleted)


def _row(kin_id: str, name: str) -> CustomToolRecord | None:
    row: CustomToolRecord | None = CustomToolRecord.get_or_none(
        (CustomToolRecord.kin == kin_id) & (CustomToolRecord.name == name)
    )
    return row
