"""Each running channel connection as a notification route (``platform.notifications``):
a person with a linked account on it may choose "send it to me on Family Telegram" in My
account, and a Kin's ``notify`` then reaches them in their chat there, as a persisted
delivery (retried like a reply)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from kinbot_core.notifications import NoDevice, Notification

if TYPE_CHECKING:
    from kinbot_core.channels.runtime import ChannelRuntime


def route_name(connection_id: str) -> str:
    """The notification route of a connection (stored as a person's choice)."""
    return f"channel:{connection_id}"


def notification_text(notification: Notification, public_url: str) -> str:
    """A notification as a chat message (Markdown): its title in bold, its text, and the
    link to open it when KinBot has a public address."""
    parts = [f"**{notification.title}**" if notification.title else "", notification.body]
    if public_url:
        parts.append(notification.absolute_link(public_url))
    return "\n\n".join(part for part in parts if part.strip())


def offer(runtime: ChannelRuntime, connection_id: str, label: str) -> None:
    """Offer (or offer again, under a new label) the route of a connection."""

    async def deliver(user_id: str, notification: Notification) -> None:
        text = notification_text(notification, runtime.platform.settings.public_url)
        if not await runtime.send_to_user(connection_id, user_id, text):
            raise NoDevice(user_id)

    async def available(user_id: str) -> bool:
        return await runtime.can_reach(connection_id, user_id)

    runtime.platform.notifications.add_route(
        route_name(connection_id), deliver, available=available, label=label
    )


def withdraw(runtime: ChannelRuntime, connection_id: str) -> None:
    """Stop offering a connection's route (people who chose it are reached by push)."""
    runtime.platform.notifications.remove_route(route_name(connection_id))
