"""The web app over real HTTP: health, JSON errors, request validation, OpenAPI."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pydantic import BaseModel, Field
from quart import Blueprint, Quart
from quart_schema import validate_request

from kinbot_core import PluginRoute, hookimpl
from kinbot_core.config import Settings
from kinbot_core.platform import Platform
from kinbot_core.plugins import PluginManager
from kinbot_web.auth import public
from tests.support.accounts import set_up_admin
from tests.support.server import running_server


class Greeting(BaseModel):
    name: str = Field(min_length=1)
    times: int = Field(ge=1, le=3)


def add_test_routes(app: Quart) -> None:
    routes = Blueprint("test_routes", __name__)

    @routes.post("/api/test/greet")
    @public
    @validate_request(Greeting)
    async def greet(data: Greeting) -> dict[str, str]:
        return {"greeting": " ".join([f"hello {data.name}"] * data.times)}

    @routes.get("/api/test/crash")
    @public
    async def crash() -> dict[str, str]:
        raise RuntimeError("secret-internal-detail")

    app.register_blueprint(routes)


async def test_health_reports_the_database_and_sqlite_vec(platform: Platform) -> None:
    async with running_server(platform) as server:
        response = await server.client.get("/api/health")
    assert response.status_code == 200
    body = response.json()
    assert body["status"] == "ok"
    assert body["database"]["ok"] is True
    assert body["database"]["sqlite_vec_version"].startswith("v0.")
    assert body["database"]["fts5"] is True
    assert body["database"]["journal_mode"] == "wal"
    assert "0001_base" in body["database"]["migrations"]
    assert {"event_log", "metrics"} <= {p["name"] for p in body["plugins"]}


async def test_errors_are_json_with_code_and_message(platform: Platform) -> None:
    async with running_server(platform, configure=add_test_routes) as server:
        missing = await server.client.get("/api/nope")
        wrong_method = await server.client.delete("/api/health")
        crash = await server.client.get("/api/test/crash")
    assert missing.status_code == 404
    assert missing.json()["error"]["code"] == "not_found"
    assert wrong_method.status_code == 405
    assert wrong_method.json()["error"]["code"] == "method_not_allowed"
    assert crash.status_code == 500
    assert crash.json() == {
        "error": {"code": "internal_error", "message": "Something went wrong on the server."}
    }
    assert "secret-internal-detail" not in crash.text


async def test_invalid_requests_get_a_400_naming_the_fields(platform: Platform) -> None:
    async with running_server(platform, configure=add_test_routes) as server:
        ok = await server.client.post("/api/test/greet", json={"name": "Marie", "times": 2})
        invalid = await server.client.post("/api/test/greet", json={"name": "", "times": 9})
        not_json = await server.client.post(
            "/api/test/greet", content=b"{oops", headers={"Content-Type": "application/json"}
        )
    assert ok.json() == {"greeting": "hello Marie hello Marie"}
    assert invalid.status_code == 400
    error = invalid.json()["error"]
    assert error["code"] == "invalid_request"
    assert {f["field"] for f in error["details"]["fields"]} == {"name", "times"}
    assert not_json.status_code == 400
    assert "error" in not_json.json()


async def test_the_openapi_document_describes_the_api(platform: Platform) -> None:
    async with running_server(platform) as server:
        document = (await server.client.get("/openapi.json")).json()
    assert document["info"]["title"] == "KinBot API"
    assert "get" in document["paths"]["/api/health"]


async def test_plugin_routes_are_served_under_their_plugin(platform: Platform) -> None:
    async with running_server(platform) as server:
        await set_up_admin(server.client)
        metrics = await server.client.get("/api/ext/metrics/prometheus")
        wrong = await server.client.post("/api/ext/metrics/prometheus")
        unknown = await server.client.get("/api/ext/nobody/prometheus")
    assert metrics.status_code == 200
    assert metrics.headers["content-type"].startswith("text/plain")
    assert "kinbot_events_total" in metrics.text
    assert wrong.status_code == 405
    assert unknown.status_code == 404


class Broken:
    @staticmethod
    async def explode() -> dict[str, str]:
        raise RuntimeError("plugin-internal-detail")

    @hookimpl
    def register_routes(self, register: Callable[[PluginRoute], None]) -> None:
        register(PluginRoute("/explode", self.explode, access="public"))
        register(PluginRoute("/bad/<int:unclosed", self.explode, access="public"))
        register(PluginRoute("/fine", self.fine, access="public"))

    @staticmethod
    async def fine() -> dict[str, bool]:
        return {"fine": True}


async def test_a_failing_plugin_route_is_a_500_and_a_plugin_error(settings: Settings) -> None:
    manager = PluginManager()
    manager.register(Broken(), "broken")
    platform = Platform(settings, plugins=manager, load_entry_points=False)
    errors: list[dict[str, Any]] = []
    platform.bus.on("plugin.error", lambda event: errors.append(event.payload()))
    async with running_server(platform) as server:
        exploded = await server.client.get("/api/ext/broken/explode")
        fine = await server.client.get("/api/ext/broken/fine")
        await platform.bus.flush()
    assert exploded.status_code == 500
    assert exploded.json()["error"]["code"] == "plugin_error"
    assert "plugin-internal-detail" not in exploded.text
    assert fine.json() == {"fine": True}  # the malformed route did not break the others
    assert [(e["plugin"], e["hook"]) for e in errors] == [("broken", "route:/explode")]
