"""A model's first call measured, not guessed.

Budgets estimate tokens from characters and scale them by the ratio a model's calls taught
(``kinbot_core.providers.token_ratios``); before a model's first answer there is nothing to
learn from, and a small local model's tokenizer makes far more tokens of KinBot's prompt than
the estimate (SmolLM2: about 2,800 of a first prompt estimated under 2,000), enough for a
2,048-token window to refuse it. A server that counts tokens on request (llama.cpp's
``/tokenize``: an llm capability that is ``CountsTokens``) is therefore asked, once per model
and before its first call, how many tokens the fitted prompt's text makes: that count against
the estimate of the same text is the model's first observed ratio, and the prompt is fitted
again under it when it no longer fits. Never on every turn: once per provider and model
(again after the provider's configuration changes); a server that cannot say, errs or is
slow leaves the estimate as it was, silently.

Every call also takes up a ratio learned since its budget was made (by an earlier step of
the same turn): when the prompt still fits, only the answer's room is recomputed; when it
does not, the prompt is fitted again.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Awaitable, Callable
from dataclasses import replace
from typing import TYPE_CHECKING

from hookspecs.types import ChatContext
from kinbot_core.compacting.tokens import estimate_tokens
from kinbot_core.kins.prompt_budget import FittedPrompt, PromptBudget
from kinbot_core.providers import ProviderError
from kinbot_core.providers.context_windows import CountsTokens

if TYPE_CHECKING:
    from kinbot_core.platform import Platform

logger = logging.getLogger(__name__)

#: The longest a turn waits for the server's count (seconds).
ASK_SECONDS = 10.0


async def measured(
    platform: Platform,
    fitted: FittedPrompt,
    refit: Callable[[PromptBudget], Awaitable[FittedPrompt]],
) -> FittedPrompt:
    """``fitted`` under the model's ratio as now known: calibrated first when this is the
    model's first call and its server counts tokens (see the module docstring); fitted again
    (``refit``) only when the prompt no longer fits."""
    try:
        resolved = await platform.providers.resolve_model(fitted.context.model)
    except ProviderError:
        return fitted  # the call fails as it would have, with the resolution's error
    ratios = platform.providers.windows.ratios
    provider_id, model = resolved.provider_id, resolved.model
    # The model's first call only: asking a Protocol whether the server counts costs more.
    if ratios.calibrating(provider_id, model) and isinstance(resolved.llm, CountsTokens):
        text = prompt_text(fitted.context)
        try:
            counted = await asyncio.wait_for(resolved.llm.count_tokens(model, text), ASK_SECONDS)
        except Exception as error:  # the estimate stands: a count is a refinement
            logger.info("no token count of %s: %s", model, type(error).__name__)
            counted = None
        if counted:
            ratios.observe_count(provider_id, model, estimate_tokens(text), counted)
    ratio = ratios.ratio(provider_id, model)
    if ratio <= fitted.budget.ratio:
        return fitted
    budget = replace(fitted.budget, ratio=ratio)
    if fitted.tokens <= budget.prompt:
        return replace(fitted, budget=budget)
    logger.info("the prompt of %s fitted again with %.2f tokens per estimated token", model, ratio)
    return await refit(budget)


def prompt_text(context: ChatContext) -> str:
    """The text of a call's prompt as a tokenizer sees most of it: the system prompt, the
    tools' definitions and the messages with their tool calls (the chat template's own few
    tokens aside)."""
    parts = ["\n\n".join(context.system_prompt)]
    parts += [json.dumps(tool) for tool in context.tools]
    for message in context.messages:
        parts.append(str(message.get("content") or ""))
        if message.get("tool_calls"):
            parts.append(json.dumps(message["tool_calls"]))
    return "\n".join(parts)
