"""Inter-Kin messaging (specification section 6): a Kin sends another Kin a request or an
inform, and answers a request with a reply, each placed in the recipient's queue.

The guards against loops: a reply is always an inform and only answers an open request
addressed to the replying Kin (so an inform can never be answered); a per-sender-per-recipient
rate limit over a sliding window; and a chain depth carried from message to message (a message
sent during a turn started by a message of depth ``d`` has depth ``d + 1``) refused past
``inter_kin_max_chain_depth``. Requests are stored, so an open one survives a restart.
"""

from __future__ import annotations

import time
import uuid
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from kinbot_core.accounts.rate_limit import SlidingWindowLimiter
from kinbot_core.db.models import KinRequestRecord, MessageRecord
from kinbot_core.events.catalogue import KinMessageRefused, KinMessageToKin
from kinbot_core.kins.access import shown_in
from kinbot_core.kins.service import KinNotFound

if TYPE_CHECKING:
    from kinbot_core.platform import Platform

MESSAGE_TYPES = ("request", "inform")


class MessagingError(Exception):
    """A message that cannot be sent; the message says why, in words for the model."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


@dataclass(frozen=True)
class Sent:
    """A message placed in another Kin's queue."""

    message_id: int
    to_kin_id: str
    type: str
    request_id: str | None
    chain_depth: int

    def to_dict(self) -> dict[str, Any]:
        result: dict[str, Any] = {"status": "sent", "to_kin_id": self.to_kin_id, "type": self.type}
        if self.request_id:
            result["request_id"] = self.request_id
        return result


