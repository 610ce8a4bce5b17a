"""Where webhook calls find their connection: the route's path and the connections in webhook
mode. Apart from ``connection`` so that the plugin's route needs no bot library to load."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from kinbot_plugins.channels.telegram.connection import TelegramConnection

#: Where the plugin's route receives webhook calls (under ``/api/ext/telegram``).
WEBHOOK_PATH = "/webhook/<connection_id>"

#: The connections running in webhook mode, by connection id (the route finds them here).
webhook_connections: dict[str, TelegramConnection] = {}
