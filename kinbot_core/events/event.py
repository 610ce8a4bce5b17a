"""The base class of every event published on the bus."""

from __future__ import annotations

import dataclasses
import time
import uuid
from dataclasses import dataclass, field
from typing import Any, ClassVar


@dataclass(frozen=True, kw_only=True)
class Event:
    """Something that happened. Subclasses set ``type`` and declare their payload as fields.

    Payload fields carry identifiers and short descriptions, never secrets or message bodies
    a subscriber was not allowed to see.
    """

    type: ClassVar[str] = ""
    #: One-line description used by the catalogue documentation.
    description: ClassVar[str] = ""

    id: str = field(default_factory=lambda: uuid.uuid4().hex)
    occurred_at: float = field(default_factory=time.time)

    def payload(self) -> dict[str, Any]:
        """The event's own fields (everything but ``id`` and ``occurred_at``)."""
        return {
            f.name: getattr(self, f.name)
            for f in dataclasses.fields(self)
            if f.name not in ("id", "occurred_at")
        }

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready view of the event."""
        return {
            "id": self.id,
            "type": self.type,
            "occurred_at": self.occurred_at,
            "payload": self.payload(),
        }
