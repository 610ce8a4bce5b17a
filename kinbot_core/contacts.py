"""Each Kin's own contact registry: the people and Kins it has met, with facts and preferences.

A Kin keeps its registry up to date by itself through the contact tools. Only a compact
summary (names and ids, no details) goes into its system prompt; the details are looked up
with ``get`` and ``search``. Contacts belong to one Kin: another Kin's contacts do not exist
for it.
"""

from __future__ import annotations

import json
import re
import time
import uuid
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from kinbot_core.contact_digest import ContactDigest, ContactDigests
from kinbot_core.db import Database
from kinbot_core.db.models import ContactRecord, KinRecord
from kinbot_core.events import EventBus
from kinbot_core.events.catalogue import ContactCreated, ContactUpdated
from kinbot_core.text_language import folded

#: What a contact may be: a person or another Kin of the platform.
CONTACT_TYPES = ("human", "kin")
MAX_NAME_LENGTH = 200
MAX_RELATION_LENGTH = 500
MAX_NOTES_LENGTH = 10_000
#: The longest single fact or preference.
MAX_ITEM_LENGTH = 1_000
#: The most results ``search`` returns, whatever ``limit`` asks.
MAX_SEARCH_LIMIT = 100

_WORD = re.compile(r"\w+")


class ContactError(Exception):
    """Base of contact errors. ``code`` is stable for clients; ``message`` is for people."""

    code = "contact_error"

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class ContactNotFound(ContactError):
    """No contact of that id in this Kin's registry."""

    code = "contact_not_found"


class ContactInvalid(ContactError):
    """The contact, or the change asked for, is not acceptable (the message says why)."""

    code = "contact_invalid"


