"""One turn of a Kin: build the context, call the model, run the tools it asks for, repeat
until it answers (or the step cap), persisting everything on the way."""

from __future__ import annotations

import json
import logging
import time
from dataclasses import replace
from datetime import datetime
from typing import TYPE_CHECKING, Any

from hookspecs.types import ChatContext, KinRef, Outcome
from kinbot_core import approvals
from kinbot_core.events.catalogue import KinMessageSent, KinStateChanged
from kinbot_core.kins import meta, prompt_budget, turn_fit
from kinbot_core.kins.claims import Claimed
from kinbot_core.kins.drafts import DeltaBatch, TurnDraft
from kinbot_core.kins.model_messages import chat_messages, tool_specs
from kinbot_core.kins.prompt import TaskBrief, build_sections
from kinbot_core.kins.prompt_budget import FittedPrompt
from kinbot_core.kins.service import MessageView
from kinbot_core.kins.turn_tools import TurnTools
from kinbot_core.kins.views import TurnEnd
from kinbot_core.kins.window_messages import WindowMessages, window_messages
from kinbot_core.memory import MemoryContext
from kinbot_core.providers import (
    ChatRequest,
    ProviderError,
    TextDelta,
    ToolCallEvent,
    Usage,
)
from kinbot_core.providers.detail import shown_detail
from kinbot_core.tasks import TaskView
from kinbot_core.tools import Speaker, Tool
from kinbot_core.uploads import (
    ModelAttachment,
    UploadStore,
    attachment_ids,
)
from kinbot_core.usage import BudgetReached, for_turn, usage_for

if TYPE_CHECKING:
    from kinbot_core.platform import Platform

logger = logging.getLogger(__name__)

#: What the chat says of a turn that failed for a reason of KinBot's own (logged in full).
INTERNAL_ERROR = "an internal error stopped the turn (the server log has the details)."
#: Characters of the preceding message added to the memory query.
MEMORY_QUERY_CONTEXT_CHARS = 300


def speaker_of(message: MessageView) -> Speaker:
    """Who wrote an incoming message."""
    return Speaker(message.source, message.sender_id, message.sender_name or message.source)


