"""The Vault: named secrets encrypted at rest, read by Kins on demand, masked everywhere else.

Administrators create, change and delete secrets; no method returns a value except
``read_value`` (the ``get_secret`` tool). The values are also kept decrypted in memory, for
one purpose: masking them (``masker``) in what Kins write, in stored tool results and in
log records (the ``LogScrubber`` installed while the vault is open).
"""

from __future__ import annotations

import asyncio
import logging
import re
import time
import uuid
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

import peewee

from kinbot_core.crypto import SecretBox
from kinbot_core.db import Database
from kinbot_core.events import EventBus
from kinbot_core.kins.service import MessageView
from kinbot_core.live import LiveFeed
from kinbot_core.vault import masking
from kinbot_core.vault.events import (
    VAULT_EVENTS,
    MessageRedacted,
    VaultSecretCreated,
    VaultSecretDeleted,
    VaultSecretRead,
    VaultSecretUpdated,
)
from kinbot_core.vault.masking import MIN_VALUE_LENGTH, LogScrubber, Masker, placeholder
from kinbot_core.vault.pending import PendingSecrets
from kinbot_core.vault.records import VaultSecretRecord, sealing_context
from kinbot_core.vault.redaction import Redacted, redact_message

logger = logging.getLogger(__name__)

#: Upper snake case: ``GITHUB_TOKEN``, ``NOTION_API_KEY``.
KEY_PATTERN = re.compile(r"^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*$")
MAX_KEY_LENGTH = 64
MAX_VALUE_LENGTH = 16_384
MAX_DESCRIPTION_LENGTH = 500
#: Built-in tools whose arguments are stored (a memory, a contact, a cron's prompt) or sent to
#: another Kin: they receive placeholders, never values (the receiving Kin can ``get_secret``).
#: A tool of a plugin asks the same with a true ``stores_arguments`` attribute.
STORING_TOOLS = frozenset(
    {
        "memorize",
        "update_memory",
        "create_contact",
        "update_contact",
        "send_message",
        "reply",
        "create_cron",
        "update_cron",
        "spawn_self",
        "spawn_kin",
        "respond_to_task",
        "report_to_parent",
        "update_task_status",
        "request_input",
    }
)
#: Turns whose revealed keys are remembered (a turn that never ended cannot grow the map).
_REVEALED_TURNS = 1024


class VaultError(Exception):
    """A vault request that cannot be done. The message never holds a secret value."""

    code = "vault_invalid"

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class SecretNotFound(VaultError):
    code = "not_found"


class SecretKeyTaken(VaultError):
    code = "key_taken"


