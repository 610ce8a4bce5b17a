"""What Kins read of the Vault: a value, through ``get_secret``; and, for the rest of that
turn, the value shown to the model in place of its placeholder (``reveal``)."""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from kinbot_core.crypto import DecryptionError, SecretBox
from kinbot_core.db import Database
from kinbot_core.events import EventBus
from kinbot_core.vault.events import VaultSecretRead
from kinbot_core.vault.masking import placeholder
from kinbot_core.vault.records import VaultSecretRecord
from kinbot_core.vault.rules import valid_key
from kinbot_core.vault.views import SecretUnreadable, secret_row

#: Turns whose revealed keys are remembered (a turn that never ended cannot grow the map).
_REVEALED_TURNS = 1024


class SecretRevealing:
    """The Kins' reading of ``VaultService``, which mixes it in and holds what it uses."""

    _db: Database
    _bus: EventBus
    _values: dict[str, str]
    _revealed: OrderedDict[int, set[str]]

    if TYPE_CHECKING:

        def _box(self) -> SecretBox: ...

        @staticmethod
        def _open(box: SecretBox, row: VaultSecretRecord) -> str: ...

    async def read_value(self, key: str, *, kin_id: str, turn: int | None) -> str:
        """The value of ``key`` for a Kin's ``get_secret`` call during ``turn`` (the id of the
        message that started it); within that turn, its placeholder in tool results is shown
        to the model as the value (``reveal``)."""
        key = valid_key(key)
        now = time.time()

        def touch() -> VaultSecretRecord:
            row = secret_row(key)
            VaultSecretRecord.update(last_used_at=now).where(
                VaultSecretRecord.id == row.id
            ).execute()
            return row

        row = await self._db.read(secret_row, key)
        try:
            value = self._open(self._box(), row)
        except DecryptionError:
            raise SecretUnreadable(
                f"The secret {key} cannot be opened: it was sealed under another master key "
                "(an administrator must enter its value again)."
            ) from None
        await self._db.write(touch)
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
