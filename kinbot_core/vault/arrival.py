"""Screening of incoming messages, before anything stores, returns or broadcasts them.

Vault values are replaced by their placeholder (``[SECRET: KEY]``). Then the detector
(``kinbot_core.vault.detection``) looks for other credentials: each distinct value found is
replaced by ``[PENDING SECRET <n>]`` and sealed under the master key, to be kept in
``pending_secret`` with the message, which is flagged ``redaction_pending``. The value never
reaches the database file in clear, nor a browser, nor a prompt: a Kin can move it into the
Vault without seeing it (``store_secret``), a member can say it is not a secret (the text is
then restored).
"""

from __future__ import annotations

import re
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass

from kinbot_core.crypto import SecretBox
from kinbot_core.kins.screening import Screened
from kinbot_core.vault.detection import find_secrets
from kinbot_core.vault.masking import PLACEHOLDER_PATTERN, Masker
from kinbot_core.vault.records import PendingSecretRecord, pending_sealing_context

#: How a message's text marks a detected secret waiting for a Kin or a member.
PENDING_PATTERN = re.compile(r"\[PENDING SECRET (\d+)\]")


def pending_placeholder(number: int) -> str:
    """What stands in for the detected secret ``number`` of a message."""
    return f"[PENDING SECRET {number}]"


@dataclass(frozen=True)
class SealedFinding:
    """A detected secret, sealed, ready to be stored with its message."""

    id: str
    number: int
    kind: str
    sealed: bytes


def screen_text(text: str, masker: Masker, box: Callable[[], SecretBox]) -> Screened:
    """``text`` with vault values masked and detected secrets replaced by numbered
    placeholders, their values sealed, to be kept with the message (``box`` makes the box
    that seals them; it is called only when a secret was found)."""
    content, sealed = hide_secrets(text, masker, box)
    if not sealed:
        return Screened(content)
    return Screened(content, keep=lambda message_id: _keep(message_id, sealed))


def hide_secrets(
    text: str, masker: Masker, box: Callable[[], SecretBox]
) -> tuple[str, list[SealedFinding]]:
    """``text`` with vault values masked and each detected secret replaced by a numbered
    placeholder (the same value always by the same one), and those values sealed in the
    box ``box`` makes (when there are some: the master key is read only then)."""
    masked = masker.mask(text)
    known = [m.span() for m in PLACEHOLDER_PATTERN.finditer(masked)]
    # A vault placeholder is no secret (even after "password is").
    findings = [
        f
        for f in find_secrets(masked)
        if not any(f.start < end and start < f.end for start, end in known)
    ]
    numbers: dict[str, int] = {}
    kinds: dict[str, str] = {}
    pieces: list[str] = []
    done = 0
    for finding in findings:
        value = masked[finding.start : finding.end]
        number = numbers.setdefault(value, len(numbers) + 1)
        kinds.setdefault(value, finding.kind)
        pieces += [masked[done : finding.start], pending_placeholder(number)]
        done = finding.end
    pieces.append(masked[done:])
    if not numbers:
        return "".join(pieces), []
    sealing, sealed = box(), []
    for value, number in numbers.items():
        pending_id = uuid.uuid4().hex
        seal = sealing.seal(value.encode(), pending_sealing_context(pending_id))
        sealed.append(SealedFinding(pending_id, number, kinds[value], seal))
    return "".join(pieces), sealed


def _keep(message_id: int, sealed: list[SealedFinding]) -> None:
    now = time.time()
    for finding in sealed:
        PendingSecretRecord.create(
            id=finding.id,
            message_id=message_id,
            number=finding.number,
            kind=finding.kind,
            value_sealed=finding.sealed,
            created_at=now,
        )


def settle(message_id: int, content: str) -> bool:
    """After the text of message ``message_id`` became ``content`` (on the writer thread):
    forget the pending secrets whose placeholder it no longer holds, and say whether some
    remain (the message's ``redaction_pending``)."""
    numbers = {int(number) for number in PENDING_PATTERN.findall(content)}
    rows = PendingSecretRecord.select(PendingSecretRecord.id, PendingSecretRecord.number).where(
        PendingSecretRecord.message_id == message_id
    )
    gone = [row.id for row in rows if row.number not in numbers]
    if gone:
        PendingSecretRecord.delete().where(PendingSecretRecord.id.in_(gone)).execute()
    return PendingSecretRecord.select().where(PendingSecretRecord.message_id == message_id).exists()
