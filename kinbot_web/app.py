"""The Quart application factory."""

from __future__ import annotations

from hypercorn.middleware import ProxyFixMiddleware
from quart import Quart
from quart_schema import Info, QuartSchema

from kinbot_core import __version__
from kinbot_core.platform import Platform
from kinbot_web import errors, host_guard, json_output, keep_alive, kin_guard, plain_responses
from kinbot_web.app_context import EXTENSION_KEY
from kinbot_web.auth import middleware
from kinbot_web.blueprints import (
    approvals,
    auth,
    background_models,
    backups,
    channels,
    compacting,
    context_window,
    crons,
    custom_tools,
    events,
    frontend,
    health,
    history_search,
    hooks,
    kin_access,
    kin_avatars,
    kin_transfer,
    kins,
    mcp,
    me,
    memory_marks,
    notifications,
    onboarding,
    plugin_routes,
    plugins,
    providers,
    tasks,
    uploads,
    usage,
    users,
    vault,
    webhooks,
)
from kinbot_web.request_input import BoundedRequest

BLUEPRINTS = (
    health.blueprint,
    onboarding.blueprint,
    auth.blueprint,
    me.blueprint,
    notifications.blueprint,
    users.blueprint,
    plugins.blueprint,
    providers.coverage_blueprint,
    providers.ai_blueprint,
    providers.search_blueprint,
    kins.blueprint,
    memory_marks.blueprint,
    kin_access.blueprint,
    kin_transfer.blueprint,
    history_search.blueprint,
    compacting.blueprint,
    context_window.blueprint,
    crons.blueprint,
    tasks.blueprint,
    vault.blueprint,
    mcp.blueprint,
    channels.blueprint,
    custom_tools.blueprint,
    uploads.blueprint,
    kin_avatars.blueprint,
    webhooks.blueprint,
    approvals.blueprint,
    usage.blueprint,
    backups.blueprint,
    background_models.blueprint,
    hooks.blueprint,
    events.blueprint,
    plugin_routes.blueprint,
    frontend.blueprint,  # last: its fallback serves every other non-API path
)


def create_app(platform: Platform) -> Quart:
    """Build the web app serving ``platform``.

    The platform is started when the server starts serving (if it was not already) and
    stopped when the server shuts down.
    """
    settings = platform.settings
    app = Quart("kinbot_web")
    app.request_class = BoundedRequest  # JSON bodies parsed strictly and within bounds
    app.extensions[EXTENSION_KEY] = platform
    # The largest body any route accepts (an upload and its multipart framing); bigger
    # requests get 413 before being read.
    app.config["MAX_CONTENT_LENGTH"] = settings.upload_max_bytes + uploads.MULTIPART_SLACK
    make_plain_response = app.make_response
    QuartSchema(
        app,
        info=Info(title="KinBot API", version=__version__),
        openapi_path="/openapi.json",
        swagger_ui_path="/api/docs",
        redoc_ui_path=None,
        scalar_ui_path=None,
    )
    plain_responses.install(app, make_plain_response)
    json_output.install(app)
    errors.register(app)
    middleware.install(app)
    kin_guard.install(app)  # after the access policy: knows the user
    for blueprint in BLUEPRINTS:
        app.register_blueprint(blueprint)
    host_guard.install(app, settings)  # inside the proxy rewriting: sees the forwarded Host
    keep_alive.install(app)
    if settings.trusted_proxy_hops:
        app.asgi_app = ProxyFixMiddleware(  # type: ignore[method-assign]
            app.asgi_app, mode="legacy", trusted_hops=settings.trusted_proxy_hops
        )

    @app.before_serving
    async def start_platform() -> None:
        await platform.start()

    @app.after_serving
    async def stop_platform() -> None:
        await platform.stop()

    return app