@dataclass(frozen=True)
class ContactView:
    """A contact with every detail: what ``get_contact`` shows the Kin."""

    id: str
    kin_id: str
    name: str
    type: str
    linked_id: str | None
    relation: str
    notes: str
    facts: tuple[str, ...]
    preferences: tuple[str, ...]
    created_at: float
    updated_at: float

    @classmethod
    def of(cls, record: ContactRecord) -> ContactView:
        """The view of a stored row."""
        return cls(
            id=record.id,
            kin_id=record.__data__["kin"],
            name=record.name,
            type=record.type,
            linked_id=record.linked_id,
            relation=record.relation,
            notes=record.notes,
            facts=tuple(_load_list(record.facts)),
            preferences=tuple(_load_list(record.preferences)),
            created_at=record.created_at,
            updated_at=record.updated_at,
        )

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready view."""
        return {
            "id": self.id,
            "kin_id": self.kin_id,
            "name": self.name,
            "type": self.type,
            "linked_id": self.linked_id,
            "relation": self.relation,
            "notes": self.notes,
            "facts": list(self.facts),
            "preferences": list(self.preferences),
            "created_at": self.created_at,
            "updated_at": self.updated_at,
        }


class ContactService:
    """Every contact operation. Queries run off the event loop; each write is a
    transaction."""

    def __init__(self, db: Database, bus: EventBus, listed_max: int) -> None:
        """``listed_max``: the most contacts a Kin's system prompt lists (``summary``)."""
        self._db = db
        self._bus = bus
        self._digests = ContactDigests(db, listed_max)

    async def create(
        self,
        kin_id: str,
        name: str,
        type: str,
        *,
        notes: str = "",
        relation: str = "",
        linked_id: str | None = None,
    ) -> ContactView:
        """Add a contact to the Kin's registry and return it (with its new id).

        ``type`` is ``"human"`` or ``"kin"``; ``linked_id`` is the user or Kin the contact is,
        when known, and a Kin has at most one contact per ``linked_id``. Raises
        ``ContactInvalid`` for an empty name, an unknown type, an unknown Kin or a second
        contact for the same ``linked_id``.
        """
        name = _text(name, "name", MAX_NAME_LENGTH, required=True)
        if type not in CONTACT_TYPES:
            raise ContactInvalid(f"A contact's type is 'human' or 'kin', not {type!r}.")
        notes = _text(notes, "notes", MAX_NOTES_LENGTH)
        relation = _text(relation, "relation", MAX_RELATION_LENGTH)
        if linked_id is not None and not linked_id.strip():
            linked_id = None

        def insert() -> ContactRecord:
            if not KinRecord.select().where(KinRecord.id == kin_id).exists():
                raise ContactInvalid("No such Kin.")
            if linked_id is not None:
                existing = _linked(kin_id, linked_id)
                if existing is not None:
                    raise ContactInvalid(
                        f"There is already a contact for {linked_id}: "
                        f"{existing.name} ({existing.id})."
                    )
            now = time.time()
            record: ContactRecord = ContactRecord.create(
                id=uuid.uuid4().hex,
                kin=kin_id,
                name=name,
                type=type,
                linked_id=linked_id,
                relation=relation,
                notes=notes,
                facts="[]",
                preferences="[]",
                created_at=now,
                updated_at=now,
            )
            return record

        view = ContactView.of(await self._db.write(insert))
        self._bus.emit(ContactCreated(contact_id=view.id, kin_id=kin_id))
        return view

    async def get(self, kin_id: str, contact_id: str) -> ContactView:
        """One contact of the Kin, or ``ContactNotFound``."""
        record = await self._db.read(_owned, kin_id, contact_id)
        if record is None:
            raise ContactNotFound(f"No contact with id {contact_id!r}.")
        return ContactView.of(record)

    async def find_linked(self, kin_id: str, linked_id: str) -> ContactView | None:
        """The Kin's contact for a given user or Kin id, if it has one."""
        record = await self._db.read(_linked, kin_id, linked_id)
        return None if record is None else ContactView.of(record)

    async def search(self, kin_id: str, query: str, limit: int = 10) -> list[ContactView]:
        """The Kin's contacts matching ``query``, best first, at most ``limit`` of them.

        Matching ignores case and accents and looks at the name, relation, notes, facts and
        preferences: every word of the query must appear in one of them (``"frère de
        Nicolas"``, ``"allergique"``). Contacts whose name matches come first.
        Raises ``ContactInvalid`` for a query without any word.
        """
        words = _words(query)
        if not words:
            raise ContactInvalid("The search query has no words to look for.")
        if limit < 1:
            raise ContactInvalid("The search limit must be at least 1.")
        limit = min(limit, MAX_SEARCH_LIMIT)
        phrase = " ".join(words)

        def find() -> list[ContactRecord]:
            ranked: list[tuple[int, str, ContactRecord]] = []
            for record in ContactRecord.select().where(ContactRecord.kin == kin_id):
                rank = _rank(record, words, phrase)
                if rank is not None:
                    ranked.append((rank, folded(record.name), record))
            ranked.sort(key=lambda entry: (entry[0], entry[1]))
            return [record for _, _, record in ranked[:limit]]

        return [ContactView.of(record) for record in await self._db.read(find)]

    async def update(
        self,
        kin_id: str,
        contact_id: str,
        *,
        name: str | None = None,
        relation: str | None = None,
        notes: str | None = None,
        add_facts: Sequence[str] = (),
        remove_facts: Sequence[str] = (),
        add_preferences: Sequence[str] = (),
        remove_preferences: Sequence[str] = (),
    ) -> ContactView:
        """Change a contact of the Kin and return it as it now is.

        ``None`` leaves a field as it is; an empty relation or notes clears it. Removals
        apply before additions; both ignore case and accents, and a fact or preference
        already recorded is not added twice. Raises ``ContactNotFound``, or
        ``ContactInvalid`` for an empty name or an empty fact or preference.
        ``contact.updated`` is emitted only when something changed.
        """
        changes: dict[str, Any] = {}
        if name is not None:
            changes["name"] = _text(name, "name", MAX_NAME_LENGTH, required=True)
        if relation is not None:
            changes["relation"] = _text(relation, "relation", MAX_RELATION_LENGTH)
        if notes is not None:
            changes["notes"] = _text(notes, "notes", MAX_NOTES_LENGTH)
        facts_in = _items(add_facts, "fact")
        facts_out = _items(remove_facts, "fact")
        preferences_in = _items(add_preferences, "preference")
        preferences_out = _items(remove_preferences, "preference")

        def apply() -> tuple[ContactRecord, bool]:
            record = _owned(kin_id, contact_id)
            if record is None:
                raise ContactNotFound(f"No contact with id {contact_id!r}.")
            values = dict(changes)
            facts = _merge(_load_list(record.facts), facts_out, facts_in)
            preferences = _merge(_load_list(record.preferences), preferences_out, preferences_in)
            values["facts"] = json.dumps(facts, ensure_ascii=False)
            values["preferences"] = json.dumps(preferences, ensure_ascii=False)
            changed = {
                field: value for field, value in values.items() if getattr(record, field) != value
            }
            if not changed:
                return record, False
            for field, value in changed.items():
                setattr(record, field, value)
            record.updated_at = time.time()
            record.save()
            return record, True

        record, changed = await self._db.write(apply)
        if changed:
            self._bus.emit(ContactUpdated(contact_id=contact_id, kin_id=kin_id))
        return ContactView.of(record)

    async def summary(self, kin_id: str) -> ContactDigest:
        """What the Kin's system prompt lists of its contacts (``ContactDigest``): asked for
        at every turn, kept until one of its contacts changes."""
        return await self._digests.of(kin_id)


