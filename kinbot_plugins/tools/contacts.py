"""The contact tools: how a Kin reads and keeps up to date its own registry of contacts.

``get_contact``, ``search_contacts``, ``create_contact`` and ``update_contact`` work on the
calling Kin's registry only (``ToolContext.kin_id``), through ``platform.contacts``. The hidden
instruction to keep the registry up to date rides on ``create_contact``'s ``prompt_hint``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from kinbot_core import hookimpl
from kinbot_core.contacts import ContactError, ContactNotFound, ContactService
from kinbot_core.tools import (
    Tool,
    ToolContext,
    ToolError,
    named_arguments,
    object_schema,
    optional_text,
    required_text,
)

#: The hidden system prompt instruction (specification: "Registre de contacts").
PROMPT_HINT = (
    "Contacts: you keep your own registry of everyone you meet, people and other Kins. "
    "Keep it up to date on your own, without being asked and without announcing it. "
    "The first time you meet someone (a person or a Kin) who is not in your registry, "
    "add them with create_contact (check with search_contacts first, to avoid duplicates). "
    "When you learn a notable fact or preference about a contact, record it with "
    "update_contact. When you need details about someone, look them up with get_contact or "
    "search_contacts rather than guessing. Never store secrets (passwords, tokens, API keys, "
    "codes) in contacts."
)

_TEXT_LIST: dict[str, Any] = {"type": "array", "items": {"type": "string"}}

#: The fields of ``update_contact``'s ``updates`` object.
UPDATE_FIELDS: dict[str, dict[str, Any]] = {
    "name": {"type": "string", "description": "The contact's new name."},
    "relation": {
        "type": "string",
        "description": 'Who they are to the people you know (e.g. "Nicolas\'s brother").',
    },
    "notes": {"type": "string", "description": "Free notes; replaces the previous notes."},
    "add_facts": {**_TEXT_LIST, "description": "Notable facts to record."},
    "remove_facts": {**_TEXT_LIST, "description": "Recorded facts that are no longer true."},
    "add_preferences": {**_TEXT_LIST, "description": "Preferences to record (likes, dislikes)."},
    "remove_preferences": {**_TEXT_LIST, "description": "Recorded preferences to drop."},
}
_TEXT_FIELDS = ("name", "relation", "notes")


class GetContactTool:
    """``get_contact(contact_id)``: the full record of one contact."""

    name = "get_contact"
    description = (
        "Get the full record of one of your contacts (relation, notes, notable facts, "
        "preferences) by its id, as listed in your contacts summary."
    )
    parameters: dict[str, Any] = object_schema(
        {"contact_id": {"type": "string", "description": "The contact's id."}}, ["contact_id"]
    )
    prompt_hint = ""

    async def run(self, context: ToolContext, arguments: dict[str, Any]) -> dict[str, Any]:
        """Return the contact, or fail with ``ToolError`` for an unknown id."""
        arguments = named_arguments(self, arguments)
        contact_id = required_text(arguments, "contact_id")
        with _as_tool_errors():
            contact = await _contacts(context).get(context.owner_id, contact_id)
        return contact.to_dict()


class SearchContactsTool:
    """``search_contacts(query)``: contacts by name, relation or keyword."""

    name = "search_contacts"
    description = (
        'Search your contacts by name, relation or keyword (e.g. "Nicolas\'s brother", '
        '"allergic"), ignoring case and accents. Every word of the query must appear in the '
        "contact; use fewer words for broader results. Returns the matching contacts in full, "
        "name matches first."
    )
    parameters: dict[str, Any] = object_schema(
        {"query": {"type": "string", "description": "Words to look for."}}, ["query"]
    )
    prompt_hint = ""

    async def run(self, context: ToolContext, arguments: dict[str, Any]) -> dict[str, Any]:
        """Return ``{"contacts": [...]}``, possibly empty."""
        arguments = named_arguments(self, arguments)
        query = required_text(arguments, "query")
        with _as_tool_errors():
            found = await _contacts(context).search(context.owner_id, query)
        return {"contacts": [contact.to_dict() for contact in found]}


class CreateContactTool:
    """``create_contact(name, type, notes?, relation?)``: a new contact, with a new id."""

    name = "create_contact"
    description = (
        'Add someone you met to your contacts: a person (type "human") or another Kin '
        '(type "kin"). Returns the new contact with its id.'
    )
    parameters: dict[str, Any] = object_schema(
        {
            "name": {"type": "string", "description": "Their name or pseudonym."},
            "type": {"type": "string", "enum": ["human", "kin"], "description": "What they are."},
            "notes": {"type": "string", "description": "Anything worth remembering about them."},
            "relation": {
                "type": "string",
                "description": 'Who they are to the people you know (e.g. "Nicolas\'s brother").',
            },
        },
        ["name", "type"],
    )
    prompt_hint = PROMPT_HINT

    async def run(self, context: ToolContext, arguments: dict[str, Any]) -> dict[str, Any]:
        """Create the contact and return it."""
        arguments = named_arguments(self, arguments)
        name = required_text(arguments, "name")
        kind = required_text(arguments, "type")
        if kind not in ("human", "kin"):
            raise ToolError(f'\'type\' must be "human" or "kin", not {kind!r}.')
        notes = optional_text(arguments, "notes") or ""
        relation = optional_text(arguments, "relation") or ""
        with _as_tool_errors():
            contact = await _contacts(context).create(
                context.owner_id, name, kind, notes=notes, relation=relation
            )
        return contact.to_dict()


class UpdateContactTool:
    """``update_contact(contact_id, updates)``: change fields, add or remove facts."""

    name = "update_contact"
    description = (
        "Update one of your contacts: change its name, relation or notes, add or remove "
        "notable facts and preferences. Removals apply before additions. Returns the contact "
        "as it now is."
    )
    parameters: dict[str, Any] = object_schema(
        {
            "contact_id": {"type": "string", "description": "The contact's id."},
            "updates": {
                **object_schema(UPDATE_FIELDS),
                "description": "The changes; give only the fields to change.",
            },
        },
        ["contact_id", "updates"],
    )
    prompt_hint = ""

    async def run(self, context: ToolContext, arguments: dict[str, Any]) -> dict[str, Any]:
        """Apply the changes and return the updated contact."""
        arguments = named_arguments(self, arguments)
        contact_id = required_text(arguments, "contact_id")
        updates = arguments.get("updates")
        if not isinstance(updates, dict):
            raise ToolError("'updates' must be an object with the fields to change.")
        unknown = sorted(set(updates) - set(UPDATE_FIELDS))
        if unknown:
            raise ToolError(
                f"Unknown field(s) in 'updates': {', '.join(unknown)}. "
                f"Known fields: {', '.join(UPDATE_FIELDS)}."
            )
        if not updates:
            raise ToolError(f"'updates' is empty: give at least one of {', '.join(UPDATE_FIELDS)}.")
        changes: dict[str, Any] = {}
        for field in UPDATE_FIELDS:
            if field not in updates or updates[field] is None:
                continue
            if field in _TEXT_FIELDS:
                changes[field] = optional_text(updates, field)
            else:
                changes[field] = _text_list(updates, field)
        with _as_tool_errors():
            contact = await _contacts(context).update(context.owner_id, contact_id, **changes)
        return contact.to_dict()


#: The tools this plugin contributes, in registration order.
TOOLS: tuple[Tool, ...] = (
    GetContactTool(),
    SearchContactsTool(),
    CreateContactTool(),
    UpdateContactTool(),
)


@hookimpl
def register_tools(register: Callable[[Tool], None]) -> None:
    for tool in TOOLS:
        register(tool)


# -- argument checking -----------------------------------------------------------------------


def _contacts(context: ToolContext) -> ContactService:
    service: ContactService = context.platform.contacts
    return service


def _text_list(arguments: dict[str, Any], key: str) -> list[str]:
    value = arguments.get(key)
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise ToolError(f"'{key}' must be a list of strings.")
    return value


@contextmanager
def _as_tool_errors() -> Iterator[None]:
    """Turn the contact service's errors into ``ToolError``s the model can read."""
    try:
        yield
    except ContactNotFound as exc:
        raise ToolError(f"{exc.message} Use search_contacts to find a contact's id.") from exc
    except ContactError as exc:
        raise ToolError(exc.message) from exc
