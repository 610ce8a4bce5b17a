"""The ``notify`` tool: a Kin (or its sub-Kin, a cron's included) reaches a person who may not
be looking at the chat, over ``platform.notifications`` (``kinbot_core.notifications``).
Registered by the ``kin_messaging`` plugin (``kinbot_plugins.tools.messaging``)."""

from __future__ import annotations

import contextlib
from typing import Any

from kinbot_core.accounts.errors import NotFound
from kinbot_core.notifications.recipients import UnknownRecipient, find_user
from kinbot_core.notifications.types import BODY_MAX, TITLE_MAX, Outcome, app_path
from kinbot_core.tools import (
    ToolContext,
    ToolError,
    named_arguments,
    object_schema,
    optional_text,
    required_text,
)

#: What each outcome means, for the model.
NOTES = {
    "delivered": "The notification was sent to their device(s).",
    "skipped_preference": "Not sent: the person chose not to be notified now (their "
    "preference). They will see your message in the chat.",
    "rate_limited": "Not sent: you have sent too many notifications lately. Do not retry "
    "now; tell them in the chat instead.",
    "no_device": "Not sent: the person has not turned notifications on for any device.",
    "no_recipient": "Not sent: there is nobody to notify. Name the person with 'user'.",
    "failed": "Not sent: their device could not be reached. They will see your message in "
    "the chat.",
}


class NotifyTool:
    """``notify(title, body, user?, link?)``."""

    name = "notify"
    description = (
        "Send a notification to a person's phone or computer, for something they should know "
        "even when they are not looking at this chat (a result they wait for, an alert, a "
        "reminder). Without 'user', it goes to the person you are working for (who wrote to "
        "you; for a cron, who set it up). Clicking it opens this conversation unless you give "
        "a 'link'. The result says whether it was delivered, skipped by the person's "
        "preference, or refused because you sent too many."
    )
    parameters: dict[str, Any] = object_schema(
        {
            "user": {
                "type": "string",
                "description": "Who to notify: pseudonym, first name or user id. Leave it out "
                "for the person you are working for.",
            },
            "title": {
                "type": "string",
                "description": f"A short title (at most {TITLE_MAX} characters).",
            },
            "body": {
                "type": "string",
                "description": f"The message (at most {BODY_MAX} characters).",
            },
            "link": {
                "type": "string",
                "description": "A path of KinBot to open on click (e.g. /kins/<kin id>); "
                "left out: this conversation. Web addresses go in the body.",
            },
        },
        ["title", "body"],
    )
    prompt_hint = ""
    #: Its text leaves the platform (a push service, a chat platform): placeholders only.
    stores_arguments = True

    async def run(self, context: ToolContext, arguments: dict[str, Any]) -> dict[str, Any]:
        """Notify; return ``{"status", "to"?, "note", ...}``."""
        arguments = named_arguments(self, arguments)
        platform = context.platform
        title = required_text(arguments, "title")
        body = required_text(arguments, "body")
        named = optional_text(arguments, "user")
        user_id = None
        if named is not None and named.strip():
            try:
                user_id = (await find_user(platform, named)).id
            except UnknownRecipient as unknown:
                raise ToolError(str(unknown)) from None
        link = optional_text(arguments, "link")
        if link is not None and link.strip():
            link = app_path(link.strip())
            if link is None:
                raise ToolError(
                    "'link' must be a path of KinBot such as /kins/<kin id>; put web "
                    "addresses in the body."
                )
        else:
            link = await _conversation_link(context)
        outcome = await platform.notifications.notify(
            user_id,
            title,
            body,
            link,
            kin_id=context.owner_id,
            kin_name=context.kin_name,
            session_kin_id=context.kin_id,
            speaker=context.speaker,
        )
        return await _result(
            context, outcome, truncated=len(title) > TITLE_MAX or len(body) > BODY_MAX
        )


async def _conversation_link(context: ToolContext) -> str:
    """The Kin's chat at the message being answered; for a sub-Kin, its task's page."""
    if context.kin_id != context.owner_id:
        task = await context.platform.tasks.of_session(context.kin_id)
        if task is not None:
            return f"/tasks/{task.id}"
        return f"/kins/{context.owner_id}"
    if context.trigger_id is not None:
        return f"/kins/{context.kin_id}?message={context.trigger_id}"
    return f"/kins/{context.kin_id}"


async def _result(context: ToolContext, outcome: Outcome, *, truncated: bool) -> dict[str, Any]:
    result: dict[str, Any] = {"status": outcome.status}
    if outcome.user_id is not None:
        with contextlib.suppress(NotFound):
            result["to"] = (await context.platform.accounts.get(outcome.user_id)).pseudonym
    if outcome.mode is not None:
        result["preference"] = outcome.mode
    if outcome.retry_after is not None:
        result["retry_after_seconds"] = outcome.retry_after
    if truncated and outcome.status == "delivered":
        result["truncated"] = True
    result["note"] = NOTES[outcome.status]
    return result
