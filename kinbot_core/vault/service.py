"""The Vault: named secrets encrypted at rest, read by Kins on demand, masked everywhere else.

Administrators create, change and delete secrets (``administration.py``); no method returns
a value except ``read_value`` (the ``get_secret`` tool, ``revealing.py``). The values are
also kept decrypted in memory, for one purpose: masking them (``masker``) in what Kins
write, in stored tool results and in log records (the ``LogScrubber`` installed while the
vault is open).
"""

from __future__ import annotations

import asyncio
import logging
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from kinbot_core.crypto import DecryptionError, SecretBox
from kinbot_core.db import Database
from kinbot_core.events import EventBus
from kinbot_core.kins.service import MessageView
from kinbot_core.live import LiveFeed
from kinbot_core.vault import masking
from kinbot_core.vault.administration import SecretAdministration
from kinbot_core.vault.events import VAULT_EVENTS, MessageRedacted
from kinbot_core.vault.masking import LogScrubber, Masker
from kinbot_core.vault.pending import PendingSecrets
from kinbot_core.vault.records import VaultSecretRecord, sealing_context
from kinbot_core.vault.redaction import Redacted, redact_message
from kinbot_core.vault.revealing import SecretRevealing

logger = logging.getLogger(__name__)

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


class VaultService(SecretAdministration, SecretRevealing):
    """The platform's vault (``platform.vault``)."""

    def __init__(
        self, db: Database, bus: EventBus, live: LiveFeed, master_key: Callable[[], bytes]
    ) -> None:
        self._db = db
        self._bus = bus
        self._live = live
        self._master_key = master_key
        self._values: dict[str, str] = {}
        #: Secrets whose sealed value this master key cannot open (a backup restored without
        #: its key): listed as unreadable, kept as they are until replaced or deleted.
        self._unreadable: set[str] = set()
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
        """Load (decrypt) the values for masking and start scrubbing log records.

        A value this master key cannot open (a backup restored without ``secret.key``) does
        not stop the start: the secret is listed as unreadable (``unreadable()``) and its
        sealed value kept, so that putting the original key back opens it again."""
        rows = await self._db.read(lambda: list(VaultSecretRecord.select()))
        box = self._box()
        self._values, self._unreadable = {}, set()
        for row in rows:
            try:
                self._values[row.key] = self._open(box, row)
            except DecryptionError:
                self._unreadable.add(row.key)
        if self._unreadable:
            logger.warning(
                "the Vault holds %d secret(s) this master key cannot open (a backup restored "
                "without its secret.key?): stop KinBot and copy the original secret.key into "
                "the data directory (or set KINBOT_SECRET_KEY to its passphrase) to open them, "
                "or enter their values again in Settings, Vault",
                len(self._unreadable),
            )
        self._refresh()
        masking.install(self._scrubber)

    def close(self) -> None:
        """Stop scrubbing log records and forget the values."""
        masking.uninstall(self._scrubber)
        self._values, self._retired = {}, []
        self._refresh()

    # -- Kins ------------------------------------------------------------------------------

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
        """The names of the secrets whose value can be read, sorted."""
        return sorted(self._values)

    def unreadable(self) -> list[str]:
        """The names of the secrets this master key cannot open, sorted."""
        return sorted(self._unreadable)

    # -- internals -------------------------------------------------------------------------

    def _refresh(self) -> None:
        self._masker = Masker(self._values, self._retired)
        self._scrubber.update(self._masker)

    def _box(self) -> SecretBox:
        return SecretBox(self._master_key())

    @staticmethod
    def _open(box: SecretBox, row: VaultSecretRecord) -> str:
        return box.open(bytes(row.value_sealed), sealing_context(row.id)).decode()
