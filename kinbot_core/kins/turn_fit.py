"""A turn's model call that fits the window, and its recovery when the server says it does
not: the session is compacted harder, the prompt fitted again under a harder budget, and the
call made once more; a second refusal ends the turn with the numbers a person can act on
(``context_overflow``: the window and about how much the turn needs).

See ``kinbot_core.kins.prompt_budget`` for the budget and what is shed to meet it.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from kinbot_core.compacting.views import CompactingError
from kinbot_core.kins import token_calibration
from kinbot_core.kins.prompt_budget import FittedPrompt, PromptBudget
from kinbot_core.providers import ContextOverflowError, ModelNotLoaded, ToolCallEvent

if TYPE_CHECKING:
    from kinbot_core.platform import Platform

logger = logging.getLogger(__name__)

Answer = tuple[str, list[ToolCallEvent]]


async def answer(
    platform: Platform,
    kin_id: str,
    fitted: FittedPrompt,
    call: Callable[[FittedPrompt], Awaitable[Answer]],
    refit: Callable[[PromptBudget], Awaitable[FittedPrompt]],
) -> Answer:
    """``call`` the model with the ``fitted`` prompt, measured first
    (``token_calibration.measured``: a model's first call calibrated, a ratio learned since
    taken up). On a context overflow: compact the Kin's session harder, ``refit`` under a
    harder budget and call once more; a second overflow raises a ``ContextOverflowError``
    with the window and the tokens needed."""
    fitted = await token_calibration.measured(platform, fitted, refit)
    try:
        return await _called(call, fitted)
    except ContextOverflowError as error:
        logger.info(
            "Kin %s: the prompt (about %d tokens) did not fit the window; compacting harder",
            kin_id,
            fitted.expected_tokens,
        )
        await compact_harder(platform, kin_id, error.window)
        retry = await refit(fitted.budget.harder(error.window, error.needed))
    try:
        return await _called(call, retry)
    except ContextOverflowError as error:
        raise gave_up(error, fitted, retry) from None


async def _called(
    call: Callable[[FittedPrompt], Awaitable[Answer]], fitted: FittedPrompt
) -> Answer:
    try:
        return await call(fitted)
    except ModelNotLoaded as error:
        error.params.setdefault("model", fitted.context.model.split("/", 1)[-1])
        raise


async def compact_harder(platform: Platform, kin_id: str, window: int | None = None) -> None:
    """Fold what can be folded of the session, keeping verbatim only the latest exchanges
    that fit a quarter of the room the ``window`` the server said it has leaves (the window
    in force when it did not say, or said a larger one); nothing to fold, or a summary call
    that fails, leaves it as it is."""
    try:
        await platform.compacting.compact(kin_id, force=True, harder=True, window=window)
    except CompactingError as error:
        logger.info("Kin %s: no harder compacting (%s)", kin_id, error.message)


def gave_up(
    error: ContextOverflowError, first: FittedPrompt, retry: FittedPrompt
) -> ContextOverflowError:
    """The error that ends the turn: the window (the server's word, else the one in force)
    and about how many tokens the turn needs (the server's count of the prompt it refused
    last, else the estimate of the first attempt; with the answer's room), when that is more
    than the window."""
    window = error.window or retry.budget.window.tokens
    # The server's count of the prompt it refused (with the answer's room) is worth more
    # than an estimate; without it, the estimate of the first attempt.
    counted = error.needed + retry.budget.reply if error.needed else first.needed
    needed = int(math.ceil(counted / 100) * 100)
    if needed <= window:  # the estimate says it fits: no number worth showing
        needed = 0
    about = f", about {needed:,} tokens needed" if needed else ""
    return ContextOverflowError(
        f"The model's context window ({window:,} tokens) is too small for this turn{about}: "
        "raise the model's context size or choose a model with a larger one.",
        window=window,
        needed=needed or None,
        detail=error.detail,
        status=error.status,
    )
