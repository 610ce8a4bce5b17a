"""Provider calls a person's request makes for a Kin (a search of its history or memories,
its avatar drawn) count against that Kin and that person, as their turns do."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from kinbot_core.usage import UsageFor
from kinbot_core.usage.attribution import attributed
from kinbot_web.auth import current_user


@contextmanager
def asked_by_person(kin_id: str) -> Iterator[UsageFor]:
    """Attribute the calls made inside the block to ``kin_id`` and the signed-in person."""
    with attributed(kin_id, origin="user", user_id=current_user().id) as who:
        yield who
