"""Sub-Kin tasks: ephemeral sub-Kins a Kin (or a cron) spawns to work on one task."""

from kinbot_core.tasks.records import (
    ENDED,
    MODES,
    TaskError,
    TaskNotFound,
    TaskSpec,
    TaskView,
)
from kinbot_core.tasks.service import TaskService

__all__ = ["ENDED", "MODES", "TaskError", "TaskNotFound", "TaskService", "TaskSpec", "TaskView"]
