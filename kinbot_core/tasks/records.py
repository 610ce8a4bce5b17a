"""What a task is, as the service, the tools and the API see it."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from kinbot_core.db.models import TaskRecord
from kinbot_core.providers.detail import shown_detail

#: ``await``: the result enters the parent's queue (a turn); ``async``: it is added to the
#: parent's session without a turn; ``cron``: like ``async``, shown as the cron's message.
MODES = ("await", "async", "cron")
#: The states a task ends in.
ENDED = ("completed", "failed", "cancelled")
#: Longest title derived from a task's description.
TITLE_CHARS = 60

#: Why a task failed or was cancelled, as codes the UI words (``taskErrors`` in the web
#: interface); a sub-Kin's failed turn gives its own code (``kinbot_core.kins.meta``).
CANCELLED_BY_USER = "task_cancelled_by_user"
CANCELLED_BY_PARENT = "task_cancelled_by_parent"
PARENT_ENDED = "task_parent_ended"
GAVE_UP = "task_gave_up"
NO_RESULT = "task_no_result"
RESTARTED = "task_restarted"
TASK_END_CODES = (
    CANCELLED_BY_USER,
    CANCELLED_BY_PARENT,
    PARENT_ENDED,
    GAVE_UP,
    NO_RESULT,
    RESTARTED,
)
#: The English sentences tasks ended with before they had codes (migration 0018), and their
#: codes: such a task reads as one that ends today.
_SENTENCES_BEFORE_CODES = {
    "Cancelled by a user.": CANCELLED_BY_USER,
    "Cancelled by its parent.": CANCELLED_BY_PARENT,
    "Its parent task ended.": PARENT_ENDED,
    "The sub-Kin gave up.": GAVE_UP,
    "The sub-Kin ended without a result.": NO_RESULT,
    "KinBot restarted while the task was running and its work could not resume.": RESTARTED,
}


class TaskError(Exception):
    """A task request that cannot be done; ``message`` says why in English, for a model or an
    API client; ``code`` (the class's, unless a more specific one is given) and ``params`` for
    the interface."""

    code = "task_invalid"

    def __init__(
        self, message: str, *, code: str | None = None, params: dict[str, Any] | None = None
    ) -> None:
        super().__init__(message)
        self.message = message
        if code is not None:
            self.code = code
        self.params: dict[str, Any] = dict(params or {})


class TaskNotFound(TaskError):
    code = "not_found"

    @classmethod
    def of(cls, task_id: str) -> TaskNotFound:
        """The answer for a task id that names no task (or one the person may not see)."""
        return cls(f"There is no task {task_id!r}.")


@dataclass(frozen=True)
class TaskSpec:
    """A task to spawn."""

    #: Whose session receives the reports and the result: a Kin, or a sub-Kin's hidden row.
    parent_kin_id: str
    #: The Kin whose character and expertise the sub-Kin takes.
    kin_id: str
    description: str
    mode: str = "await"
    #: ``None``: the model of ``kin_id``'s Kin.
    model: str | None = None
    #: ``None``: the start of the description.
    title: str | None = None
    cron_id: str | None = None


@dataclass(frozen=True)
class TaskView:
    """A task and where it stands."""

    id: str
    parent_kin_id: str
    kin_id: str
    session_kin_id: str | None
    parent_task_id: str | None
    cron_id: str | None
    title: str
    description: str
    mode: str
    model: str
    status: str
    depth: int
    awaiting_input: bool
    input_requests: int
    result: str | None
    error: str | None
    #: ``error`` as a code the UI words, and someone's own words about it (or ``None``).
    error_code: str | None
    error_detail: str | None
    created_at: float
    started_at: float | None
    ended_at: float | None

    @classmethod
    def of(cls, row: TaskRecord) -> TaskView:
        data = row.__data__
        error_code, error_detail = data.get("error_code"), data.get("error_detail")
        if error_code is None and row.status in ("failed", "cancelled"):
            error_code, error_detail = uncoded_end(row.error)
        return cls(
            id=row.id,
            parent_kin_id=data["parent_kin"],
            kin_id=data["kin"],
            session_kin_id=data.get("session_kin"),
            parent_task_id=data.get("parent_task"),
            cron_id=row.cron_id,
            title=row.title,
            description=row.description,
            mode=row.mode,
            model=row.model,
            status=row.status,
            depth=row.depth,
            awaiting_input=bool(row.awaiting_input),
            input_requests=row.input_requests,
            result=row.result,
            error=row.error,
            error_code=error_code,
            error_detail=error_detail,
            created_at=row.created_at,
            started_at=row.started_at,
            ended_at=row.ended_at,
        )

    @property
    def ended(self) -> bool:
        return self.status in ENDED

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def uncoded_end(error: str | None) -> tuple[str | None, str | None]:
    """The code and detail of a task that ended without a code (before migration 0018): the
    code of one of the fixed sentences of that time; otherwise no code, and the stored
    sentence (a provider's failure, a sub-Kin's reason: which one cannot be told) as the
    detail, cleaned as a provider's words are (no address of this machine's network, no
    class name)."""
    if not error:
        return None, None
    code = _SENTENCES_BEFORE_CODES.get(error.strip())
    return (code, None) if code else (None, shown_detail(error))


def title_of(description: str) -> str:
    """A short title from a task's description: its first line, cut at a word."""
    line = description.strip().splitlines()[0].strip() if description.strip() else "Task"
    if len(line) <= TITLE_CHARS:
        return line
    return line[:TITLE_CHARS].rsplit(" ", 1)[0].rstrip(",;:.") + "…"