class InterKinMessaging:
    """Sends messages between the Kins of one platform, under the guards."""

    def __init__(self, platform: Platform) -> None:
        self._platform = platform
        settings = platform.settings
        self._limiter = SlidingWindowLimiter(
            settings.inter_kin_rate_limit, settings.inter_kin_rate_window_seconds
        )

    async def send(
        self,
        sender_id: str,
        sender_name: str,
        to_kin_id: str,
        message: str,
        type: str,
        *,
        trigger_id: int | None,
    ) -> Sent:
        """Place ``message`` in ``to_kin_id``'s queue; a ``request`` opens a request whose id
        comes back in the result."""
        if type not in MESSAGE_TYPES:
            raise MessagingError(f'\'type\' must be "request" or "inform", not {type!r}.')
        if not message.strip():
            raise MessagingError("The message is empty.")
        if to_kin_id == sender_id:
            raise MessagingError("You cannot send a message to yourself.")
        try:
            await self._platform.kins.get(to_kin_id)
        except KinNotFound as exc:
            raise MessagingError(
                f"There is no Kin with id {to_kin_id!r}. Use list_kins to find a Kin's id."
            ) from exc
        self._check_access(sender_id, to_kin_id, answerable=type == "request")
        depth = await self._next_depth(sender_id, to_kin_id, trigger_id)
        self._check_rate(sender_id, to_kin_id)
        request_id = f"req_{uuid.uuid4().hex}" if type == "request" else None
        if request_id:
            await self._platform.db.write(
                lambda: KinRequestRecord.create(
                    id=request_id,
                    from_kin=sender_id,
                    to_kin=to_kin_id,
                    status="open",
                    chain_depth=depth,
                    created_at=time.time(),
                )
            )
        return await self._deliver(
            sender_id, sender_name, to_kin_id, message, type, request_id, depth
        )

    async def reply(
        self,
        sender_id: str,
        sender_name: str,
        request_id: str,
        message: str,
        *,
        trigger_id: int | None,
    ) -> Sent:
        """Answer an open request addressed to ``sender_id``: an inform, correlated by
        ``request_id``, placed in the requester's queue. A request is answered once."""
        if not message.strip():
            raise MessagingError("The message is empty.")
        now = time.time()

        def close() -> KinRequestRecord | None:
            taken = list(
                KinRequestRecord.update(status="answered", answered_at=now)
                .where(
                    (KinRequestRecord.id == request_id)
                    & (KinRequestRecord.to_kin == sender_id)
                    & (KinRequestRecord.status == "open")
                )
                .returning(KinRequestRecord)
                .execute()
            )
            return taken[0] if taken else None

        request = await self._platform.db.write(close)
        if request is None:
            raise MessagingError(await self._why_not_answerable(sender_id, request_id))
        requester = _id_of(request, "from_kin")
        try:
            self._check_access(sender_id, requester, answerable=False)
            self._check_rate(sender_id, requester)
            # A reply closes an exchange and opens nothing: it is not refused for its depth.
            depth = await self._trigger_depth(trigger_id) + 1
            return await self._deliver(
                sender_id, sender_name, requester, message, "inform", request_id, depth
            )
        except BaseException:
            await self._platform.db.write(
                lambda: (
                    KinRequestRecord.update(status="open", answered_at=None)
                    .where(KinRequestRecord.id == request_id)
                    .execute()
                )
            )
            raise

    # -- guards ------------------------------------------------------------------------------

    async def _trigger_depth(self, trigger_id: int | None) -> int:
        if trigger_id is None:
            return 0
        depth = await self._platform.db.read(
            lambda: (
                MessageRecord.select(MessageRecord.chain_depth)
                .where(MessageRecord.id == trigger_id)
                .scalar()
            )
        )
        return int(depth or 0)

    async def _next_depth(self, sender_id: str, to_kin_id: str, trigger_id: int | None) -> int:
        depth = await self._trigger_depth(trigger_id) + 1
        limit = self._platform.settings.inter_kin_max_chain_depth
        if depth > limit:
            self._platform.bus.emit(
                KinMessageRefused(kin_id=sender_id, to_kin_id=to_kin_id, reason="chain_depth")
            )
            raise MessagingError(
                f"Refused: this exchange between Kins has reached its maximum depth ({limit} "
                "messages in a row). Stop the chain here and finish your turn without "
                "messaging other Kins."
            )
        return depth

    def _check_access(self, sender_id: str, to_kin_id: str, *, answerable: bool) -> None:
        """A restricted Kin's words must not reach people who may not use it through the
        recipient's session (nor the answer to a request come back the other way)."""
        platform = self._platform
        if not shown_in(platform, to_kin_id, sender_id) or (
            answerable and not shown_in(platform, sender_id, to_kin_id)
        ):
            raise MessagingError(
                "Refused: this Kin and that one are not used by the same people, so what one "
                "says cannot be shown in the other's conversation."
            )

    def _check_rate(self, sender_id: str, to_kin_id: str) -> None:
        key = f"{sender_id}>{to_kin_id}"
        wait = self._limiter.retry_after(key)
        if wait is not None:
            self._platform.bus.emit(
                KinMessageRefused(kin_id=sender_id, to_kin_id=to_kin_id, reason="rate_limit")
            )
            raise MessagingError(
                f"Refused: you may send at most {self._limiter.limit} messages to this Kin "
                f"every {self._limiter.window:g} seconds; try again in {wait:.0f} seconds."
            )
        self._limiter.hit(key)

    async def _why_not_answerable(self, sender_id: str, request_id: str) -> str:
        row = await self._platform.db.read(
            lambda: KinRequestRecord.get_or_none(KinRequestRecord.id == request_id)
        )
        if row is None or _id_of(row, "to_kin") != sender_id:
            return (
                f"There is no request {request_id!r} addressed to you: reply only answers a "
                "request another Kin sent you (an inform or a reply gets no answer)."
            )
        return f"The request {request_id!r} was already answered."

    # -- delivery ----------------------------------------------------------------------------

    async def _deliver(
        self,
        sender_id: str,
        sender_name: str,
        to_kin_id: str,
        message: str,
        type: str,
        request_id: str | None,
        depth: int,
    ) -> Sent:
        try:
            view = await self._platform.kins.enqueue(
                to_kin_id,
                message,
                source="kin",
                sender_id=sender_id,
                sender_name=sender_name,
                kin_message_type=type,
                request_id=request_id,
                chain_depth=depth,
            )
        except KinNotFound as exc:
            raise MessagingError(f"There is no Kin with id {to_kin_id!r}.") from exc
        sent = Sent(view.id, to_kin_id, type, request_id, depth)
        self._platform.bus.emit(
            KinMessageToKin(
                kin_id=sender_id,
                to_kin_id=to_kin_id,
                message_id=str(view.id),
                kind=type,
                request_id=request_id,
                chain_depth=depth,
            )
        )
        self._platform.live.publish(
            "kin.message.to_kin",
            {
                "kin_id": sender_id,
                "to_kin_id": to_kin_id,
                "message_id": view.id,
                "type": type,
                "request_id": request_id,
                "chain_depth": depth,
            },
        )
        return sent


def _id_of(row: KinRequestRecord, field: str) -> str:
    """A Kin id a request row holds, without loading the Kin."""
    kin_id: str = row.__data__[field]
    return kin_id