# -- queries (run on database threads) -------------------------------------------------------


def _owned(kin_id: str, contact_id: str) -> ContactRecord | None:
    record: ContactRecord | None = ContactRecord.get_or_none(
        (ContactRecord.id == contact_id) & (ContactRecord.kin == kin_id)
    )
    return record


def _linked(kin_id: str, linked_id: str) -> ContactRecord | None:
    record: ContactRecord | None = (
        ContactRecord.select()
        .where((ContactRecord.kin == kin_id) & (ContactRecord.linked_id == linked_id))
        .order_by(ContactRecord.created_at)
        .first()
    )
    return record


# -- values ----------------------------------------------------------------------------------


def _words(text: str) -> list[str]:
    return _WORD.findall(folded(text))


def _key(item: str) -> str:
    return " ".join(_words(item)) or item.strip()


def _rank(record: ContactRecord, words: list[str], phrase: str) -> int | None:
    """How well a contact matches (lower is better), or ``None`` when it does not."""
    name = " ".join(_words(record.name))
    fields = [record.relation, record.notes, *_load_list(record.facts)]
    fields += _load_list(record.preferences)
    details = " ".join(" ".join(_words(field)) for field in fields)
    everything = f"{name} {details}"
    if not all(word in everything for word in words):
        return None
    if name == phrase:
        return 0
    if phrase in name:
        return 1
    if all(word in name for word in words):
        return 2
    if any(word in name for word in words):
        return 3
    if phrase in details:
        return 4
    return 5


def _text(value: Any, field: str, max_length: int, *, required: bool = False) -> str:
    if not isinstance(value, str):
        raise ContactInvalid(f"A contact's {field} must be text.")
    text: str = value.strip()
    if required and not text:
        raise ContactInvalid(f"A contact's {field} cannot be empty.")
    if len(text) > max_length:
        raise ContactInvalid(f"A contact's {field} is limited to {max_length} characters.")
    return text


def _items(values: Iterable[str], what: str) -> list[str]:
    if isinstance(values, str):
        raise ContactInvalid(f"Give a list of {what}s, not a single text.")
    items = []
    for value in values:
        if not isinstance(value, str) or not value.strip():
            raise ContactInvalid(f"A {what} must be a non-empty text.")
        item = value.strip()
        if len(item) > MAX_ITEM_LENGTH:
            raise ContactInvalid(f"A {what} is limited to {MAX_ITEM_LENGTH} characters.")
        items.append(item)
    return items


def _merge(current: list[str], remove: list[str], add: list[str]) -> list[str]:
    """``current`` without ``remove``, then with ``add``; no two items alike, order kept.

    Items are alike when their words are, whatever the case, accents and punctuation.
    """
    removed = {_key(item) for item in remove}
    merged: list[str] = []
    seen: set[str] = set()
    for item in [*(i for i in current if _key(i) not in removed), *add]:
        key = _key(item)
        if key not in seen:
            seen.add(key)
            merged.append(item)
    return merged


def _load_list(raw: str) -> list[str]:
    loaded = json.loads(raw or "[]")
    return [str(item) for item in loaded] if isinstance(loaded, list) else []
