"""The inbox of one running connection: what becomes of each message it receives.

In order: the loop guard (a bot, or the connection's own message, is never answered), the
group rule (only messages addressed to the bot), who is speaking (an unknown sender of a
direct chat gets a pairing code and reaches no Kin), the ``/kin`` command (which Kin the chat
talks to: ``kin_choice``), then storage exactly once: the message
goes into its Kin's queue in one transaction with its idempotency key, the platform position
(cursor) and the record of the reply it awaits, so a crash at any point either stored all of
it or none of it, and the same platform message is never stored twice.
"""

from __future__ import annotations

import logging
import time
from typing import TYPE_CHECKING, Any

from kinbot_core.channels import kin_choice
from kinbot_core.channels.identity_records import Linked
from kinbot_core.channels.notices import kins_text, pairing_text, switched_text
from kinbot_core.channels.types import DeliverOutcome, IncomingMedia, IncomingMessage
from kinbot_core.db.models import (
    ChannelConnectionRecord,
    ChannelDeliveryRecord,
    ChannelInboundRecord,
)
from kinbot_core.kins.access import user_may_use_now
from kinbot_core.kins.service import KinError
from kinbot_core.upload_content import UploadError
from kinbot_core.uploads import MAX_ATTACHMENTS, UploadStore

if TYPE_CHECKING:
    from kinbot_core.channels.runtime import ChannelRuntime

logger = logging.getLogger(__name__)


class AlreadyStored(Exception):
    """Raised inside the storing transaction: this platform message was taken in before."""


