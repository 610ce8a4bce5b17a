"""Usage totals over a period: overall, by day, by person, by Kin and by model."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from typing import Any

from kinbot_core.db import Database

#: The longest period a summary covers, in days.
MAX_PERIOD_DAYS = 366


@dataclass(frozen=True)
class Period:
    """From the start of ``first`` to the end of ``last`` (UTC days, both included)."""

    first: date
    last: date

    @classmethod
    def this_month(cls, now: datetime | None = None) -> Period:
        today = (now or datetime.now(UTC)).date()
        return cls(today.replace(day=1), today)

    @property
    def start(self) -> float:
        return datetime(self.first.year, self.first.month, self.first.day, tzinfo=UTC).timestamp()

    @property
    def end(self) -> float:
        after = self.last + timedelta(days=1)
        return datetime(after.year, after.month, after.day, tzinfo=UTC).timestamp()

    def to_dict(self) -> dict[str, str]:
        return {"from": self.first.isoformat(), "to": self.last.isoformat()}


def month_start(now: datetime | None = None) -> float:
    """The start of the current month (UTC), as a timestamp: budgets are monthly."""
    return Period.this_month(now).start


def _totals(row: Any) -> dict[str, Any]:
    calls, cost, tokens_in, tokens_out, units, unpriced = row
    return {
        "calls": calls or 0,
        "cost": round(cost or 0.0, 10),  # a few tokens of an embedding cost 1e-7
        "input_tokens": tokens_in or 0,
        "output_tokens": tokens_out or 0,
        "units": units or 0,
        "unpriced_calls": unpriced or 0,
    }


_SUMS = (
    "count(*), sum(u.cost), sum(u.input_tokens), sum(u.output_tokens), sum(u.units), "
    "sum(case when u.priced then 0 else 1 end)"
)


def summarise(
    db: Database, period: Period, *, user_id: str | None = None, kin_id: str | None = None
) -> dict[str, Any]:
    """The usage of ``period`` (only ``user_id``'s and/or ``kin_id``'s when given), grouped
    (run on a database thread). Kins and people are named as they are now; a deleted one
    has no name (``None``)."""
    where = "u.created_at >= ? and u.created_at < ?"
    params: list[Any] = [period.start, period.end]
    if user_id is not None:
        where += " and u.user_id = ?"
        params.append(user_id)
    if kin_id is not None:
        where += " and u.kin_id = ?"
        params.append(kin_id)

    def grouped(key: str, joined: str = "", name: str = "null") -> list[dict[str, Any]]:
        rows = db.sql(
            f"select {key}, {name}, {_SUMS} from usage_record u "
            f"{joined} where {where} group by {key} order by sum(u.cost) desc, {key}",
            params,
        ).fetchall()
        return [{"key": row[0], "name": row[1], **_totals(row[2:])} for row in rows]

    total = db.sql(f"select {_SUMS} from usage_record u where {where}", params).fetchone()
    by_day = grouped("u.day")
    by_day.sort(key=lambda item: item["key"])
    by_model = db.sql(
        f"select u.model, u.provider, u.priced, {_SUMS} "
        f"from usage_record u where {where} group by u.model, u.provider, u.priced "
        "order by sum(u.cost) desc, u.model",
        params,
    ).fetchall()
    return {
        "period": period.to_dict(),
        "totals": _totals(total),
        "by_day": [{"day": item.pop("key"), **item} for item in by_day],
        "by_user": [
            {"user_id": item.pop("key"), **item}
            for item in grouped(
                "u.user_id",
                "left join user p on p.id = u.user_id",
                "coalesce(nullif(p.pseudonym, ''), p.first_name)",
            )
        ],
        "by_kin": [
            {"kin_id": item.pop("key"), **item}
            for item in grouped("u.kin_id", "left join kin k on k.id = u.kin_id", "k.name")
        ],
        "by_model": [
            {"model": row[0], "provider": row[1], "priced": bool(row[2]), **_totals(row[3:])}
            for row in by_model
        ],
    }


def spent_since(db: Database, since: float, *, scope: str, target_id: str) -> float:
    """What ``target_id`` (a person, ``scope = 'user'``, or a Kin) spent since ``since``."""
    column = "user_id" if scope == "user" else "kin_id"
    row = db.sql(
        f"select sum(cost) from usage_record where {column} = ? and created_at >= ?",
        (target_id, since),
    ).fetchone()
    return float(row[0] or 0.0)
