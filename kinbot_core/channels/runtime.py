"""Running the configured channel connections: one supervised task per enabled connection,
started with the platform and whenever a connection or a channel plugin changes, stopped
cleanly at shutdown; and the loop that delivers replies.

A supervisor opens its connection and runs its receive loop. When the loop fails with a
retryable error it opens it again after a backoff (``retrying``); after
``channel_failing_after`` failures in a row (of receiving or of delivering) the connection
shows as ``failing`` with the error's code, and it keeps trying. An error that cannot be
retried (a refused token) shows ``failing`` at once and stops it until its settings change.
A connection whose channel type no plugin provides (its plugin disabled) is ``unavailable``.
Each connection that should run is also offered as a notification route (``notify_routes``).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import TYPE_CHECKING, Any

from kinbot_core.channels import kin_choice, notify_routes
from kinbot_core.channels.connections import ConnectionNotFound, ConnectionService
from kinbot_core.channels.deliveries import DeliveryService, backoff
from kinbot_core.channels.errors import (
    ChannelConfigError,
    ChannelError,
    ChannelSettingsUnreadable,
    ChannelUnavailable,
)
from kinbot_core.channels.identities import IdentityService
from kinbot_core.channels.identity_records import LinkResult
from kinbot_core.channels.inbox import ConnectionInbox
from kinbot_core.channels.notices import linked_text
from kinbot_core.channels.splitting import split_message
from kinbot_core.channels.types import ChannelConnection, ChannelType
from kinbot_core.db.models import ChannelBindingRecord, ChannelConnectionRecord, KinRecord
from kinbot_core.events import Event
from kinbot_core.events.catalogue import KinStateChanged, PluginDisabled, PluginEnabled
from kinbot_core.kins.access import user_may_use_now
from kinbot_core.schema_settings import SettingsInvalid, SettingsKeyChanged, SettingsUnreadable
from kinbot_core.vault.masking import LogScrubber, Masker, install, uninstall

if TYPE_CHECKING:
    from kinbot_core.platform import Platform

logger = logging.getLogger(__name__)

#: How long closing a connection may take at shutdown or restart.
CLOSE_TIMEOUT = 5.0
#: Attempts at sending a message that is not stored (a pairing code).
NOW_ATTEMPTS = 3


class ChannelRuntime:
    """Every channel connection of the platform, and what they deliver."""

    def __init__(self, platform: Platform) -> None:
        self.platform = platform
        self.connections = ConnectionService(
            platform.db, platform.registries, lambda: platform.master_key
        )
        self.identities = IdentityService(
            platform.db, platform.settings, platform.contacts, lambda: platform.master_key
        )
        self.deliveries = DeliveryService(self)
        self._supervisors: dict[str, asyncio.Task[None]] = {}
        self._live: dict[str, tuple[ChannelType, ChannelConnection]] = {}
        self._failures: dict[str, int] = {}
        #: The state last recorded per connection (so a poll that works writes nothing).
        self._shown: dict[str, tuple[str, str | None]] = {}
        self._secrets: dict[str, list[str]] = {}
        self._scrubber = LogScrubber()
        self._lock = asyncio.Lock()
        self._sender: asyncio.Task[None] | None = None
        self._started = False

    # -- lifecycle ---------------------------------------------------------------------------

    async def start(self) -> None:
        """Start every enabled connection and the delivery loop (after the registries)."""
        install(self._scrubber)
        bus = self.platform.bus
        bus.on(KinStateChanged, self._turn_ended)
        bus.on(PluginEnabled, self._plugins_changed)
        bus.on(PluginDisabled, self._plugins_changed)
        self._started = True
        await self.deliveries.reconcile()
        self._sender = asyncio.get_running_loop().create_task(
            self.deliveries.run(), name="channel-deliveries"
        )
        await self.refresh()

    async def stop(self) -> None:
        """Stop every connection (closing its clients) and the delivery loop."""
        self._started = False
        async with self._lock:
            supervisors = list(self._supervisors.values())
            self._supervisors.clear()
        for task in supervisors:
            task.cancel()
        if self._sender is not None:
            self._sender.cancel()
            supervisors.append(self._sender)
        await asyncio.gather(*supervisors, return_exceptions=True)
        uninstall(self._scrubber)

    async def refresh(self, connection_id: str | None = None) -> None:
        """Bring the running connections in line with their configuration: (re)start
        ``connection_id`` (or, with ``None``, start the ones that should run and are not,
        stop the ones that should not)."""
        if not self._started:
            return
        async with self._lock:
            rows: list[ChannelConnectionRecord] = await self.platform.db.read(
                lambda: list(ChannelConnectionRecord.select())
            )
            known = {row.id: row for row in rows}
            targets = [connection_id] if connection_id is not None else list(known)
            if connection_id is None:
                targets += [key for key in self._supervisors if key not in known]
            for key in targets:
                row = known.get(key)
                should_run = (
                    row is not None
                    and bool(row.enabled)
                    and self.platform.registries.channels.get(row.type) is not None
                )
                running = key in self._supervisors and not self._supervisors[key].done()
                if running and (connection_id is not None or not should_run):
                    await self._halt(key)
                    running = False
                if row is None or not should_run:
                    notify_routes.withdraw(self, key)
                else:
                    notify_routes.offer(self, key, row.label)
                if row is None:
                    continue
                if should_run and not running:
                    self._failures.pop(key, None)
                    # Said before the answer to the change that started it: the first
                    # connection is made in the background.
                    await self._set_state(key, "starting", None)
                    self._supervisors[key] = asyncio.get_running_loop().create_task(
                        self._supervise(key), name=f"channel-{key}"
                    )
                elif not should_run:
                    state = "stopped" if not row.enabled else "unavailable"
                    await self._set_state(key, state, None)

    async def _halt(self, connection_id: str) -> None:
        task = self._supervisors.pop(connection_id, None)
        self._shown.pop(connection_id, None)
        if task is not None:
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
        self._secrets.pop(connection_id, None)
        self._update_scrubber()

    # -- what the inbox and the delivery loop ask ---------------------------------------------

    def live(self, connection_id: str) -> tuple[ChannelType, ChannelConnection] | None:
        """The running connection ``connection_id`` and its type, if it runs."""
        return self._live.get(connection_id)

    def note_working(self, connection_id: str) -> None:
        """The platform answered: a retrying or failing connection runs again."""
        self._failures.pop(connection_id, None)
        if self._shown.get(connection_id) != ("running", None):
            self._shown[connection_id] = ("running", None)
            self.platform.spawn(
                self.connections.set_state(connection_id, "running", None), name="channel-state"
            )

    async def note_failure(self, connection_id: str, error: ChannelError) -> str:
        """Count a failure of the connection; returns the state it now shows."""
        failures = self._failures.get(connection_id, 0) + 1
        self._failures[connection_id] = failures
        threshold = self.platform.settings.channel_failing_after
        state = "failing" if not error.retryable or failures >= threshold else "retrying"
        await self._set_state(connection_id, state, error.code)
        return state

    def send_now(self, connection_id: str, chat_id: str, text: str) -> None:
        """Send a message that is not stored (a pairing code) in the background, retrying a
        few times if the platform asks; dropped if the connection is not running."""
        self.platform.spawn(self._send_now(connection_id, chat_id, text), name="channel-notice")

    def show_typing(self, connection_id: str, chat_id: str) -> None:
        """Show the Kin writing in ``chat_id`` (best effort)."""
        live = self._live.get(connection_id)
        if live is not None:
            self.platform.spawn(_quietly(live[1].typing(chat_id)), name="channel-typing")

    async def announce_link(self, link: LinkResult) -> None:
        """Tell the person, in their chat, that their account is now linked."""
        identity = link.identity
        platform = self.platform
        if identity.kin_id is None:  # a member: the first Kin they may use
            bound = await platform.db.read(kin_choice.bound_kins, identity.connection_id)
            usable = [k.name for k in bound if user_may_use_now(platform, identity.user_id, k.id)]
            kin_name = usable[0] if usable else None
        else:
            kin_name = await platform.db.read(
                _kin_name_for, identity.connection_id, identity.kin_id
            )
        name = identity.user_name or identity.contact_name or identity.display_name
        await self.deliveries.notice(
            identity.connection_id,
            link.chat_id,
            linked_text(name, kin_name or "KinBot", link.language),
        )

    async def can_reach(self, connection_id: str, user_id: str) -> bool:
        """Whether the user has a linked account with a direct chat on the connection (a
        notification route through it can reach them)."""
        chats = await self.identities.chats_of(user_id)
        return any(connection == connection_id for connection, _ in chats)

    async def send_to_user(self, connection_id: str, user_id: str, text: str) -> bool:
        """Queue ``text`` (Markdown) for the user's direct chat on the connection, as a
        persisted delivery (retried like a reply); ``False`` when they have none there."""
        for connection, chat_id in await self.identities.chats_of(user_id):
            if connection == connection_id:
                await self.deliveries.notice(connection_id, chat_id, text)
                return True
        return False

    async def health(self) -> list[dict[str, Any]]:
        """Each connection's id, type, state and error code (for ``/api/health``: read
        straight from the table, no setting opened)."""

        def load() -> list[dict[str, Any]]:
            query = ChannelConnectionRecord.select().order_by(ChannelConnectionRecord.created_at)
            return [
                {
                    "id": row.id,
                    "type": row.type,
                    "state": row.state if row.enabled else "stopped",
                    "error_code": row.last_error_code,
                }
                for row in query
            ]

        found: list[dict[str, Any]] = await self.platform.db.read(load)
        return found

    async def remove(self, connection_id: str) -> None:
        """Stop a connection, then delete it (``ConnectionNotFound`` if there is none)."""
        async with self._lock:
            await self._halt(connection_id)
            await self.connections.delete(connection_id)
            notify_routes.withdraw(self, connection_id)

    # -- supervision -------------------------------------------------------------------------

    async def _supervise(self, connection_id: str) -> None:
        settings = self.platform.settings
        try:
            while True:
                error = await self._run_once(connection_id)
                if error is None:
                    return
                state = await self.note_failure(connection_id, error)
                if not error.retryable:
                    logger.warning(
                        "channel %s stopped (%s): %s", connection_id, error.code, error.message
                    )
                    return
                wait = backoff(
                    self._failures.get(connection_id, 1),
                    settings.channel_retry_base_seconds,
                    settings.channel_retry_max_seconds,
                    getattr(error, "retry_after", None),
                )
                logger.warning(
                    "channel %s %s (%s), opened again in %.1f s: %s",
                    connection_id,
                    state,
                    error.code,
                    wait,
                    error.message,
                )
                await asyncio.sleep(wait)
        except ConnectionNotFound:
            return

    async def _run_once(self, connection_id: str) -> ChannelError | None:
        """Open the connection and run it until it fails (the error) or is cancelled."""
        row: ChannelConnectionRecord | None = await self.platform.db.read(
            lambda: ChannelConnectionRecord.get_or_none(ChannelConnectionRecord.id == connection_id)
        )
        if row is None or not row.enabled:
            return None
        channel_type: ChannelType | None = self.platform.registries.channels.get(row.type)
        if channel_type is None:
            await self._set_state(connection_id, "unavailable", None)
            return None
        try:
            settings = await self.connections.settings_of(connection_id)
            self._secrets[connection_id] = await self.connections.secret_values(connection_id)
        except SettingsKeyChanged:
            logger.warning(
                "channel %s: its secrets were sealed under another master key (a backup "
                "restored without its secret.key?): enter them again in Settings, Channels, "
                "or put the original key back",
                connection_id,
            )
            return ChannelSettingsUnreadable("the settings' secrets cannot be opened")
        except (SettingsInvalid, SettingsUnreadable) as exc:
            logger.warning("channel %s: its settings cannot be used: %s", connection_id, exc)
            return ChannelConfigError("the settings cannot be used")
        self._update_scrubber()
        if self._failures.get(connection_id) is None:
            await self._set_state(connection_id, "starting", None)
        inbox = ConnectionInbox(self, connection_id, channel_type.name, row.label, row.cursor)
        try:
            connection = channel_type.open(settings, inbox)
        except ChannelError as error:
            return error
        self._live[connection_id] = (channel_type, connection)
        self.deliveries.wake()
        try:
            await connection.run()
            return ChannelUnavailable("the receive loop ended")
        except ChannelError as error:
            return error
        except Exception as exc:  # a plugin's bug: shown as failing, retried like the network
            logger.exception("channel %s: its receive loop failed", connection_id)
            return ChannelUnavailable(f"the receive loop failed ({type(exc).__name__})")
        finally:
            self._live.pop(connection_id, None)
            with contextlib.suppress(Exception):
                async with asyncio.timeout(CLOSE_TIMEOUT):
                    await asyncio.shield(connection.close())

    async def _set_state(self, connection_id: str, state: str, error_code: str | None) -> None:
        if self._shown.get(connection_id) != (state, error_code):
            self._shown[connection_id] = (state, error_code)
            await self.connections.set_state(connection_id, state, error_code)

    async def _send_now(self, connection_id: str, chat_id: str, text: str) -> None:
        settings = self.platform.settings
        for attempt in range(1, NOW_ATTEMPTS + 1):
            live = self._live.get(connection_id)
            if live is None:
                return
            channel_type, connection = live
            try:
                for part in split_message(text, channel_type.max_message_length):
                    await connection.send(chat_id, part)
                return
            except ChannelError as error:
                if not error.retryable or attempt == NOW_ATTEMPTS:
                    logger.warning(
                        "channel %s: a notice could not be sent (%s)", connection_id, error.code
                    )
                    return
                await asyncio.sleep(
                    backoff(
                        attempt,
                        settings.channel_retry_base_seconds,
                        settings.channel_retry_max_seconds,
                        getattr(error, "retry_after", None),
                    )
                )

    def _update_scrubber(self) -> None:
        values = {
            f"CHANNEL_SECRET_{index}": value
            for index, value in enumerate(v for values in self._secrets.values() for v in values)
        }
        self._scrubber.update(Masker(values))

    # -- events ------------------------------------------------------------------------------

    async def _turn_ended(self, event: Event) -> None:
        if isinstance(event, KinStateChanged) and event.state != "thinking":
            await self.deliveries.reconcile()

    async def _plugins_changed(self, event: Event) -> None:
        await self.refresh()


async def _quietly(awaitable: Any) -> None:
    with contextlib.suppress(Exception):
        await awaitable


def _kin_name_for(connection_id: str, kin_id: str | None) -> str | None:
    """The name of ``kin_id``, or of the first Kin the connection talks to."""
    if kin_id is None:
        binding = (
            ChannelBindingRecord.select()
            .where(ChannelBindingRecord.connection == connection_id)
            .order_by(ChannelBindingRecord.position)
            .first()
        )
        if binding is None:
            return None
        kin_id = binding.__data__["kin"]
    kin = KinRecord.get_or_none(KinRecord.id == kin_id)
    return str(kin.name) if kin is not None else None
