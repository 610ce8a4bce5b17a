"""The platform's usage service: recording (``recorder``), summaries, the price table and
the budgets, as the API and the Kin runtime use them."""

from __future__ import annotations

import logging
import re
import time
import uuid
from typing import TYPE_CHECKING, Any

from kinbot_core.db.models import ModelPrice, UsageBudget, User
from kinbot_core.usage.attribution import usage_for
from kinbot_core.usage.budgets import (
    BudgetReached,
    BudgetView,
    UsageError,
    all_budgets,
    budgets_of,
    claim_warnings,
    name_of,
    save_budget,
)
from kinbot_core.usage.prices import MAX_PRICE, Price, load_prices
from kinbot_core.usage.recorder import NotedUsage, UsageRecorder
from kinbot_core.usage.summaries import Period, month_start, summarise

if TYPE_CHECKING:
    from kinbot_core.platform import Platform

logger = logging.getLogger(__name__)

#: A price's model name: what providers call their models, lower case.
MODEL_NAME = re.compile(r"^[a-z0-9][a-z0-9._:-]{0,119}$")
#: The budget warning as a notification, in the recipient's language.
WARNING_TEXT = {
    "en": (
        "Budget almost spent",
        "{name} has used {percent}% of its monthly budget ({spent} of {limit} {currency}).",
    ),
    "fr": (
        "Budget presque épuisé",
        "{name} a utilisé {percent} % de son budget mensuel ({spent} sur {limit} {currency}).",
    ),
}


class PriceError(UsageError):
    """A price that cannot be set."""

    code = "price_invalid"


