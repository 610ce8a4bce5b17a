"""A prompt that fits the model's context window.

Every model call of a turn is budgeted against the window in force (:func:`window_for`),
with room kept for the answer (:func:`reply_room`): the system prompt, the tools' schemas
and the messages (the summary and the memories are sections of the system prompt) are
estimated as compacting estimates them (``kinbot_core.compacting.tokens``). When they do not
fit, :func:`fit` sheds what matters least first, stage by stage, until they do
(``kinbot_core.kins.prompt_shedding`` does each stage):

1. ``memories``: fewer injected memories, the least relevant first;
2. ``tool_descriptions``: shorter tool descriptions (their first sentence, no parameter
   descriptions);
3. ``tools``: only the tools most relevant to the turn (a lexical score against the last
   message of a person), the least relevant dropped first; the tools a sub-Kin reports with
   always stay;
4. ``lean_prompt``: a leaner system prompt (no tool list or usage notes, no contact list,
   character and expertise cut short);
5. ``history``: the oldest exchanges of the recent messages (the compacting summary keeps
   what they said once compacting has folded them); the exchange of the turn always stays.

Estimates count characters (``kinbot_core.compacting.tokens``); a model's tokenizer may make
more tokens of them. What the provider reported of earlier calls (``token_ratios``: real
prompt tokens per estimated token, learned per provider and model, conservative) scales the
budget: ``PromptBudget.ratio``. A model's first call, before any report, counts one for one.

A prompt that still does not fit is sent all the same (the estimate errs on the large side,
and a window may be a fallback): the server's refusal is then recognised as a context overflow
(``ContextOverflowError``), and the turn compacts harder and tries once more.

A model its provider says cannot call tools (``supports_tools``) gets none, and its prompt
says so, so that the Kin tells a person who asks for something only a tool could do.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from hookspecs.types import ChatContext
from kinbot_core.compacting.tokens import (
    IMAGE_TOKENS,
    MESSAGE_OVERHEAD_TOKENS,
    estimate_tokens,
    message_tokens,
    tool_tokens,
)
from kinbot_core.identity_memo import IdentityMemo
from kinbot_core.kins import prompt_shedding
from kinbot_core.kins.model_messages import tool_specs
from kinbot_core.providers import ChatMessage, ChatRequest, ContextWindow, ProviderError

if TYPE_CHECKING:
    from kinbot_core.kins.window_messages import WindowMessages
    from kinbot_core.platform import Platform
    from kinbot_core.tools import Tool

#: Share of the window kept for the answer, within these bounds (tokens).
REPLY_SHARE = 0.2
REPLY_MIN_TOKENS = 256
REPLY_MAX_TOKENS = 8192
#: The longest answer a turn's call asks for (a window permitting).
ANSWER_MAX_TOKENS = ChatRequest.max_tokens
#: A harder budget (after the server refused a prompt as too long) keeps this share of it.
HARDER_SHARE = 0.75
#: The stages of :func:`fit`, in the order they apply.
STAGES = ("memories", "tool_descriptions", "tools", "lean_prompt", "history")
#: Share of the window the session (summary and recent messages) may always fill before it is
#: compacted, however large the rest of the prompt would like to be (tools are shed for it).
SESSION_MIN_SHARE = 0.25
#: What the prompt of a model that cannot call tools says instead of the tool section.
NO_TOOLS_SECTION = (
    "## Tools\nThe model you run on cannot use tools. When someone asks for something that "
    "needs one (searching, remembering, files, messages to other Kins, scheduling), say "
    "plainly that you cannot do it with this model, and help as well as you can without."
)


#: A model's context window in tokens and where it was learned (``"server"``,
#: ``"provider"``, ``"known_model"``, ``"admin"`` or ``"fallback"``).
WindowInForce = ContextWindow


async def window_for(platform: Platform, provider_id: str | None, model: str) -> WindowInForce:
    """The context window in force for ``model`` (the provider's model id) of the provider
    ``provider_id``: the platform's lookup (``kinbot_core.providers.context_windows``: the
    ``compacting_context_windows`` setting, the server's or the provider's word, the known
    models, else a fallback). Never raises."""
    return await platform.providers.context_window(provider_id, model)


def reply_room(window: int) -> int:
    """Tokens kept free in ``window`` for the answer."""
    return min(max(int(window * REPLY_SHARE), REPLY_MIN_TOKENS), REPLY_MAX_TOKENS, window // 2)


@dataclass(frozen=True)
class PromptBudget:
    """What one call may send: ``window`` minus ``reply`` tokens for the answer."""

    window: WindowInForce
    reply: int
    #: Whether the model can call tools (its provider's ``supports_tools``).
    tools: bool = True
    #: A share of the room under ``window - reply`` the prompt may fill (1 normally; less
    #: after the server refused a prompt the estimate said would fit).
    share: float = 1.0
    #: The model's real prompt tokens per estimated token (``TokenRatios.ratio``).
    ratio: float = 1.0

    @property
    def prompt(self) -> int:
        """Estimated tokens the prompt may take (the real room divided by ``ratio``)."""
        return max(int((self.window.tokens - self.reply) * self.share / self.ratio), 1)

    def within(self, window: int | None) -> PromptBudget:
        """This budget in the ``window`` a server said it has when it refused a prompt as too
        long (its 400 names it), if that is smaller than the window in force: the server's
        word about what it runs wins over what KinBot believed (a setting, a fallback)."""
        if not window or window >= self.window.tokens:
            return self
        return replace(self, window=WindowInForce(window, "server"), reply=reply_room(window))

    def harder(self, window: int | None = None, needed: int | None = None) -> PromptBudget:
        """The budget after the server refused a prompt as too long for its window: its
        ``window`` (when it said) and a share that the server's own count (``needed``, when
        it said) shows the estimate fell short by."""
        within = self.within(window)
        tokens = within.window.tokens
        share = self.share * HARDER_SHARE
        if needed and needed > tokens:
            share = min(share, self.share * tokens / needed * HARDER_SHARE)
        return replace(within, share=share)


async def model_window(platform: Platform, model: str) -> WindowInForce:
    """The window in force for a Kin's ``model`` (``<provider name>/<model>`` or a model id)."""
    return (await budget_for(platform, model)).window


