"""What an incoming message becomes before it is stored: the text safe to store, show and
broadcast, and what to keep aside (sealed secrets). The Vault makes it
(``kinbot_core.vault.arrival``); the Kin service stores it (``KinService.enqueue``)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol


@dataclass(frozen=True)
class Screened:
    """An incoming text after screening."""

    #: The text to store: vault values and detected secrets replaced by placeholders.
    content: str
    #: Stores what was set aside for the message, given its id; runs on the database's writer
    #: thread, in the transaction that inserts the message. ``None``: nothing was detected.
    keep: Callable[[int], None] | None = None

    @property
    def redaction_pending(self) -> bool:
        """Whether secrets were detected (and wait for a Kin or a member)."""
        return self.keep is not None


class Screen(Protocol):
    """How the Kin service screens an incoming text: vault values are always masked; other
    secrets are looked for (``detect``) in what a person wrote."""

    async def __call__(self, text: str, *, detect: bool) -> Screened: ...


#: Sources of messages that no person wrote: Kins, tasks, crons, the platform.
AUTOMATIC_SOURCES = frozenset({"kin", "task", "cron", "system"})
