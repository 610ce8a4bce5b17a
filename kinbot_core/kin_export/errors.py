"""The error an unacceptable Kin archive gets: a stable ``code`` and ``params`` for the
interface, an English ``message`` for API clients, and the HTTP status to answer with."""

from __future__ import annotations

from typing import Any


class KinArchiveError(Exception):
    """A Kin file that cannot be imported (or a Kin that cannot be exported); never a 500."""

    code = "kin_archive_invalid"
    status = 400

    def __init__(
        self,
        message: str,
        *,
        code: str | None = None,
        status: int | None = None,
        params: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        if code is not None:
            self.code = code
        if status is not None:
            self.status = status
        self.params: dict[str, Any] = dict(params or {})