def session_limits(budget: PromptBudget, stable: int, threshold_share: float) -> tuple[int, int]:
    """When compacting must fold a session, and the room a session has, in estimated tokens
    (what compacting's estimates of the session compare with): the ``threshold_share`` of the
    window, or the room it leaves once the answer's room and the ``stable`` prompt (estimated
    tokens of the system prompt and tools) are set aside when that is smaller, but never
    under ``SESSION_MIN_SHARE`` of the window (the turn sheds tools to make room for it).
    Both are the real figures divided by the model's learned ratio."""
    tokens = budget.window.tokens
    room = tokens - reply_room(tokens) - math.ceil(stable * budget.ratio)
    share = int(tokens * threshold_share)
    least = max(min(share, int(tokens * SESSION_MIN_SHARE)), 1)
    threshold = max(min(share, room), least)
    return max(int(threshold / budget.ratio), 1), max(int(max(room, least) / budget.ratio), 1)


async def budget_for(platform: Platform, model: str) -> PromptBudget:
    """The budget of a call to a Kin's ``model`` (``<provider name>/<model>`` or a model id).
    A model no provider resolves gets the fallback window (the call then fails as it would
    have, with the resolution's error)."""
    try:
        resolved = await platform.providers.resolve_model(model)
    except ProviderError:
        window = await window_for(platform, None, model)
        return PromptBudget(window, reply_room(window.tokens))
    window = await window_for(platform, resolved.provider_id, resolved.model)
    tools = bool(resolved.llm.supports_tools(resolved.model))
    ratio = platform.providers.windows.ratios.ratio(resolved.provider_id, resolved.model)
    return PromptBudget(window, reply_room(window.tokens), tools=tools, ratio=ratio)


#: The share of a background call's room its estimate may fill: a transcript's estimate runs a
#: few hundredths short of a server's count (its line breaks and quotes escaped, the roles).
BACKGROUND_SHARE = 0.95


@dataclass(frozen=True)
class BackgroundLimits:
    """What one background call (memory extraction, a compacting summary) may ask of its
    model: ``reply`` tokens for the answer and ``prompt`` estimated tokens for its user
    message (the system prompt set aside); ``prompt`` is ``None`` when the window is not
    known (the fallback), so nothing is cut for a guess."""

    reply: int
    prompt: int | None


async def background_limits(
    platform: Platform, model: str, system: str, reply_max: int
) -> BackgroundLimits:
    """The limits of a call to ``model`` (``<provider name>/<model>`` or a model id, which
    may not be the Kin's) with ``system`` as its system prompt and an answer of at most
    ``reply_max`` tokens: within its own window, as a turn's call is."""
    budget = await budget_for(platform, model)
    if budget.window.source == "fallback":
        return BackgroundLimits(reply_max, None)
    reply = min(reply_max, budget.reply)
    room = int((budget.window.tokens - reply) * BACKGROUND_SHARE / budget.ratio)
    room -= estimate_tokens(system) + 2 * MESSAGE_OVERHEAD_TOKENS
    return BackgroundLimits(reply, max(room, 1))