class Turn(TurnTools):
    """Runs the turn started by one queued message."""

    def __init__(self, platform: Platform, claimed: Claimed) -> None:
        self.platform = platform
        kin = self.kin = claimed.kin
        trigger = self.trigger = claimed.message
        self._claimed = claimed
        self.speaker = speaker_of(trigger)
        self.ref = KinRef(id=kin.id, name=kin.name, model=kin.model, task_id=kin.task_id)
        #: For a sub-Kin: its task (loaded when the turn starts).
        self.task: TaskView | None = None
        #: Whose memories and contacts the turn uses: the Kin's, or for a sub-Kin the Kin it
        #: is a copy or an instance of.
        self.owner_id = kin.id
        self._memory_context: MemoryContext | None = None
        self._memory_fetched = False
        #: Users' attached files, by upload id, as the model gets them.
        self._attached: dict[str, ModelAttachment] = {}
        #: What the turn streams and runs before it is stored (read by the messages route).
        self.draft = TurnDraft(trigger.id)
        #: The newest message this turn stored (a model call after it starts a new step).
        self._last_stored = trigger.id
        #: Files the Kin attached (``attach_file``): the attachments of its final reply.
        self._outgoing: list[dict[str, Any]] = []
        #: Whether the turn had written something before it started (resumed after an
        #: approval or a restart): only then may its last step's calls wait for results.
        self._resumed = False
        #: The window's messages of the step's call, as converted (``window_messages``).
        self._window: WindowMessages | None = None

    async def run(self) -> str | None:
        """Run to the end; an error (the provider's, or any other, logged) becomes an error
        message in the chat and the warning state.
        Returns the error that ended the turn, if any.

        The Kin was marked thinking when its message was taken from the queue.
        """
        self.platform.bus.emit(KinStateChanged(kin_id=self.kin.id, state="thinking"))
        if self.kin.task_id is not None:
            self.task = await self.platform.tasks.of_session(self.kin.id)
            self.owner_id = self.task.kin_id if self.task else self.kin.id
        usage_for.set(for_turn(self.owner_id, self.trigger, self.task))  # the turn's own task
        # A vault value pasted in the message is masked before anything reads it.
        self.trigger = await self.platform.vault.screen(self.trigger)
        mask = self.platform.vault.masker().mask
        try:
            self._resumed = self._claimed.begun
            if not self._resumed:  # never cut mid-reply
                await self.platform.usage.refuse_over_budget()
            self._follow_superseded(self._claimed.latest)
            await self._steps()
        except approvals.ApprovalPending:  # the request is stored: the turn waits for it
            self.platform.bus.emit(KinStateChanged(kin_id=self.kin.id, state="idle"))
            return None
        except BudgetReached as error:
            return await self._fail(error.message, error.meta())
        except ProviderError as error:
            return await self._fail(error.message, meta.failure(error, mask))
        except Exception as error:
            logger.exception("turn of Kin %s failed", self.kin.id)
            return await self._fail(INTERNAL_ERROR, meta.failure(error, mask))
        self.platform.bus.emit(KinStateChanged(kin_id=self.kin.id, state="idle"))
        return None

    def _end(self, status: str, **after: Any) -> TurnEnd:
        return TurnEnd(self.trigger.id, status, **after)

    async def _fail(self, reason: str, facts: dict[str, Any]) -> str:
        """End the turn on ``reason``: an error message in the chat (``facts``: its meta,
        the error code the UI words and the provider's own message), the warning state.
        Addresses of this machine or its network never reach the stored sentence."""
        kins = self.platform.kins
        reason = shown_detail(reason) or reason
        await kins.add_message(
            self.kin.id,
            role="system",
            source="system",
            sender_name="KinBot",
            content=f"{self.kin.name} could not answer: {reason}",
            is_error=True,
            turn_of=self.trigger.id,
            meta=facts,
            ends=self._end("failed", state="error", error=reason, error_code=facts["error_code"]),
        )
        self.platform.bus.emit(KinStateChanged(kin_id=self.kin.id, state="error"))
        return reason

    async def _steps(self) -> None:
        """The turn's model calls and tool runs, to its last message (its reply, or the note
        that it stopped at the step cap), which ends the turn in the same transaction."""
        tools = await self._tools()
        by_name = {tool.name: tool for tool in tools}
        if self._resumed:  # its last step's calls that have no result yet run first
            for waiting in await approvals.unanswered_calls(self.platform, self.trigger.id):
                await self._run_tool(waiting, by_name)
        budget = await prompt_budget.budget_for(self.platform, self.kin.model)
        for _step in range(self.platform.settings.turn_max_steps):
            fitted = await self._fitted(tools, budget)
            self.draft.begin_step(self._last_stored)
            text, calls = await turn_fit.answer(
                self.platform,
                self.kin.id,
                fitted,
                self._call_model,
                lambda harder: self._fitted(tools, harder),
            )
            message = await self.platform.kins.add_message(
                self.kin.id,
                role="assistant",
                source="kin",
                sender_id=self.kin.id,
                sender_name=self.kin.name,
                content=text,
                tool_calls=[
                    {
                        "id": c.id,
                        "name": c.name,
                        "arguments": self.platform.vault.masker().mask_data(c.arguments),
                        "extra": c.extra,
                    }
                    for c in calls
                ]
                or None,
                attachments=json.dumps(self._outgoing) if self._outgoing and not calls else None,
                turn_of=self.trigger.id,
                ends=None if calls else self._end("done", state="idle"),
            )
            self._last_stored = message.id
            self.draft.begin_step(message.id)
            if not calls:
                self.platform.bus.emit(
                    KinMessageSent(kin_id=self.kin.id, message_id=str(message.id))
                )
                return
            for call in calls:
                await self._run_tool(call, by_name)
        await self.platform.kins.add_message(
            self.kin.id,
            role="system",
            source="system",
            sender_name="KinBot",
            content=f"{self.kin.name} stopped after {self.platform.settings.turn_max_steps} steps.",
            is_error=True,
            turn_of=self.trigger.id,
            meta=meta.stopped_turn(),
            ends=self._end("done", state="idle"),
        )

    async def _fitted(self, tools: list[Tool], budget: prompt_budget.PromptBudget) -> FittedPrompt:
        """The context of the next model call (after ``before_chat``) fitted to ``budget``."""
        context = await self._context(tools)
        await self.platform.hooks.call("before_chat", kin=self.ref, context=context)
        fitted = prompt_budget.fit(context, tools, budget, self._window)
        self.platform.compacting.note_prompt(self.kin.id, fitted.stable_tokens)
        return fitted

    def _follow_superseded(self, latest: int | None) -> None:
        """A retried message is answered again after its superseded reply (``latest``, the
        newest message of the turn): the first model call's step follows it, so that a
        browser never takes the old reply for the end of the new draft."""
        if latest is not None and latest > self._last_stored:
            self._last_stored = latest
            self.draft.begin_step(latest)

    async def _context(self, tools: list[Tool]) -> ChatContext:
        platform = self.platform
        # One after the other: each is nearly always kept in memory or one quick lookup on
        # this thread, where running them at once (four tasks) cost more than all of them.
        session = await platform.compacting.session(
            self.kin.id, platform.settings.compacting_max_messages
        )
        contacts = await platform.contacts.summary(self.owner_id)
        language = await self._language()
        memory = await self._memory()
        attached, vision = await self._attachments(session.messages)
        self._window = window_messages(self.kin.id, session.messages, attached, vision=vision)
        if session.summary:
            memory = replace(memory or MemoryContext(), summary=session.summary)
        sections = build_sections(
            self.kin,
            speaker=self.speaker,
            language=language,
            contacts=contacts,
            tools=tools,
            memory=memory,
            now=datetime.now().astimezone(),
            task=self._task_brief(),
        )
        return ChatContext(
            model=self.kin.model,
            system_prompt=sections,
            messages=platform.vault.reveal(self.trigger.id, self._window.given()),
            tools=[
                {"name": t.name, "description": t.description, "parameters": t.parameters}
                for t in tools
            ],
            speaker=self.speaker.name,
        )

    async def _attachments(
        self, history: list[MessageView]
    ) -> tuple[dict[str, ModelAttachment], bool]:
        """The files attached to the users' messages of the window (loaded once per turn),
        and whether the Kin's model can see images. (A Kin's own attached files are not shown
        to it again: its tool call and result say what it sent.)"""
        wanted = [
            i
            for m in history
            if m.attachments and m.role == "user"
            for i in attachment_ids(m.attachments)
        ]
        missing = [upload_id for upload_id in wanted if upload_id not in self._attached]
        if missing:
            store = UploadStore(self.platform.db, self.platform.settings)
            self._attached.update(await store.for_model(missing))
        if not wanted:
            return self._attached, False
        try:
            resolved = await self.platform.providers.resolve_model(self.kin.model)
        except ProviderError:
            return self._attached, False
        return self._attached, bool(resolved.llm.supports_vision(resolved.model))

    def _task_brief(self) -> TaskBrief | None:
        task = self.task
        if task is None:
            return None
        limit = self.platform.settings.task_max_request_input
        return TaskBrief(task.id, task.description, max(limit - task.input_requests, 0), task.depth)

    async def _language(self) -> str:
        if self.speaker.kind == "user" and self.speaker.id:
            return await self.platform.accounts.language_of(self.speaker.id)
        return "en"

    async def _memory(self) -> MemoryContext | None:
        """The memory context, fetched once per turn (its query is the incoming message and
        the recent context)."""
        if not self._memory_fetched:
            self._memory_context = await self._fetch_memory()
            self._memory_fetched = True
        return self._memory_context

    async def _memory_query(self) -> str:
        """The incoming message, then the message the Kin saw just before it (a short
        follow-up such as "and for her brother?" needs what it follows). A message with
        secrets hidden in it (``redaction_pending``) is left out until they are dealt with;
        the query may then be empty."""
        before = [
            message
            for message in await self.platform.kins.history(self.kin.id, 2)
            if message.id != self.trigger.id and message.role in ("user", "assistant")
        ]
        texts = [] if self.trigger.redaction_pending else [self.trigger.content]
        if before and not before[-1].redaction_pending:
            texts.append(before[-1].content[:MEMORY_QUERY_CONTEXT_CHARS])
        return "\n".join(text for text in texts if text.strip())

    async def _fetch_memory(self) -> MemoryContext | None:
        backends = list(self.platform.registries.memory_backends)
        if not backends:
            return None
        query = await self._memory_query()
        if not query:
            return None
        for backend in backends:
            try:
                context: MemoryContext = await backend.prompt_context(
                    self.platform, self.owner_id, query
                )
                return context
            except Exception:
                logger.exception("memory backend %s failed", backend.name)
        return None

    async def _call_model(self, fitted: FittedPrompt) -> tuple[str, list[ToolCallEvent]]:
        context = fitted.context
        request = ChatRequest(
            model=context.model,
            max_tokens=fitted.answer_tokens,
            system="\n\n".join(context.system_prompt),
            messages=chat_messages(context.messages) if fitted.chats is None else fitted.chats,
            tools=tool_specs(context.tools),
        )
        parts: list[str] = []
        calls: list[ToolCallEvent] = []
        started = time.perf_counter()
        # Vault values never leave in a reply, even split across deltas (held back, masked).
        masked = self.platform.vault.masker().stream()
        deltas = DeltaBatch(self._publish_delta)
        try:
            chat = self.platform.providers.chat(context.model, request, estimate=fitted.tokens)
            async for event in chat:
                if isinstance(event, TextDelta) and (shown := masked.feed(event.text)):
                    parts.append(shown)
                    deltas.add(shown)
                elif isinstance(event, ToolCallEvent):
                    calls.append(event)
                elif isinstance(event, Usage):
                    self.platform.compacting.note_usage(
                        self.kin.id, event.input_tokens + event.output_tokens
                    )
        except ProviderError as error:
            outcome = Outcome(duration=time.perf_counter() - started, error=error)
            await self.platform.hooks.call(
                "after_chat", kin=self.ref, context=context, outcome=outcome
            )
            raise
        finally:
            deltas.flush()
        if rest := masked.flush():
            parts.append(rest)
            self._publish_delta(rest)
        text = "".join(parts)
        outcome = Outcome(duration=time.perf_counter() - started, result=text)
        await self.platform.hooks.call("after_chat", kin=self.ref, context=context, outcome=outcome)
        return text, calls

    def _publish_delta(self, text: str) -> None:
        at = self.draft.add_text(text)
        self.platform.live.publish(
            "kin.delta",
            {
                "kin_id": self.kin.id,
                "turn": self.trigger.id,
                "step": self.draft.step,
                "at": at,
                "text": text,
            },
        )
