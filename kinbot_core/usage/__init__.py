"""What provider calls cost: every call's usage recorded against a Kin and the person (or the
origin) it was for, a price table, summaries and monthly budgets (docs/usage.md).

Who a call is for is the context variable ``usage_for``, set with :func:`attributed` by the
code that starts work; the providers service records every call through the platform's
``UsageService.recorder``; provider plugins pass up what their SDK reports with
:func:`report_usage`.
"""

from kinbot_core.usage.attribution import (
    ORIGINS,
    UsageFor,
    attributed,
    for_turn,
    report_usage,
    usage_for,
)
from kinbot_core.usage.budgets import BudgetError, BudgetReached, BudgetView, UsageError
from kinbot_core.usage.prices import Price, price_of
from kinbot_core.usage.recorder import UsageRecorder
from kinbot_core.usage.service import PriceError, UsageService
from kinbot_core.usage.summaries import Period

__all__ = [
    "ORIGINS",
    "BudgetError",
    "BudgetReached",
    "BudgetView",
    "Period",
    "Price",
    "PriceError",
    "UsageError",
    "UsageFor",
    "UsageRecorder",
    "UsageService",
    "attributed",
    "for_turn",
    "price_of",
    "report_usage",
    "usage_for",
]