class ConnectionInbox:
    """Implements ``kinbot_core.channels.Inbox`` for one connection."""

    def __init__(
        self,
        runtime: ChannelRuntime,
        connection_id: str,
        type_name: str,
        label: str,
        cursor: str | None,
    ) -> None:
        self._runtime = runtime
        self._connection_id = connection_id
        self._type_name = type_name
        self._label = label
        self._cursor = cursor

    @property
    def connection_id(self) -> str:
        return self._connection_id

    @property
    def cursor(self) -> str | None:
        return self._cursor

    def connected(self) -> None:
        self._runtime.note_working(self._connection_id)

    async def advance(self, cursor: str) -> None:
        if cursor == self._cursor:
            return
        connection_id = self._connection_id
        await self._runtime.platform.db.write(
            lambda: (
                ChannelConnectionRecord.update(cursor=cursor)
                .where(ChannelConnectionRecord.id == connection_id)
                .execute()
            )
        )
        self._cursor = cursor

    async def deliver(self, message: IncomingMessage) -> DeliverOutcome:
        sender = message.sender
        if sender.is_self or sender.is_bot:
            return await self._skipped(message, "ignored")
        if message.chat_kind == "group" and not message.addressed:
            return await self._skipped(message, "ignored")
        identities = self._runtime.identities
        linked = await identities.lookup(self._connection_id, sender.id)
        if linked is None:
            if message.chat_kind == "direct":
                await self._offer_pairing(message)
            # In a group the code would be read by others, who could claim the account.
            return await self._skipped(message, "pairing")
        is_command, name = kin_choice.command_of(message.text)
        if is_command and linked.contact_kin_id is None:
            await self._choose_kin(message, name, linked.user_id)
            return await self._skipped(message, "ignored")
        kin_id = await self._kin_for(linked, message.chat_id)
        if kin_id is None:
            return await self._skipped(message, "ignored")
        if await self._seen(message.message_id):
            return await self._skipped(message, "duplicate")
        outcome = await self._store(message, linked, kin_id)
        if outcome == "stored":
            if message.chat_kind == "direct":
                await identities.remember_chat(linked.identity_id, message.chat_id)
            self._runtime.show_typing(self._connection_id, message.chat_id)
        return outcome

    async def _skipped(self, message: IncomingMessage, outcome: DeliverOutcome) -> DeliverOutcome:
        if message.cursor is not None:
            await self.advance(message.cursor)
        return outcome

    async def _offer_pairing(self, message: IncomingMessage) -> None:
        sender = message.sender
        pairing = await self._runtime.identities.start_pairing(
            self._connection_id, sender.id, sender.display_name, message.chat_id, sender.language
        )
        if pairing is None:
            return
        ttl = self._runtime.platform.settings.channel_pairing_code_ttl_seconds
        # Sent at once and never stored: the code is kept only as a hash.
        self._runtime.send_now(
            self._connection_id, message.chat_id, pairing_text(pairing.code, ttl, pairing.language)
        )

    async def _kin_for(self, linked: Linked, chat_id: str) -> str | None:
        """The Kin the message goes to: a contact's own Kin (if this connection talks to
        it), else the Kin the chat chose, else the first Kin the connection talks to."""
        connection_id = self._connection_id

        platform = self._runtime.platform

        def pick() -> str | None:
            kins = [kin.id for kin in kin_choice.bound_kins(connection_id)]
            kins = [k for k in kins if user_may_use_now(platform, linked.user_id, k)]
            if linked.contact_kin_id is not None:
                return linked.contact_kin_id if linked.contact_kin_id in kins else None
            chosen = kin_choice.chosen_kin(connection_id, chat_id)
            if chosen in kins:
                return chosen
            return kins[0] if kins else None

        found: str | None = await self._runtime.platform.db.read(pick)
        return found

    async def _choose_kin(
        self, message: IncomingMessage, name: str | None, user_id: str | None
    ) -> None:
        """Answer ``/kin`` (which Kins this chat may talk to) or ``/kin <name>`` (switch),
        among the Kins the person may use."""
        connection_id = self._connection_id
        platform = self._runtime.platform
        db = platform.db
        kins = await db.read(kin_choice.bound_kins, connection_id)
        kins = [kin for kin in kins if user_may_use_now(platform, user_id, kin.id)]
        if not kins:
            return
        language = message.sender.language
        picked = kin_choice.matching(kins, name) if name else None
        if picked is not None:
            await db.write(kin_choice.choose, connection_id, message.chat_id, picked.id)
            text = switched_text(picked.name, language)
        else:
            chosen = await db.read(kin_choice.chosen_kin, connection_id, message.chat_id)
            current = next((kin for kin in kins if kin.id == chosen), kins[0])
            others = [kin.name for kin in kins if kin.id != current.id]
            text = kins_text(current.name, others, language)
        self._runtime.send_now(connection_id, message.chat_id, text)

    async def _seen(self, platform_message_id: str) -> bool:
        connection_id = self._connection_id
        seen: bool = await self._runtime.platform.db.read(
            lambda: (
                ChannelInboundRecord.select()
                .where(
                    (ChannelInboundRecord.connection == connection_id)
                    & (ChannelInboundRecord.platform_message_id == platform_message_id)
                )
                .exists()
            )
        )
        return seen

    async def _store(self, message: IncomingMessage, linked: Linked, kin_id: str) -> DeliverOutcome:
        attachments, notes = await self._uploads(kin_id, linked.user_id, message.media)
        text = "\n\n".join(part for part in (message.text.strip(), *notes) if part)
        connection_id = self._connection_id

        def guard() -> None:
            if (
                ChannelInboundRecord.select()
                .where(
                    (ChannelInboundRecord.connection == connection_id)
                    & (ChannelInboundRecord.platform_message_id == message.message_id)
                )
                .exists()
            ):
                raise AlreadyStored(message.message_id)
            if message.cursor is not None:
                ChannelConnectionRecord.update(cursor=message.cursor).where(
                    ChannelConnectionRecord.id == connection_id
                ).execute()

        def stored(message_id: int) -> None:
            now = time.time()
            ChannelInboundRecord.create(
                connection=connection_id,
                platform_message_id=message.message_id,
                message=message_id,
                created_at=now,
            )
            ChannelDeliveryRecord.create(
                connection=connection_id,
                chat_id=message.chat_id,
                kin=kin_id,
                trigger=message_id,
                reply_to=message.message_id,
                status="awaiting",
                created_at=now,
                updated_at=now,
            )

        origin: dict[str, Any] = {"kind": self._type_name, "label": self._label}
        try:
            await self._runtime.platform.kins.enqueue(
                kin_id,
                text,
                source="user",
                sender_id=linked.user_id,
                sender_name=linked.name,
                attachments=attachments or None,
                meta={"origin": origin},
                guard=guard,
                stored=stored,
            )
        except AlreadyStored:
            return await self._skipped(message, "duplicate")
        except KinError as error:  # nothing to store (a sticker alone), or the Kin is gone
            logger.info("channel %s: message not stored: %s", connection_id, error)
            return await self._skipped(message, "ignored")
        if message.cursor is not None:
            self._cursor = message.cursor
        return "stored"

    async def _uploads(
        self, kin_id: str, user_id: str | None, media: Any
    ) -> tuple[list[dict[str, Any]], list[str]]:
        """The message's files as uploads into the Kin's chat, and a note for each file
        that could not be kept (the Kin is told, the person sees it in the chat)."""
        platform = self._runtime.platform
        store = UploadStore(platform.db, platform.settings)
        references: list[dict[str, Any]] = []
        notes: list[str] = []
        item: IncomingMedia
        for item in list(media)[:MAX_ATTACHMENTS]:
            try:
                upload = await store.save(kin_id, user_id, item.filename, item.data)
            except UploadError as error:
                notes.append(f"[{item.filename} could not be kept: {error.message}]")
                continue
            references.append(upload.reference())
        return references, notes
