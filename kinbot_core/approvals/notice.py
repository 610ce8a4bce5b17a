"""Tell a person that a Kin waits for their approval, through their notification route (a
push to their phone, a message on their channel): the card waits in the Kin's chat, and a
person talking to the Kin from Telegram or away from the browser would not see it otherwise.

The notice names the Kin, never the call's arguments (they may hold a family's details that
a push service should not carry); the chat's card shows them.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from kinbot_core.db.models import User
from kinbot_core.notifications.recipients import default_recipient

if TYPE_CHECKING:
    from hookspecs.types import KinRef
    from kinbot_core.platform import Platform

logger = logging.getLogger(__name__)

#: The notice's title and text, in the recipient's language.
WORDS = {
    "en": ("{kin} asks before going ahead", "Open {kin}'s chat to allow it or decline."),
    "fr": (
        "{kin} demande avant d'agir",
        "Ouvrez la conversation de {kin} pour autoriser ou refuser.",
    ),
}


async def tell_the_asker(platform: Platform, kin: KinRef) -> None:
    """Notify the person the Kin would notify (who wrote to it last, else its creator) that
    a call waits for approval, linking to the chat. Never raises: the card is in the chat."""
    try:
        user_id = await default_recipient(platform, kin.id, kin.id, None)
        if user_id is None:
            return
        language = await platform.db.read(
            lambda: User.select(User.language).where(User.id == user_id).scalar()
        )
        title, body = WORDS.get(language or "en", WORDS["en"])
        await platform.notifications.notify(
            user_id,
            title.format(kin=kin.name),
            body.format(kin=kin.name),
            f"/kins/{kin.id}",
            kin_id=kin.id,
            kin_name=kin.name,
        )
    except Exception:
        logger.exception("the approval notice could not be sent")
