"""The price table: what a model costs, and how a call's cost is computed from it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from kinbot_core.db.models import ModelPrice

#: A price is at most this much (per million tokens or per unit): a typo, not a price.
MAX_PRICE = 100_000.0


@dataclass(frozen=True)
class Price:
    """What ``model`` costs: per million input and output tokens, per unit."""

    model: str
    input_per_million: float
    output_per_million: float
    per_unit: float

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)

    def cost(self, input_tokens: int, output_tokens: int, units: int) -> float:
        """The cost of one call."""
        return (
            input_tokens * self.input_per_million / 1_000_000
            + output_tokens * self.output_per_million / 1_000_000
            + units * self.per_unit
        )


_PRICES = "select model, input_per_million, output_per_million, per_unit from model_price"


#: The rows last read and the table built from them: most batches find the same rows.
_last: tuple[list[Any], dict[str, Price]] = ([], {})


def load_prices() -> dict[str, Price]:
    """Every known price, by model (run on a database thread; plain SQL, as every recorded
    batch of usage reads it). The table is shared: do not change it."""
    global _last
    rows = ModelPrice._meta.database.execute_sql(_PRICES).fetchall()
    read, table = _last
    if rows != read:
        table = {row[0]: Price(*row) for row in rows}
        _last = (rows, table)
    return table


def price_of(model: str, prices: dict[str, Price]) -> Price | None:
    """The price of ``model``: its own, else that of the longest known name it is a dated or
    suffixed version of (``claude-sonnet-4-5-20250929`` → ``claude-sonnet-4-5``). A provider
    path (``models/gemini-2.5-flash``, ``openai/gpt-4o``) is matched by its last part."""
    name = model.rsplit("/", 1)[-1].lower()
    if name in prices:
        return prices[name]
    best: Price | None = None
    for known, price in prices.items():
        if name.startswith(known + "-") and (best is None or len(known) > len(best.model)):
            best = price
    return best
