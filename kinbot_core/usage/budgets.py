"""Monthly budgets of people and Kins: the refusal of new turns at the limit and the warning
at a threshold, sent once a month per budget."""

from __future__ import annotations

import time
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from kinbot_core.db import Database
from kinbot_core.db.models import KinRecord, UsageBudget, User
from kinbot_core.usage.spending import MonthlySpending
from kinbot_core.usage.summaries import month_start, spent_since

SCOPES = ("user", "kin")


class UsageError(Exception):
    """A usage request that cannot be done: ``message`` in English, ``code`` (the class's
    unless a more specific one is given) and ``params`` for the interface, ``status`` for
    the API."""

    code = "usage_invalid"
    status = 400

    def __init__(
        self, message: str, *, code: str | None = None, params: dict[str, Any] | None = None
    ) -> None:
        super().__init__(message)
        self.message = message
        if code is not None:
            self.code = code
        self.params: dict[str, Any] = dict(params or {})


class BudgetReached(UsageError):
    """A new turn refused: the person's or the Kin's monthly budget is spent. ``params``:
    ``scope`` (``user`` or ``kin``), ``name`` (the person's or the Kin's), ``limit`` and
    ``spent`` (amounts in ``currency``)."""

    code = "budget_reached"
    status = 403

    def meta(self) -> dict[str, Any]:
        """The meta of the refusal when it ends a turn (``kinbot_core.kins.meta``)."""
        return {"error_code": self.code, "detail": None, "retryable": False, "params": self.params}


class BudgetError(UsageError):
    """A budget that cannot be set (unknown person or Kin)."""

    code = "budget_invalid"


@dataclass(frozen=True)
class BudgetView:
    """A budget with what was spent against it this month."""

    id: str
    scope: str
    target_id: str
    name: str | None
    monthly_limit: float
    warn_percent: int
    spent: float

    @property
    def reached(self) -> bool:
        return self.spent >= self.monthly_limit

    @property
    def warning(self) -> bool:
        return self.spent >= self.monthly_limit * self.warn_percent / 100

    def to_dict(self) -> dict[str, Any]:
        return {
            **self.__dict__,
            "spent": round(self.spent, 6),
            "reached": self.reached,
            "warning": self.warning,
        }


def name_of(scope: str, target_id: str) -> str | None:
    """The person's shown name or the Kin's name, as now (``None``: deleted)."""
    if scope == "user":
        user = User.get_or_none(User.id == target_id)
        return (user.pseudonym or user.first_name) if user else None
    kin = KinRecord.get_or_none(KinRecord.id == target_id)
    return kin.name if kin else None


def view(db: Database, budget: UsageBudget, since: float) -> BudgetView:
    """``budget`` with this month's spending (database thread)."""
    return BudgetView(
        id=budget.id,
        scope=budget.scope,
        target_id=budget.target_id,
        name=name_of(budget.scope, budget.target_id),
        monthly_limit=budget.monthly_limit,
        warn_percent=budget.warn_percent,
        spent=spent_since(db, since, scope=budget.scope, target_id=budget.target_id),
    )


def budgets_of(
    db: Database, *, kin_id: str | None, user_id: str | None, since: float
) -> list[BudgetView]:
    """The budgets that apply to work for ``kin_id`` started by ``user_id`` (db thread)."""
    query = UsageBudget.select().where(
        ((UsageBudget.scope == "kin") & (UsageBudget.target_id == (kin_id or "")))
        | ((UsageBudget.scope == "user") & (UsageBudget.target_id == (user_id or "")))
    )
    return [view(db, budget, since) for budget in query]


def all_budgets(db: Database) -> list[BudgetView]:
    """Every budget, people first (db thread)."""
    since = month_start()
    rows = UsageBudget.select().order_by(UsageBudget.scope.desc(), UsageBudget.created_at)
    return [view(db, budget, since) for budget in rows]


def save_budget(
    budget_id: str, scope: str, target_id: str, monthly_limit: float, warn_percent: int
) -> None:
    """Create or change the budget of a person or Kin (writer thread)."""
    if name_of(scope, target_id) is None:
        raise BudgetError(
            f"No {'person' if scope == 'user' else 'Kin'} {target_id!r}.",
            code="budget_target_unknown",
        )
    now = time.time()
    UsageBudget.insert(
        id=budget_id,
        scope=scope,
        target_id=target_id,
        monthly_limit=monthly_limit,
        warn_percent=warn_percent,
        created_at=now,
        updated_at=now,
    ).on_conflict(
        conflict_target=[UsageBudget.scope, UsageBudget.target_id],
        update={
            UsageBudget.monthly_limit: monthly_limit,
            UsageBudget.warn_percent: warn_percent,
            UsageBudget.updated_at: now,
        },
    ).execute()


def claim_warnings(
    db: Database, targets: list[tuple[str, str]], spending: MonthlySpending
) -> list[BudgetView]:
    """The budgets of ``targets`` past their threshold and not warned this month, marked
    warned now (writer thread: this month's totals come from ``spending``)."""
    month = datetime.now(UTC).strftime("%Y-%m")
    due = []
    for scope, target_id in targets:
        budget = UsageBudget.get_or_none(
            (UsageBudget.scope == scope) & (UsageBudget.target_id == target_id)
        )
        if budget is None or budget.warned_month == month:
            continue
        spent = spending.load(db, (scope, target_id))
        if spent >= budget.monthly_limit * budget.warn_percent / 100:
            budget.warned_month = month
            budget.save()
            due.append(
                BudgetView(
                    budget.id,
                    scope,
                    target_id,
                    name_of(scope, target_id),
                    budget.monthly_limit,
                    budget.warn_percent,
                    spent,
                )
            )
    return due
