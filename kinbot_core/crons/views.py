"""What a cron is, as the service, the scheduler, the tools and the API see it, and the
errors of cron requests."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Literal

from kinbot_core.crons.records import CronRecord, id_of


class CronError(Exception):
    """A cron request that cannot be done; ``message`` says why (for a user or a model)."""

    status = 400
    code = "cron_invalid"

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class CronNotFound(CronError):
    status = 404
    code = "not_found"

    @classmethod
    def of(cls, cron_id: str) -> CronNotFound:
        """The answer for a cron id that names no cron (or one the person may not see)."""
        return cls(f"There is no cron with id {cron_id!r}.")


class CronForbidden(CronError):
    status = 403
    code = "forbidden"


class CronConflict(CronError):
    status = 409
    code = "conflict"


class CronLimitReached(CronError):
    status = 409
    code = "cron_limit"


@dataclass(frozen=True)
class Author:
    """Who asks: a signed-in user, or a Kin through its tools."""

    kind: Literal["user", "kin"]
    id: str


@dataclass(frozen=True)
class CronView:
    """A cron as the API, the tools and the scheduler see it."""

    id: str
    kin_id: str
    name: str
    schedule: str
    timezone: str | None
    task_description: str
    model: str | None
    active: bool
    needs_confirmation: bool
    confirmed_by: str | None
    confirmed_at: float | None
    created_by_user_id: str | None
    created_by_kin_id: str | None
    activated_at: float | None
    last_scheduled_for: float | None
    last_run_at: float | None
    last_run_status: str | None
    last_task_id: str | None
    last_skip_at: float | None
    last_skip_reason: str | None
    created_at: float
    updated_at: float

    @classmethod
    def of(cls, row: CronRecord) -> CronView:
        return cls(
            id=row.id,
            kin_id=id_of(row, "kin") or "",
            name=row.name,
            schedule=row.schedule,
            timezone=row.timezone,
            task_description=row.task_description,
            model=row.model,
            active=bool(row.active),
            needs_confirmation=bool(row.needs_confirmation),
            confirmed_by=id_of(row, "confirmed_by"),
            confirmed_at=row.confirmed_at,
            created_by_user_id=id_of(row, "created_by_user"),
            created_by_kin_id=id_of(row, "created_by_kin"),
            activated_at=row.activated_at,
            last_scheduled_for=row.last_scheduled_for,
            last_run_at=row.last_run_at,
            last_run_status=row.last_run_status,
            last_task_id=row.last_task_id,
            last_skip_at=row.last_skip_at,
            last_skip_reason=row.last_skip_reason,
            created_at=row.created_at,
            updated_at=row.updated_at,
        )

    @property
    def scheduled(self) -> bool:
        """Whether it fires: active and not awaiting confirmation."""
        return self.active and not self.needs_confirmation

    @property
    def state(self) -> str:
        """``active``, ``inactive`` or ``awaiting_confirmation``."""
        if self.needs_confirmation:
            return "awaiting_confirmation"
        return "active" if self.active else "inactive"

    def to_dict(self, next_run_at: float | None = None) -> dict[str, Any]:
        data = asdict(self)
        data["state"] = self.state
        data["next_run_at"] = next_run_at
        return data
