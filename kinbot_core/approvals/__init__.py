"""Tools that need a person's approval before a Kin's call runs (docs/api.md, "Tool
approvals"; the ``before_tool_call`` hook in docs/plugins.md)."""

from kinbot_core.approvals.gate import (
    ApprovalPending,
    ApprovalRefused,
    check,
    refusal_text,
    unanswered_calls,
)
from kinbot_core.approvals.service import (
    DECISIONS,
    MODES,
    ApprovalAlwaysForbidden,
    ApprovalDecided,
    ApprovalNotFound,
    ApprovalService,
    ApprovalView,
)

__all__ = [
    "DECISIONS",
    "MODES",
    "ApprovalAlwaysForbidden",
    "ApprovalDecided",
    "ApprovalNotFound",
    "ApprovalPending",
    "ApprovalRefused",
    "ApprovalService",
    "ApprovalView",
    "check",
    "refusal_text",
    "unanswered_calls",
]