@dataclass(frozen=True)
class SecretView:
    """A secret as the API shows it: everything but the value."""

    id: str
    key: str
    description: str
    created_by: str | None
    created_at: float
    updated_at: float
    last_used_at: float | None

    @classmethod
    def of(cls, row: VaultSecretRecord) -> SecretView:
        return cls(
            id=row.id,
            key=row.key,
            description=row.description,
            created_by=row.created_by,
            created_at=row.created_at,
            updated_at=row.updated_at,
            last_used_at=row.last_used_at,
        )

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready; ``value`` is always the mask, never the value."""
        return {**self.__dict__, "value": "********", "placeholder": placeholder(self.key)}


def valid_key(key: str) -> str:
    """``key`` if it is a well-formed secret name, else ``VaultError`` saying what one is."""
    if not isinstance(key, str) or len(key) > MAX_KEY_LENGTH or not KEY_PATTERN.match(key):
        raise VaultError(
            f"A secret's key is 1 to {MAX_KEY_LENGTH} upper-case letters, digits and single "
            "underscores, starting with a letter (e.g. GITHUB_TOKEN)."
        )
    return key


def _valid_value(value: str) -> str:
    if not isinstance(value, str) or not (MIN_VALUE_LENGTH <= len(value) <= MAX_VALUE_LENGTH):
        raise VaultError(
            f"A secret's value is {MIN_VALUE_LENGTH} to {MAX_VALUE_LENGTH} characters (shorter "
            "values could not be recognised, and masked, in what Kins write)."
        )
    if value != value.strip():
        raise VaultError("A secret's value cannot start or end with spaces or line breaks.")
    return value


def _valid_description(description: str) -> str:
    description = description.strip()
    if len(description) > MAX_DESCRIPTION_LENGTH:
        raise VaultError(f"A description is at most {MAX_DESCRIPTION_LENGTH} characters.")
    return description


class VaultService:
    """The platform's vault (``platform.vault``)."""

    def __init__(
        self, db: Database, bus: EventBus, live: LiveFeed, master_key: Callable[[], bytes]
    ) -> None:
        self._db = db
        self._bus = bus
        self._live = live
        self._master_key = master_key
        self._values: dict[str, str] = {}
        #: Values replaced or deleted since the start: still masked (a turn may hold them).
        self._retired: list[tuple[str, str]] = []
        self._masker = Masker({})
        self._scrubber = LogScrubber()
        self._lock = asyncio.Lock()
        #: Secrets detected in incoming messages, waiting for a Kin or a member.
        self.pending = PendingSecrets(self, db, bus, live, self._box)
        #: Per turn (its trigger message id), the keys read with ``get_secret`` during it.
        self._revealed: OrderedDict[int, set[str]] = OrderedDict()
        for event_class in VAULT_EVENTS:
            bus.register_type(event_class)

    # -- life cycle ------------------------------------------------------------------------

    async def open(self) -> None:
        """Load (decrypt) the values for masking and start scrubbing log records."""
        rows = await self._db.read(lambda: list(VaultSecretRecord.select()))
        box = self._box()
        self._values = {row.key: self._open(box, row) for row in rows}
        self._refresh()
        masking.install(self._scrubber)

    def close(self) -> None:
        """Stop scrubbing log records and forget the values."""
        masking.uninstall(self._scrubber)
        self._values, self._retired = {}, []
        self._refresh()

    # -- administration --------------------------------------------------------------------

    async def list_all(self) -> list[SecretView]:
        """Every secret, by key (values left out)."""
        rows = await self._db.read(
            lambda: list(VaultSecretRecord.select().order_by(VaultSecretRecord.key))
        )
        return [SecretView.of(row) for row in rows]

    async def get(self, key: str) -> SecretView:
        """One secret (value left out), or ``SecretNotFound``."""
        return SecretView.of(await self._db.read(_row, key))

    async def create(
        self,
        key: str,
        value: str,
        description: str = "",
        *,
        created_by: str | None = None,
        along: Callable[[], None] | None = None,
    ) -> SecretView:
        """Store a new secret; ``SecretKeyTaken`` if the key exists. ``along`` runs in the
        same transaction, after the insert (on the writer thread); it may raise to undo it."""
        key, value = valid_key(key), _valid_value(value)
        description = _valid_description(description)
        secret_id = uuid.uuid4().hex
        sealed = self._box().seal(value.encode(), sealing_context(secret_id))

        def insert() -> VaultSecretRecord:
            if VaultSecretRecord.select().where(VaultSecretRecord.key == key).exists():
                raise SecretKeyTaken(f"A secret named {key} exists already.")
            now = time.time()
            row = VaultSecretRecord.create(
                id=secret_id,
                key=key,
                value_sealed=sealed,
                description=description,
                created_by=created_by,
                created_at=now,
                updated_at=now,
            )
            if along is not None:
                along()
            return row

        async with self._lock:
            row = await self._db.write(insert)
            self._values[key] = value
            self._refresh()
        self._bus.emit(VaultSecretCreated(key=key, user_id=created_by))
        logger.info("vault secret %s created", key)
        return SecretView.of(row)

    async def update(
        self,
        key: str,
        *,
        new_key: str | None = None,
        value: str | None = None,
        description: str | None = None,
        user_id: str | None = None,
    ) -> SecretView:
        """Rename a secret, replace its value, or change its description."""
        target = valid_key(new_key) if new_key is not None else key
        if value is not None:
            value = _valid_value(value)
        if description is not None:
            description = _valid_description(description)
        box = self._box()

        def change() -> tuple[VaultSecretRecord, str]:
            row = _row(key)
            if target != key and (
                VaultSecretRecord.select().where(VaultSecretRecord.key == target).exists()
            ):
                raise SecretKeyTaken(f"A secret named {target} exists already.")
            current = value if value is not None else self._open(box, row)
            row.key = target
            if value is not None:
                row.value_sealed = box.seal(value.encode(), sealing_context(row.id))
            if description is not None:
                row.description = description
            row.updated_at = time.time()
            row.save()
            return row, current

        async with self._lock:
            row, current = await self._db.write(change)
            former = self._values.pop(key, None)
            if former is not None and former != current:
                self._retired.append((key, former))
            self._values[target] = current
            self._refresh()
        self._bus.emit(
            VaultSecretUpdated(key=target, value_changed=value is not None, user_id=user_id)
        )
        logger.info("vault secret %s updated", target)
        return SecretView.of(row)

    async def delete(self, key: str, *, user_id: str | None = None) -> None:
        """Remove a secret (``SecretNotFound`` if there is none)."""

        def remove() -> None:
            if not VaultSecretRecord.delete().where(VaultSecretRecord.key == key).execute():
                raise SecretNotFound(f"There is no secret named {key}.")

        async with self._lock:
            await self._db.write(remove)
            former = self._values.pop(key, None)
            if former is not None:
                self._retired.append((key, former))
            self._refresh()
        self._bus.emit(VaultSecretDeleted(key=key, user_id=user_id))
        logger.info("vault secret %s deleted", key)

    # -- Kins ------------------------------------------------------------------------------

    async def read_value(self, key: str, *, kin_id: str, turn: int | None) -> str:
        """The value of ``key`` for a Kin's ``get_secret`` call during ``turn`` (the id of the
        message that started it); within that turn, its placeholder in tool results is shown
        to the model as the value (``reveal``)."""
        key = valid_key(key)
        now = time.time()

        def touch() -> VaultSecretRecord:
            row = _row(key)
            VaultSecretRecord.update(last_used_at=now).where(
                VaultSecretRecord.id == row.id
            ).execute()
            return row

        row = await self._db.write(touch)
        value = self._open(self._box(), row)
        if turn is not None:
            self._revealed.setdefault(turn, set()).add(key)
            self._revealed.move_to_end(turn)
            while len(self._revealed) > _REVEALED_TURNS:
                self._revealed.popitem(last=False)
        self._bus.emit(VaultSecretRead(key=key, kin_id=kin_id))
        return value

    def _revealer(self, turn: int) -> Callable[[str], str] | None:
        """What puts back, in a text, the values of the secrets read during ``turn`` in
        place of their placeholders; ``None`` when the turn read none."""
        keys = self._revealed.get(turn)
        if not keys:
            return None
        shown = {placeholder(k): self._values[k] for k in keys if k in self._values}

        def revealed(text: str) -> str:
            for mark, value in shown.items():
                text = text.replace(mark, value)
            return text

        return revealed

    def reveal(self, turn: int, messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """``messages`` (provider-neutral dicts) with, in tool results, the placeholders of
        the secrets read during ``turn`` replaced by their values: the model of that turn
        works with the value, while what is stored keeps the placeholder."""
        revealer = self._revealer(turn)
        if revealer is None:
            return messages
        revealed = []
        for message in messages:
            content = message.get("content")
            if (
                message.get("role") == "tool"
                and isinstance(content, str)
                and "[SECRET: " in content
            ):
                message = {**message, "content": revealer(content)}
            revealed.append(message)
        return revealed

    def reveal_arguments(self, turn: int, arguments: dict[str, Any]) -> dict[str, Any]:
        """A stored call's ``arguments`` (masked when stored) with the placeholders of the
        secrets read during ``turn`` replaced by their values: a call resumed after an
        approval runs as the model wrote it. Other placeholders stay: a call cannot reach a
        secret its turn did not read with ``get_secret``."""
        revealer = self._revealer(turn)
        if revealer is None:
            return arguments

        def revealed(value: Any) -> Any:
            if isinstance(value, str):
                return revealer(value)
            if isinstance(value, dict):
                return {name: revealed(item) for name, item in value.items()}
            if isinstance(value, list):
                return [revealed(item) for item in value]
            return value

        result: dict[str, Any] = revealed(arguments)
        return result

    def arguments_for(self, tool: object, arguments: dict[str, Any]) -> dict[str, Any]:
        """The arguments ``tool`` is run with: masked for a tool that stores them or passes
        them on (``STORING_TOOLS``, or ``stores_arguments``), as the model wrote them else."""
        if getattr(tool, "stores_arguments", False) or getattr(tool, "name", "") in STORING_TOOLS:
            masked: dict[str, Any] = self._masker.mask_data(arguments)
            return masked
        return arguments

    async def redact(self, kin_id: str, message_id: int, redacted_text: str) -> Redacted:
        """Replace a message of Kin ``kin_id`` by ``redacted_text`` (where a secret it held
        is now a placeholder), leaving no copy of the old text in the database file.
        Raises ``RedactionError`` (see ``kinbot_core.vault.redaction``)."""
        done = await redact_message(self._db, kin_id, message_id, redacted_text, self._masker)
        pending = done.redaction_pending
        self._live.rewrite_message(message_id, done.content, redaction_pending=pending)
        self._live.publish(
            "message.redacted",
            {
                "kin_id": kin_id,
                "id": message_id,
                "content": done.content,
                "redaction_pending": pending,
            },
        )
        self._bus.emit(MessageRedacted(kin_id=kin_id, message_id=str(message_id)))
        logger.info("message %s of Kin %s redacted", message_id, kin_id)
        return done

    async def screen(self, message: MessageView) -> MessageView:
        """``message`` (the one starting a turn) with every vault value it holds replaced by
        its placeholder, in the database too (a redaction), before anything else reads it:
        someone pasted a secret the vault already keeps."""
        masked = self._masker.mask(message.content)
        if masked == message.content:
            return message
        await self.redact(message.kin_id, message.id, masked)
        return replace(message, content=masked)

    def masker(self) -> Masker:
        """The masker of the current values (a new one after every change)."""
        return self._masker

    def keys(self) -> list[str]:
        """The names of the secrets, sorted."""
        return sorted(self._values)

    # -- internals -------------------------------------------------------------------------

    def _refresh(self) -> None:
        self._masker = Masker(self._values, self._retired)
        self._scrubber.update(self._masker)

    def _box(self) -> SecretBox:
        return SecretBox(self._master_key())

    @staticmethod
    def _open(box: SecretBox, row: VaultSecretRecord) -> str:
        return box.open(bytes(row.value_sealed), sealing_context(row.id)).decode()


def _row(key: str) -> VaultSecretRecord:
    try:
        row: VaultSecretRecord = VaultSecretRecord.get(VaultSecretRecord.key == key)
    except peewee.DoesNotExist:
        raise SecretNotFound(f"There is no secret named {key}.") from None
    return row