class UsageService:
    """Usage, prices and budgets of one platform."""

    def __init__(self, platform: Platform) -> None:
        self._platform = platform
        self.recorder = UsageRecorder(platform.db, on_written=self._warn)
        #: Every budget's target and limit (``None``: not read yet): a turn's check reads
        #: neither budgets nor spending from the database once they are known.
        self._limits: dict[tuple[str, str], float] | None = None

    @property
    def currency(self) -> str:
        return self._platform.settings.usage_currency

    async def stop(self) -> None:
        """Store what is noted (before the database closes)."""
        await self.recorder.flush()

    # -- summaries ------------------------------------------------------------------------------

    async def summary(
        self, period: Period, *, user_id: str | None = None, kin_id: str | None = None
    ) -> dict[str, Any]:
        """Totals of ``period``, by day, person, Kin and model (only ``user_id``'s and/or
        ``kin_id``'s when given)."""
        await self.recorder.flush()
        db = self._platform.db
        found = await db.read(summarise, db, period, user_id=user_id, kin_id=kin_id)
        return {"currency": self.currency, **found}

    # -- prices ---------------------------------------------------------------------------------

    async def prices(self) -> list[Price]:
        """The price table, by model name."""
        found = await self._platform.db.read(load_prices)
        return sorted(found.values(), key=lambda price: price.model)

    async def set_price(
        self, model: str, input_per_million: float, output_per_million: float, per_unit: float
    ) -> Price:
        """Create or change the price of ``model`` (later calls are costed with it)."""
        name = model.strip().lower()
        if not MODEL_NAME.match(name):
            raise PriceError(f"{model!r} is not a model name.", code="price_model_invalid")
        values = (input_per_million, output_per_million, per_unit)
        if any(not 0 <= value <= MAX_PRICE for value in values):
            raise PriceError("A price is between 0 and 100000.", code="price_out_of_range")

        def save() -> None:
            ModelPrice.insert(
                model=name,
                input_per_million=input_per_million,
                output_per_million=output_per_million,
                per_unit=per_unit,
                updated_at=time.time(),
            ).on_conflict_replace().execute()

        await self._platform.db.write(save)
        return Price(name, *values)

    async def remove_price(self, model: str) -> bool:
        """Forget the price of ``model`` (its later calls count at zero cost, unpriced)."""
        return bool(
            await self._platform.db.write(
                lambda: ModelPrice.delete().where(ModelPrice.model == model).execute()
            )
        )

    # -- budgets --------------------------------------------------------------------------------

    async def budgets(self) -> list[BudgetView]:
        """Every budget with this month's spending."""
        db = self._platform.db
        return await db.read(all_budgets, db)

    async def budgets_for(self, *, kin_id: str | None, user_id: str | None) -> list[BudgetView]:
        """The budgets that apply to work for ``kin_id`` started by ``user_id``."""
        await self.recorder.flush()
        db = self._platform.db
        return await db.read(budgets_of, db, kin_id=kin_id, user_id=user_id, since=month_start())

    async def set_budget(
        self, scope: str, target_id: str, monthly_limit: float, warn_percent: int
    ) -> BudgetView:
        """Create or change the monthly budget of a person (``user``) or a Kin."""
        await self._platform.db.write(
            save_budget, uuid.uuid4().hex, scope, target_id, monthly_limit, warn_percent
        )
        self._limits = None
        found = await self.budgets_for(
            kin_id=target_id if scope == "kin" else None,
            user_id=target_id if scope == "user" else None,
        )
        return found[0]

    async def remove_budget(self, budget_id: str) -> bool:
        """Delete a budget."""
        removed = bool(
            await self._platform.db.write(
                lambda: UsageBudget.delete().where(UsageBudget.id == budget_id).execute()
            )
        )
        self._limits = None
        return removed

    async def refuse_over_budget(
        self, *, kin_id: str | None = None, user_id: str | None = None
    ) -> None:
        """Raise ``BudgetReached`` when the Kin's or the person's monthly budget is spent
        (both default to whom the current work is for). Called before a turn starts."""
        if kin_id is None and user_id is None:
            who = usage_for.get()
            kin_id, user_id = who.kin_id, who.user_id
        limits = await self._budget_limits()
        targets = [
            (scope, target_id)
            for scope, target_id in (("kin", kin_id), ("user", user_id))
            if target_id is not None and (scope, target_id) in limits
        ]
        if not targets:
            return
        await self.recorder.flush()
        db, spending = self._platform.db, self.recorder.spending
        for target in targets:
            spent = spending.known(target)
            if spent is None:
                spent = await db.write(spending.load, db, target)  # on the writer thread
            if spent >= limits[target]:
                await self._refuse(target, spent, limits[target])

    async def _budget_limits(self) -> dict[tuple[str, str], float]:
        if self._limits is None:
            self._limits = await self._platform.db.read(
                lambda: {(b.scope, b.target_id): b.monthly_limit for b in UsageBudget.select()}
            )
        return self._limits

    async def _refuse(self, target: tuple[str, str], spent: float, limit: float) -> None:
        scope, target_id = target
        name = await self._platform.db.read(name_of, scope, target_id)
        whose = "The Kin" if scope == "kin" else "The person"
        raise BudgetReached(
            f"{whose} {name!r} has spent its monthly budget ({limit:g} {self.currency}).",
            params={
                "scope": scope,
                "name": name or "",
                "limit": limit,
                "spent": round(spent, 4),
                "currency": self.currency,
            },
        )

    async def _warn(self, batch: list[NotedUsage]) -> None:
        """Warn once a month about each budget the new usage took past its threshold: in the
        app (a live event) and through the person's notification route."""
        limits = await self._budget_limits()
        targets = {("kin", usage.who.kin_id) for usage in batch if usage.who.kin_id}
        targets |= {("user", usage.who.user_id) for usage in batch if usage.who.user_id}
        due = [target for target in targets if target in limits]
        if not due:
            return
        db = self._platform.db
        for budget in await db.write(claim_warnings, db, due, self.recorder.spending):
            recipients = await self._recipients(budget)
            data = {"budget": budget.to_dict(), "currency": self.currency}
            if budget.scope == "kin":
                data["kin_id"] = budget.target_id
            self._platform.live.publish("usage.budget_warning", data, audience=recipients)
            for user_id, language in recipients.items():
                await self._notify(user_id, language, budget)

    async def _recipients(self, budget: BudgetView) -> dict[str, str]:
        """Who is warned (with their language): the person, or for a Kin the administrators."""

        def load() -> dict[str, str]:
            query = (
                User.select().where(User.id == budget.target_id)
                if budget.scope == "user"
                else User.select().where(User.role == "admin")
            )
            return {user.id: user.language for user in query}

        return await self._platform.db.read(load)

    async def _notify(self, user_id: str, language: str, budget: BudgetView) -> None:
        title, body = WARNING_TEXT.get(language, WARNING_TEXT["en"])
        text = body.format(
            name=budget.name or "?",
            percent=int(budget.spent * 100 / budget.monthly_limit),
            spent=f"{budget.spent:.2f}",
            limit=f"{budget.monthly_limit:.2f}",
            currency=self.currency,
        )
        try:
            await self._platform.notifications.notify(user_id, title, text, "/settings")
        except Exception:
            logger.exception("the budget warning could not be sent")
