"""Taking a secret out of a stored message (``redact_message``), leaving no copy in the file.

The message's text is replaced in one write transaction. The same transaction rewrites the
full-text index: its triggers record the old text's terms as deleted, and ``optimize`` merges
the index segments so those terms are dropped, not just marked. The connection's
``secure_delete`` zeroes what the transaction frees, and a truncating checkpoint afterwards
empties the write-ahead log, which still holds the old pages. The history embedding queue
picks the message up again (its trigger) and its vector is recomputed from the new text.
"""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import dataclass

from kinbot_core.compacting.records import CompactingSnapshot
from kinbot_core.db import Database
from kinbot_core.db.models import MemoryRecord, MessageRecord
from kinbot_core.vault.arrival import settle
from kinbot_core.vault.masking import PLACEHOLDER_PATTERN, Masker

logger = logging.getLogger(__name__)

CHECKPOINT_ATTEMPTS = 5
MAX_REDACTED_LENGTH = 100_000


class RedactionError(Exception):
    """The redaction cannot be done; the message says why (never quoting the text)."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


@dataclass(frozen=True)
class Redacted:
    """A message after its redaction."""

    message_id: int
    kin_id: str
    content: str
    redacted_at: float
    #: The active summary was made from the old text (it may quote the secret).
    in_summary: bool = False
    #: Memories extracted from the old text (they may quote the secret).
    memory_ids: tuple[int, ...] = ()
    #: Secrets detected on arrival still hidden in it, waiting for a Kin or a member.
    redaction_pending: bool = False


def check_redacted_text(text: str) -> str:
    """``text`` if it can replace a message: it must mark the secret with a placeholder."""
    if not isinstance(text, str) or not text.strip():
        raise RedactionError("redacted_text is required and cannot be empty.")
    if len(text) > MAX_REDACTED_LENGTH:
        raise RedactionError(f"redacted_text is at most {MAX_REDACTED_LENGTH} characters.")
    if not PLACEHOLDER_PATTERN.search(text):
        raise RedactionError(
            "redacted_text must be the message with each secret replaced by a placeholder "
            "such as [SECRET: GITHUB_TOKEN]."
        )
    return text


def redact(db: Database, kin_id: str, message_id: int, text: str, masker: Masker) -> Redacted:
    """Replace the text of message ``message_id`` of Kin ``kin_id`` (inside ``db.write``).

    Any vault value left in ``text`` is masked too. Raises ``RedactionError`` when the Kin has
    no such message or nothing would change.
    """
    row = MessageRecord.get_or_none(
        (MessageRecord.id == message_id) & (MessageRecord.kin == kin_id)
    )
    if row is None:
        raise RedactionError(f"There is no message {message_id} in this session.")
    content = masker.mask(text)
    if content == row.content:
        raise RedactionError("redacted_text is the message as it is: nothing to redact.")
    now = time.time()
    # Secrets detected on arrival and still pending keep the message flagged.
    pending = settle(message_id, content)
    MessageRecord.update(content=content, redaction_pending=pending).where(
        MessageRecord.id == message_id
    ).execute()
    db.sql("insert into message_fts (message_fts) values ('optimize')")
    summarised = row.position is not None and (
        CompactingSnapshot.select()
        .where(
            (CompactingSnapshot.kin == kin_id)
            & CompactingSnapshot.active
            & (CompactingSnapshot.through_position >= row.position)
            & (CompactingSnapshot.summary != "")
        )
        .exists()
    )
    memories = MemoryRecord.select(MemoryRecord.id).where(
        (MemoryRecord.kin == kin_id) & (MemoryRecord.source_message_id == message_id)
    )
    return Redacted(
        message_id=message_id,
        kin_id=kin_id,
        content=content,
        redacted_at=now,
        in_summary=bool(summarised),
        memory_ids=tuple(memory.id for memory in memories),
        redaction_pending=pending,
    )


async def redact_message(
    db: Database, kin_id: str, message_id: int, text: str, masker: Masker
) -> Redacted:
    """Redact, then empty the write-ahead log (see the module's description)."""
    text = check_redacted_text(text)
    done = await db.write(redact, db, kin_id, message_id, text, masker)
    for attempt in range(CHECKPOINT_ATTEMPTS):
        if await db.checkpoint():
            break
        await asyncio.sleep(0.05 * (attempt + 1))  # a reader still uses the old pages
    else:
        logger.warning("the write-ahead log could not be emptied after a redaction yet")
    return done
