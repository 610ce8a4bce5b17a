"""The Quart application factory."""

from __future__ import annotations

from quart import Quart
from quart_schema import Info, QuartSchema

from kinbot_core import __version__
from kinbot_core.platform import Platform
from kinbot_web import errors
from kinbot_web.app_context import EXTENSION_KEY
from kinbot_web.blueprints import health, plugin_routes


def create_app(platform: Platform) -> Quart:
    """Build the web app serving ``platform``.

    The platform is started when the server starts serving (if it was not already) and
    stopped when the server shuts down.
    """
    app = Quart("kinbot_web")
    app.extensions[EXTENSION_KEY] = platform
    QuartSchema(
        app,
        info=Info(title="KinBot API", version=__version__),
        openapi_path="/openapi.json",
        swagger_ui_path="/api/docs",
        redoc_ui_path=None,
        scalar_ui_path=None,
    )
    errors.register(app)
    app.register_blueprint(health.blueprint)
    app.register_blueprint(plugin_routes.blueprint)

    @app.before_serving
    async def start_platform() -> None:
        await platform.start()

    @app.after_serving
    async def stop_platform() -> None:
        await platform.stop()

    return app
