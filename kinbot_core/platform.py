"""One running KinBot: settings, database, event bus, plugins, hooks and registries together."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Coroutine
from typing import Any

from kinbot_core.accounts import AccountService
from kinbot_core.approvals import ApprovalService
from kinbot_core.backup.schedule import BackupService
from kinbot_core.channels.runtime import ChannelRuntime
from kinbot_core.compacting import CompactingService
from kinbot_core.config import Settings
from kinbot_core.contacts import ContactService
from kinbot_core.crons import Clock, CronService
from kinbot_core.db import Database
from kinbot_core.db.models import PluginState
from kinbot_core.egress import EgressProxy
from kinbot_core.events import CORE_EVENTS, Event, EventBus
from kinbot_core.events.catalogue import (
    KinStateChanged,
    PluginDisabled,
    PluginEnabled,
    PluginError,
    UserAccessChanged,
)
from kinbot_core.fulltext_queue import FulltextQueue
from kinbot_core.kins.access import KinAccessMap
from kinbot_core.kins.messaging import InterKinMessaging
from kinbot_core.kins.service import KinService
from kinbot_core.kins.session_window import SessionWindows
from kinbot_core.kins.workers import KinWorkers
from kinbot_core.live import LiveFeed
from kinbot_core.master_key import ensure_master_key
from kinbot_core.memory import MemoryAccess
from kinbot_core.notifications import NotificationService
from kinbot_core.plugins import HookCaller, PluginInfo, PluginManager, Registries
from kinbot_core.plugins.settings import PluginSettings
from kinbot_core.providers.background_settings import BackgroundModels
from kinbot_core.providers.service import ProviderService
from kinbot_core.providers.window_settings import ModelWindows
from kinbot_core.tasks import TaskService
from kinbot_core.tasks.pruning import SubKinPruning
from kinbot_core.usage import UsageService
from kinbot_core.vault import VaultService
from kinbot_core.webhooks import WebhookService

logger = logging.getLogger(__name__)


class Platform:
    """The engine, without HTTP. ``kinbot_web`` serves one; tests may build as many as they like.

    ``start`` opens the database (applying migrations), loads the plugins that are not
    disabled (by ``disabled_plugins`` or an administrator's persisted choice), and builds the
    registries. ``stop`` lets the event bus deliver what it holds, then closes the database.
    """

    def __init__(
        self,
        settings: Settings,
        *,
        plugins: PluginManager | None = None,
        load_entry_points: bool = True,
        clock: Clock | None = None,
    ) -> None:
        self.settings = settings
        #: "Now" for scheduling (real time unless set); several platforms may share one.
        self.clock = clock or Clock()
        self.plugins = plugins or PluginManager()
        self._load_entry_points = load_entry_points
        self.bus = EventBus(
            handler_timeout=settings.plugin_hook_timeout_seconds,
            on_handler_error=self._event_handler_failed,
        )
        for event_class in CORE_EVENTS:
            self.bus.register_type(event_class)
        self.hooks = HookCaller(
            self.plugins.pluggy,
            timeout=settings.plugin_hook_timeout_seconds,
            report=self._hook_failed,
            context={"platform": self},
        )
        self.registries = Registries()
        self.db = Database(
            settings.database_path,
            read_workers=settings.database_read_workers,
            busy_timeout=settings.database_busy_timeout_seconds,
        )
        self.accounts = AccountService(self.db, self.bus, settings)
        #: Each plugin's settings (``register_settings``): ``plugin_settings.get(name, Model)``.
        self.plugin_settings = PluginSettings(self.db, self.bus, lambda: self.master_key)
        self.master_key = b""
        #: What provider calls cost: usage records, prices, budgets.
        self.usage = UsageService(self)
        self.providers = ProviderService(
            self.db,
            self.bus,
            self.registries,
            settings,
            lambda: self.master_key,
            self.usage.recorder,
        )
        #: The platform-wide models of memory extraction and compacting (Settings).
        self.background_models = BackgroundModels(self)
        #: Context windows administrators give one model each from a Kin's settings.
        self.model_windows = ModelWindows(self)
        self.live = LiveFeed()
        #: Who may use each Kin (in memory); the live feed shows an item about a Kin only to them.
        self.kin_access = KinAccessMap(self.db)
        self.live.audience_of = self.kin_access.audience_of_event
        self.vault = VaultService(self.db, self.bus, self.live, lambda: self.master_key)
        self.kins = KinService(
            self.db,
            self.bus,
            self.live,
            settings.data_dir,
            screen=self.vault.pending.screen,
            windows=SessionWindows(self.db),
            check_model=self.providers.resolve_model,
        )
        self.contacts = ContactService(self.db, self.bus, settings.contacts_listed_max)
        self.webhooks = WebhookService(self.db, self.kins, settings, lambda: self.master_key)
        self.memory = MemoryAccess(self)
        self.workers = KinWorkers(self)
        self.approvals = ApprovalService(self)
        self.compacting = CompactingService(self)
        self.messaging = InterKinMessaging(self)
        self.tasks = TaskService(self)
        self.crons = CronService(self)
        #: Messaging channel connections (Telegram, e-mail…), pairings and deliveries.
        self.channels = ChannelRuntime(self)
        #: Notifications to people (Web Push and the routes channel plugins add).
        self.notifications = NotificationService(self)
        #: The proxy Kin code's network goes through (listening from its first use).
        self.egress = EgressProxy(settings)
        #: Scheduled and on-demand backups (``kinbot_core.backup``).
        self.backups = BackupService(self)
        #: Deletes ended sub-Kins after ``sub_kin_retention_days`` (``kinbot_core.tasks``).
        self.sub_kin_pruning = SubKinPruning(self)
        self.bus.on(KinStateChanged, self.compacting.on_kin_state)
        self.kins.workers = self.workers
        self.bus.on(UserAccessChanged, self._access_changed)
        self._plugin_lock = asyncio.Lock()
        self._background: set[asyncio.Task[Any]] = set()
        self.started = False
        self._stopped = False
        #: Set once the platform answers requests. Background catch-up (the backlog of the
        #: history indexer) waits for it, so that it does not slow the first answers down.
        self.serving = asyncio.Event()
        #: Writes the full-text terms of stored messages, a batch at a time.
        self.fulltext_queue = FulltextQueue(self.db, self.serving)

    async def start(self, *, serving: bool = True) -> None:
        """Open the database, load plugins, build the registries.

        Idempotent while running; a stopped platform does not start again (build a new one).
        If start-up fails, what was opened is closed again. ``serving=False`` leaves
        ``serving`` for the caller to set once its server answers (``kinbot serve`` does).
        """
        if self.started:
            return
        if self._stopped:
            raise RuntimeError("a stopped Platform cannot be started again")
        try:
            await self._start()
        except BaseException:
            await self._shutdown()
            raise
        self.started = True
        if serving:
            self.serving.set()

    async def _start(self) -> None:
        self.master_key = await ensure_master_key(self.settings)
        applied = await self.db.open()
        if applied:
            logger.info("database migrations applied: %s", ", ".join(applied))
        await self.kin_access.load()
        await self.background_models.load()
        await self.model_windows.load()
        await self.vault.open()  # before anything logs or runs a turn: values get masked
        await self.notifications.start()
        states = await self.db.read(_persisted_plugin_states)
        disabled = set(self.settings.disabled_plugins)
        disabled.update(name for name, enabled in states.items() if not enabled)
        if self._load_entry_points:
            self.plugins.load_entry_points(disabled=disabled)
        for name in disabled & set(self.plugins.names()):
            self.plugins.block(name)
        for name in self.plugins.names():
            await self._wire_events(name)
        await self.registries.rebuild(self.hooks)
        await self.plugin_settings.rebuild(self.hooks)
        await self.approvals.start()  # expires what expired while stopped, then watches
        await self.workers.start()
        await self.crons.start()
        await self.backups.start()
        self.sub_kin_pruning.start()
        self.fulltext_queue.start()
        await self.memory.start()
        await self.channels.start()

    async def stop(self) -> None:
        """Deliver pending events (within the shutdown grace) and close the database."""
        if not self.started:
            return
        self.started = False
        await self._shutdown()

    async def _shutdown(self) -> None:
        self._stopped = True
        self.crons.stop()
        await self.approvals.stop()
        await self.workers.stop(grace=self.settings.shutdown_grace_seconds)
        await self.channels.stop()
        await self.compacting.stop()
        for task in self._background:
            task.cancel()
        await asyncio.gather(*self._background, return_exceptions=True)
        await self.egress.stop()
        await self.backups.stop()
        await self.sub_kin_pruning.stop()
        await self.fulltext_queue.stop()
        await self.memory.stop()
        self.live.close_all()
        await self.providers.aclose()
        await self.usage.stop()
        await self.bus.close(grace=self.settings.shutdown_grace_seconds)
        await self.db.close()
        self.vault.close()

    def spawn(self, coroutine: Coroutine[Any, Any, Any], *, name: str) -> asyncio.Task[Any] | None:
        """Run ``coroutine`` in the background while the platform runs (plugins' deferred
        work): it is cancelled when the platform stops, before the database closes, so it
        must leave persisted state consistent at any await. Once the platform is stopping,
        the coroutine is closed without running and ``None`` is returned."""
        if self._stopped:
            coroutine.close()
            return None
        task = asyncio.get_running_loop().create_task(coroutine, name=name)
        self._background.add(task)
        task.add_done_callback(self._background.discard)
        return task

    # -- plugins -------------------------------------------------------------------------------

    def list_plugins(self) -> list[PluginInfo]:
        """Every known plugin, with the reason it is required when the registries say so."""
        return [self._with_essential(info) for info in self.plugins.list()]

    async def set_plugin_enabled(self, name: str, enabled: bool) -> PluginInfo:
        """Enable or disable a plugin now and remember the choice for the next starts.

        Raises ``UnknownPlugin``, or ``PluginRequired`` (with the reason) for a plugin the
        platform cannot run without.
        """
        async with self._plugin_lock:
            if self.plugins.is_enabled(name) == enabled:
                await self.db.write(_persist_plugin_state, name, enabled)
                return self._with_essential(self.plugins.info(name))
            if enabled:
                # Importing may be slow (a model, a big SDK): not on the event loop.
                await asyncio.to_thread(self.plugins.preload, name)
                if not self.plugins.enable(name):
                    return self.plugins.info(name)
            else:
                essential = self.registries.essential_to(name)
                self.plugins.check_can_disable(name, essential[1] if essential else None)
            # Stored first: if that fails, nothing has changed.
            try:
                await self.db.write(_persist_plugin_state, name, enabled)
            except BaseException:
                if enabled:
                    self.plugins.block(name)
                raise
            if enabled:
                await self._wire_events(name)
            else:
                self.plugins.block(name)
                self.bus.unsubscribe_owner(name)
                self.bus.unregister_types(name)
            await self.registries.rebuild(self.hooks)
            await self.plugin_settings.rebuild(self.hooks)
            await self.providers.forget_unavailable()
        self.bus.emit(PluginEnabled(plugin=name) if enabled else PluginDisabled(plugin=name))
        logger.info("plugin %s %s", name, "enabled" if enabled else "disabled")
        return self._with_essential(self.plugins.info(name))

    async def _wire_events(self, plugin: str) -> None:
        if not self.plugins.is_enabled(plugin):
            return

        def bind(owner: str) -> dict[str, Any]:
            return {
                "register": lambda event_class: self.bus.register_type(event_class, owner=owner),
                "subscribe": lambda pattern, handler: self.bus.on(pattern, handler, owner=owner),
            }

        await self.hooks.call("register_events", only=plugin, bind=bind)

    def _with_essential(self, info: PluginInfo) -> PluginInfo:
        if info.required or not info.enabled:
            return info
        essential = self.registries.essential_to(info.name)
        if essential is None:
            return info
        code, reason = essential
        return PluginInfo(**{**info.__dict__, "required": reason, "required_code": code})

    # -- failures ------------------------------------------------------------------------------

    def report_plugin_failure(self, plugin: str, where: str, exc: BaseException) -> None:
        """Publish a ``plugin.error`` for a failure the core caught outside a hook call
        (a plugin's route handler, say)."""
        self._publish_plugin_error(plugin, where, exc)

    def _access_changed(self, event: Event) -> None:
        if isinstance(event, UserAccessChanged):
            self.live.close_user(event.user_id)

    def _hook_failed(self, plugin: str, hook: str, exc: BaseException) -> None:
        self._publish_plugin_error(plugin, hook, exc)

    def _event_handler_failed(self, owner: str, event: Event, exc: BaseException) -> None:
        if owner != "core" and not isinstance(event, PluginError):
            self._publish_plugin_error(owner, f"event:{event.type}", exc)

    def _publish_plugin_error(self, plugin: str, hook: str, exc: BaseException) -> None:
        message = "timed out" if isinstance(exc, TimeoutError) else f"{type(exc).__name__}: {exc}"
        try:
            self.bus.emit(PluginError(plugin=plugin, hook=hook, error=message[:500]))
        except Exception:
            logger.exception("could not publish the failure of plugin %s", plugin)


def _persisted_plugin_states() -> dict[str, bool]:
    return {row.name: row.enabled for row in PluginState.select()}


def _persist_plugin_state(name: str, enabled: bool) -> None:
    (
        PluginState.insert(name=name, enabled=enabled, updated_at=time.time())
        .on_conflict_replace()
        .execute()
    )