def tools_tokens(tools: list[dict[str, Any]]) -> int:
    """Tokens the tools' definitions take (the same definitions as a call before: their
    count then, found by the ``ToolSpec``s they make, as the call will send them)."""
    specs = tool_specs(tools)
    kept = _tools_tokens.get(specs)
    if kept is None:
        kept = _tools_tokens.keep(specs, sum(tool_tokens(tool) for tool in tools))
    return kept


#: ``tools_tokens`` by the tuple of ``ToolSpec``s of the definitions.
_tools_tokens: IdentityMemo[int] = IdentityMemo(64)


def messages_tokens(messages: list[dict[str, Any]]) -> int:
    """Tokens the messages take (an image is counted as a thousand)."""
    total = 0
    for message in messages:
        total += message_tokens(message.get("content") or "", message.get("tool_calls") or None)
        if images := message.get("images"):
            total += IMAGE_TOKENS * len(images)
    return total


def system_tokens(sections: list[str]) -> int:
    """Tokens the system prompt's sections take, joined as they are sent."""
    return estimate_tokens("\n\n".join(sections))


@dataclass(frozen=True)
class FittedPrompt:
    """A call's context after fitting, its estimated size and what was shed for it."""

    context: ChatContext
    #: Estimated tokens of the whole prompt (system, tools, messages).
    tokens: int
    #: The system prompt and the tools' definitions the turn would send if the session left
    #: them room (before tools are dropped for it): what compacting leaves room for.
    stable_tokens: int
    budget: PromptBudget
    #: The stages applied (``STAGES``), in order.
    shed: tuple[str, ...]
    #: The messages as the call's ``ChatMessage``s, when kept from their window (``None``:
    #: to be converted).
    chats: tuple[ChatMessage, ...] | None = None

    @property
    def fits(self) -> bool:
        return self.tokens <= self.budget.prompt

    @property
    def expected_tokens(self) -> int:
        """Tokens the server is expected to count in the prompt: the estimate scaled by the
        model's learned ratio."""
        return math.ceil(self.tokens * self.budget.ratio)

    @property
    def answer_tokens(self) -> int:
        """The longest answer to ask for: the room kept for it and what the prompt left of
        its budget, at most ``ANSWER_MAX_TOKENS`` (a server that counts the asked length
        against its window, as llama-cpp-python and vLLM do, then accepts the call)."""
        spare = max(int((self.budget.prompt - self.tokens) * self.budget.ratio), 0)
        return min(self.budget.reply + spare, ANSWER_MAX_TOKENS)

    @property
    def needed(self) -> int:
        """Tokens the call needs, the answer's room included, rounded up to a hundred."""
        return int(math.ceil((self.expected_tokens + self.budget.reply) / 100) * 100)


def fit(
    context: ChatContext,
    tools: list[Tool],
    budget: PromptBudget,
    window: WindowMessages | None = None,
) -> FittedPrompt:
    """``context`` (after the ``before_chat`` hooks) made to fit ``budget``: a new context,
    the given one is left as it is. ``tools`` are the Tool objects behind ``context.tools``
    (for their prompt hints and audience); ``window``, the kept conversions of the messages
    the context was given (used when the hooks left them as they were)."""
    draft = prompt_shedding.Draft.of(context, tools)
    if not budget.tools:
        draft.drop_all_tools(NO_TOOLS_SECTION)
    shed: list[str] = []
    wanted: int | None = None
    stable = _stable(draft)
    as_given = window is not None and window.unchanged(draft.messages)
    if as_given and window is not None and window.tokens is not None:
        size = stable + window.tokens
    else:
        size = stable + messages_tokens(draft.messages)
    for stage in STAGES:
        if size <= budget.prompt:
            break
        if stage == "tools":
            wanted = _stable(draft)
        if getattr(draft, f"shed_{stage}")(lambda: _size(draft) <= budget.prompt):
            shed.append(stage)
        stable = _stable(draft)
        size = stable + messages_tokens(draft.messages)
    stable = stable if wanted is None else wanted
    fitted = replace(
        context,
        system_prompt=list(draft.sections),
        tools=list(draft.tools),
        messages=list(draft.messages),
        extra=dict(context.extra),
    )
    chats = window.chats if as_given and window is not None and "history" not in shed else None
    return FittedPrompt(fitted, size, stable, budget, tuple(shed), chats)


def _stable(draft: prompt_shedding.Draft) -> int:
    return system_tokens(draft.sections) + tools_tokens(draft.tools)


def _size(draft: prompt_shedding.Draft) -> int:
    return (
        system_tokens(draft.sections) + tools_tokens(draft.tools) + messages_tokens(draft.messages)
    )
