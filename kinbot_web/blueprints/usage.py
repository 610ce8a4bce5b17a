"""``/api/usage`` and ``/api/me/usage``: what provider calls cost (docs/usage.md).

Administrators see everyone's usage, edit the price table and set monthly budgets; every
signed-in person sees their own usage and the budget that applies to them.
"""

from __future__ import annotations

from datetime import date
from typing import Literal

from pydantic import BaseModel, Field, model_validator
from quart import Blueprint, Response
from quart_schema import validate_querystring, validate_request

from kinbot_core.usage import Period, UsageError
from kinbot_core.usage.summaries import MAX_PERIOD_DAYS
from kinbot_web.app_context import current_platform
from kinbot_web.auth import admin_only, current_user, signed_in
from kinbot_web.blueprints.schemas import Identifier
from kinbot_web.errors import ApiError, error_response

blueprint = Blueprint("usage", __name__)


class PeriodQuery(BaseModel):
    #: First day (UTC, included); default: the first of this month.
    start: date | None = Field(None, alias="from")
    #: Last day (UTC, included); default: today.
    end: date | None = Field(None, alias="to")
    user_id: Identifier | None = None
    kin_id: Identifier | None = None

    def period(self) -> Period:
        default = Period.this_month()
        first, last = self.start or default.first, self.end or default.last
        if first > last:
            raise ApiError(400, "usage_period_invalid", "The period ends before it starts.")
        if (last - first).days >= MAX_PERIOD_DAYS:
            raise ApiError(
                400, "usage_period_invalid", f"A period is at most {MAX_PERIOD_DAYS} days."
            )
        return Period(first, last)


class PriceIn(BaseModel):
    input_per_million: float = Field(0.0, ge=0, le=100_000)
    output_per_million: float = Field(0.0, ge=0, le=100_000)
    per_unit: float = Field(0.0, ge=0, le=100_000)


class BudgetIn(BaseModel):
    scope: Literal["user", "kin"]
    target_id: Identifier
    monthly_limit: float = Field(gt=0, le=1_000_000)
    warn_percent: int = Field(80, ge=1, le=100)

    @model_validator(mode="after")
    def _finite(self) -> BudgetIn:
        if self.monthly_limit != self.monthly_limit:  # NaN
            raise ValueError("monthly_limit must be a number")
        return self


@blueprint.app_errorhandler(UsageError)
async def usage_error(exc: UsageError) -> Response:
    return error_response(exc.status, exc.code, exc.message, **exc.params)


@blueprint.get("/api/usage")
@admin_only
@validate_querystring(PeriodQuery)
async def usage_summary(query_args: PeriodQuery) -> dict[str, object]:
    """Everyone's usage over a period (default: this month), by day, person, Kin and model;
    ``user_id``/``kin_id`` narrow it to one person or Kin."""
    return await current_platform().usage.summary(
        query_args.period(), user_id=query_args.user_id, kin_id=query_args.kin_id
    )


@blueprint.get("/api/me/usage")
@signed_in
@validate_querystring(PeriodQuery)
async def my_usage(query_args: PeriodQuery) -> dict[str, object]:
    """The signed-in person's own usage over a period, and their monthly budget if any
    (``user_id`` is ignored: a member sees only their own)."""
    usage = current_platform().usage
    user_id = current_user().id
    summary = await usage.summary(query_args.period(), user_id=user_id, kin_id=query_args.kin_id)
    budgets = await usage.budgets_for(kin_id=None, user_id=user_id)
    summary["budget"] = budgets[0].to_dict() if budgets else None
    return summary


@blueprint.get("/api/usage/prices")
@admin_only
async def list_prices() -> dict[str, object]:
    """The price table (per million input/output tokens, per image or search)."""
    prices = await current_platform().usage.prices()
    return {
        "currency": current_platform().usage.currency,
        "prices": [price.to_dict() for price in prices],
    }


@blueprint.put("/api/usage/prices/<model>")
@admin_only
@validate_request(PriceIn)
async def set_price(model: str, data: PriceIn) -> dict[str, object]:
    """Create or change a model's price; later calls are costed with it."""
    price = await current_platform().usage.set_price(
        model, data.input_per_million, data.output_per_million, data.per_unit
    )
    return {"price": price.to_dict()}


@blueprint.delete("/api/usage/prices/<model>")
@admin_only
async def delete_price(model: str) -> tuple[str, int]:
    """Forget a model's price: its later calls count at zero cost, marked unpriced."""
    if not await current_platform().usage.remove_price(model):
        raise ApiError(404, "not_found", "No such price.")
    return "", 204


@blueprint.get("/api/usage/budgets")
@admin_only
async def list_budgets() -> dict[str, object]:
    """Every monthly budget with this month's spending."""
    budgets = await current_platform().usage.budgets()
    return {
        "currency": current_platform().usage.currency,
        "budgets": [budget.to_dict() for budget in budgets],
    }


@blueprint.put("/api/usage/budgets")
@admin_only
@validate_request(BudgetIn)
async def set_budget(data: BudgetIn) -> dict[str, object]:
    """Create or change the monthly budget of a person or a Kin."""
    budget = await current_platform().usage.set_budget(
        data.scope, data.target_id, data.monthly_limit, data.warn_percent
    )
    return {"budget": budget.to_dict()}


@blueprint.delete("/api/usage/budgets/<budget_id>")
@admin_only
async def delete_budget(budget_id: str) -> tuple[str, int]:
    """Remove a budget."""
    if not await current_platform().usage.remove_budget(budget_id):
        raise ApiError(404, "not_found", "No such budget.")
    return "", 204
