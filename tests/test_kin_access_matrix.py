"""Who sees a restricted Kin: every API route and every live event kind, table-driven.

Three people: Nicolas (administrator, allowed), Marie (member, allowed) and Paul (member, not
allowed). The Kin "Zebulon Vault" is restricted to Nicolas and Marie, then used for real: a
conversation with a memory, a sub-Kin task, a cron, an upload, a webhook, an avatar, an
attempt to talk to a shared Kin. Then every route of the app is called as Paul with the
Kin's real objects in its path (and body), and one item of every live event kind is published
about the Kin: nothing Paul receives holds the Kin's id, name or words. Every route and event
kind must be classified below: adding one without classifying it fails the test.
"""

from __future__ import annotations

import io
import json
import re
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from PIL import Image
from werkzeug.routing import Rule

from kinbot_core.db.models import TaskRecord
from kinbot_core.live import KINDS
from kinbot_web.auth.access import access_of
from kinbot_web.auth.middleware import LIBRARY_PUBLIC_ENDPOINTS
from tests.support.accounts import MARIE, person, register
from tests.support.fakes import FakeOpenAI, Reply
from tests.support.kin_chat import make_kin, reply_to, serve_with_openai, session, tell
from tests.support.server import RunningServer
from tests.support.sse import SseReader, sse_stream

#: Names the Kin's things, by one of its ids in the path (or a body's ``kin_id``): 404 for
#: a member who may not use it, 403 on an administrator's route.
KIN = "kin"
#: Read by anyone signed in (lists, own account, catalogues): called; no trace of the Kin.
READ = "read"
#: An administrator's route naming no Kin: 403 for a member (tests/test_users.py).
ADMIN = "admin"
#: Not called as Paul, for the reason given: it changes only his own account or session, or
#: needs no session at all (its credential is elsewhere).
NOT_CALLED = "not called"

ROUTES: dict[tuple[str, str], str] = {
    ("GET", "/api/kins/<kin_id>/export"): KIN,
    ("POST", "/api/kins/import"): READ,  # a new Kin of Paul's own, from a file
    ("GET", "/api/kins/<kin_id>/approvals"): KIN,
    # A decision names a waiting request, not the Kin: tests/test_approvals.py gives a member
    # who may not use its Kin a real request's id (404, and none of its events).
    ("POST", "/api/approvals/<approval_id>/decision"): READ,
    ("GET", "/api/approval-rules"): ADMIN,
    ("PUT", "/api/approval-rules/<tool_name>"): ADMIN,
    ("GET", "/api/kins/<kin_id>/approval-rules"): KIN,
    ("PUT", "/api/kins/<kin_id>/approval-rules/<tool_name>"): KIN,
    ("GET", "/api/usage"): ADMIN,
    ("GET", "/api/me/usage"): READ,
    ("GET", "/api/usage/prices"): ADMIN,
    ("PUT", "/api/usage/prices/<model>"): ADMIN,
    ("DELETE", "/api/usage/prices/<model>"): ADMIN,
    ("GET", "/api/usage/budgets"): ADMIN,
    ("PUT", "/api/usage/budgets"): ADMIN,
    ("DELETE", "/api/usage/budgets/<budget_id>"): ADMIN,
    ("GET", "/api/backups"): ADMIN,
    ("PUT", "/api/backups/schedule"): ADMIN,
    ("POST", "/api/backups"): ADMIN,
    ("GET", "/api/backups/<run_id>/file"): ADMIN,
    ("GET", "/api/settings/background-models"): ADMIN,
    ("PUT", "/api/settings/background-models"): ADMIN,
    ("GET", "/api/auth/invitations/<code>"): NOT_CALLED,  # public: an invitation's code
    ("POST", "/api/auth/login"): NOT_CALLED,  # public: signing in
    ("POST", "/api/auth/logout"): NOT_CALLED,  # ends Paul's own session
    ("POST", "/api/auth/register"): NOT_CALLED,  # public: an invitation's code
    ("GET", "/api/channels"): ADMIN,
    ("POST", "/api/channels"): KIN,  # binds Kins (kin_ids in the body)
    ("GET", "/api/channels/<channel_id>"): ADMIN,
    ("PATCH", "/api/channels/<channel_id>"): KIN,
    ("DELETE", "/api/channels/<channel_id>"): ADMIN,
    ("GET", "/api/channels/<channel_id>/contacts"): ADMIN,
    ("GET", "/api/channels/identities"): ADMIN,
    ("DELETE", "/api/channels/identities/<identity_id>"): ADMIN,
    ("GET", "/api/channels/pairings"): ADMIN,
    ("DELETE", "/api/channels/pairings/<pairing_id>"): ADMIN,
    ("POST", "/api/channels/pairings/<pairing_id>/link"): KIN,
    ("GET", "/api/channels/types"): ADMIN,
    ("GET", "/api/crons"): READ,
    ("POST", "/api/crons"): KIN,
    ("GET", "/api/crons/<cron_id>"): KIN,
    ("PATCH", "/api/crons/<cron_id>"): KIN,
    ("DELETE", "/api/crons/<cron_id>"): KIN,
    ("POST", "/api/crons/<cron_id>/confirm"): KIN,
    ("GET", "/api/events"): NOT_CALLED,  # the live stream: the events part below
    ("DELETE", "/api/ext/<plugin>/"): READ,
    ("GET", "/api/ext/<plugin>/"): READ,
    ("PATCH", "/api/ext/<plugin>/"): READ,
    ("POST", "/api/ext/<plugin>/"): READ,
    ("PUT", "/api/ext/<plugin>/"): READ,
    ("DELETE", "/api/ext/<plugin>/<path:rest>"): READ,
    ("GET", "/api/ext/<plugin>/<path:rest>"): READ,
    ("PATCH", "/api/ext/<plugin>/<path:rest>"): READ,
    ("POST", "/api/ext/<plugin>/<path:rest>"): READ,
    ("PUT", "/api/ext/<plugin>/<path:rest>"): READ,
    ("GET", "/api/health"): READ,
    ("POST", "/api/hooks/<token>"): NOT_CALLED,  # public: the webhook's token is the credential
    ("GET", "/api/invitations"): ADMIN,
    ("POST", "/api/invitations"): ADMIN,
    ("DELETE", "/api/invitations/<invitation_id>"): ADMIN,
    ("GET", "/api/kin-access"): ADMIN,
    ("GET", "/api/kins"): READ,
    ("POST", "/api/kins"): NOT_CALLED,  # creates a Kin of Paul's own
    ("GET", "/api/kins/<kin_id>"): KIN,
    ("PATCH", "/api/kins/<kin_id>"): KIN,
    ("DELETE", "/api/kins/<kin_id>"): KIN,
    ("GET", "/api/kins/<kin_id>/access"): KIN,
    ("PUT", "/api/kins/<kin_id>/access"): KIN,
    ("PUT", "/api/kins/<kin_id>/avatar"): KIN,
    ("GET", "/api/kins/<kin_id>/avatar"): KIN,
    ("POST", "/api/kins/<kin_id>/avatar/generate"): KIN,
    ("GET", "/api/kins/<kin_id>/avatar/modes"): KIN,
    ("GET", "/api/kins/<kin_id>/compacting"): KIN,
    ("GET", "/api/kins/<kin_id>/context-window"): KIN,
    ("PUT", "/api/kins/<kin_id>/context-window"): KIN,
    ("DELETE", "/api/kins/<kin_id>/context-window"): KIN,
    ("POST", "/api/kins/<kin_id>/compacting"): KIN,
    ("POST", "/api/kins/<kin_id>/compacting/purge"): KIN,
    ("POST", "/api/kins/<kin_id>/compacting/rollback"): KIN,
    ("GET", "/api/kins/<kin_id>/custom-tools"): KIN,
    ("DELETE", "/api/kins/<kin_id>/custom-tools/<name>"): KIN,
    ("GET", "/api/kins/<kin_id>/history/search"): KIN,
    ("GET", "/api/kins/<kin_id>/mcp-servers"): KIN,
    ("PUT", "/api/kins/<kin_id>/mcp-servers"): KIN,
    ("GET", "/api/kins/<kin_id>/memories"): KIN,
    ("DELETE", "/api/kins/<kin_id>/memories/<memory_id>"): KIN,
    ("PATCH", "/api/kins/<kin_id>/memories/<memory_id>"): KIN,
    ("GET", "/api/kins/<kin_id>/memories/embedding"): KIN,
    ("GET", "/api/kins/<kin_id>/messages"): KIN,
    ("POST", "/api/kins/<kin_id>/messages"): KIN,
    ("POST", "/api/kins/<kin_id>/messages/<message_id>/secrets/<number>/dismiss"): KIN,
    ("POST", "/api/kins/<kin_id>/messages/<message_id>/secrets/<number>/store"): KIN,
    ("POST", "/api/kins/<kin_id>/messages/<message_id>/redeliver"): KIN,
    ("POST", "/api/kins/<kin_id>/retry"): KIN,
    ("POST", "/api/kins/<kin_id>/stop"): KIN,
    ("POST", "/api/kins/<kin_id>/uploads"): KIN,
    ("GET", "/api/mcp-servers"): READ,
    ("POST", "/api/mcp-servers"): ADMIN,
    ("GET", "/api/mcp-servers/<server_id>"): READ,
    ("PATCH", "/api/mcp-servers/<server_id>"): ADMIN,
    ("DELETE", "/api/mcp-servers/<server_id>"): ADMIN,
    ("POST", "/api/mcp-servers/<server_id>/reconnect"): ADMIN,
    ("GET", "/api/me"): READ,
    ("PATCH", "/api/me"): NOT_CALLED,  # Paul's own account
    ("PUT", "/api/me/avatar"): NOT_CALLED,  # Paul's own account
    ("DELETE", "/api/me/avatar"): NOT_CALLED,  # Paul's own account
    ("GET", "/api/me/channel-identities"): READ,
    ("POST", "/api/me/channel-identities"): NOT_CALLED,  # Paul's own account
    ("DELETE", "/api/me/channel-identities/<identity_id>"): NOT_CALLED,  # Paul's own account
    ("GET", "/api/me/notifications"): READ,
    ("PATCH", "/api/me/notifications"): NOT_CALLED,  # Paul's own account
    ("POST", "/api/me/notifications/test"): NOT_CALLED,  # Paul's own account
    ("GET", "/api/me/push-subscriptions"): READ,
    ("POST", "/api/me/push-subscriptions"): NOT_CALLED,  # Paul's own account
    ("DELETE", "/api/me/push-subscriptions"): NOT_CALLED,  # Paul's own account
    ("DELETE", "/api/me/push-subscriptions/<subscription_id>"): NOT_CALLED,  # Paul's own
    ("GET", "/api/members"): READ,
    ("GET", "/api/onboarding"): READ,
    ("POST", "/api/onboarding/identity"): NOT_CALLED,  # public: the first administrator
    ("POST", "/api/onboarding/search-providers/skip"): ADMIN,
    ("GET", "/api/plugins"): ADMIN,
    ("PATCH", "/api/plugins/<name>"): ADMIN,
    ("GET", "/api/plugins/<name>/settings"): ADMIN,
    ("PUT", "/api/plugins/<name>/settings"): ADMIN,
    ("GET", "/api/providers"): READ,
    ("POST", "/api/providers"): ADMIN,
    ("GET", "/api/providers/<provider_id>"): READ,
    ("PATCH", "/api/providers/<provider_id>"): ADMIN,
    ("DELETE", "/api/providers/<provider_id>"): ADMIN,
    ("GET", "/api/providers/<provider_id>/models"): READ,
    ("POST", "/api/providers/<provider_id>/test"): ADMIN,
    ("GET", "/api/providers/coverage"): READ,
    ("POST", "/api/providers/test"): ADMIN,
    ("GET", "/api/providers/types"): READ,
    ("GET", "/api/search-providers"): READ,
    ("POST", "/api/search-providers"): ADMIN,
    ("GET", "/api/search-providers/<provider_id>"): READ,
    ("PATCH", "/api/search-providers/<provider_id>"): ADMIN,
    ("DELETE", "/api/search-providers/<provider_id>"): ADMIN,
    ("GET", "/api/search-providers/<provider_id>/models"): READ,
    ("POST", "/api/search-providers/<provider_id>/test"): ADMIN,
    ("POST", "/api/search-providers/test"): ADMIN,
    ("GET", "/api/search-providers/types"): READ,
    ("GET", "/api/tasks"): READ,
    ("GET", "/api/tasks/<task_id>"): KIN,
    ("POST", "/api/tasks/<task_id>/cancel"): KIN,
    ("GET", "/api/uploads/<upload_id>"): KIN,
    ("GET", "/api/users"): ADMIN,
    ("PATCH", "/api/users/<user_id>"): ADMIN,
    ("DELETE", "/api/users/<user_id>"): ADMIN,
    ("GET", "/api/users/<user_id>/avatar"): READ,
    ("GET", "/api/vault"): ADMIN,
    ("POST", "/api/vault"): ADMIN,
    ("GET", "/api/vault/<key>"): ADMIN,
    ("PATCH", "/api/vault/<key>"): ADMIN,
    ("DELETE", "/api/vault/<key>"): ADMIN,
    ("GET", "/api/webhooks"): ADMIN,
    ("POST", "/api/webhooks"): KIN,
    ("PATCH", "/api/webhooks/<webhook_id>"): KIN,
    ("DELETE", "/api/webhooks/<webhook_id>"): KIN,
    ("POST", "/api/webhooks/<webhook_id>/rotate"): KIN,
}


def _message(kin: str) -> dict[str, Any]:
    return {"message": {"id": 1, "kin_id": kin, "role": "assistant", "content": "ZQX-4411 plan"}}


def _text(kin: str) -> dict[str, Any]:
    return {"kin_id": kin, "id": 1, "content": "ZQX-4411 plan", "redaction_pending": False}


#: One item of each live event kind, about Kin ``kin`` (its payload as the platform sends
#: it, docs/api.md "Live events"); ``None``: a kind about no Kin (the platform's embedding).
EVENT_SAMPLES: dict[str, Any] = {
    "message": _message,
    "message.redacted": _text,
    "message.restored": _text,
    "message.status": lambda kin: {"kin_id": kin, "id": 1, "status": "done"},
    "message.superseded": lambda kin: {"kin_id": kin, "ids": [1]},
    "kin.delta": lambda kin: {"kin_id": kin, "turn": 1, "step": 1, "at": 0, "text": "ZQX"},
    "kin.tool": lambda kin: {"kin_id": kin, "turn": 1, "id": "c", "name": "x", "status": "done"},
    "kin.queue": lambda kin: {"kin_id": kin, "queue_length": 1},
    "kin.state": lambda kin: {"kin_id": kin, "state": "idle", "error": None},
    "kin.message.to_kin": lambda kin: {"kin_id": kin, "to_kin_id": kin, "message_id": 1},
    "kin.created": lambda kin: {"kin": {"id": kin, "name": "Zebulon Vault"}},
    "kin.updated": lambda kin: {"kin": {"id": kin, "name": "Zebulon Vault"}},
    "kin.deleted": lambda kin: {"kin_id": kin},
    "kin.compacting": lambda kin: {"kin_id": kin, "status": "running", "messages": 3},
    "memory.added": lambda kin: {"kin_id": kin, "memory": {"content": "ZQX-4411"}},
    "memory.merged": lambda kin: {"kin_id": kin, "memory": {"content": "ZQX-4411"}},
    "memory.duplicate": lambda kin: {"kin_id": kin, "memory": {"content": "ZQX-4411"}},
    "memory.extraction": lambda kin: {"kin_id": kin, "status": "done", "added": 1},
    "memory.embedding": None,
    "task.updated": lambda kin: {
        "task": {"id": "t", "parent_kin_id": kin, "kin_id": kin, "session_kin_id": None}
    },
    "cron.created": lambda kin: {"cron": {"id": "c", "kin_id": kin, "name": "ZQX"}},
    "cron.updated": lambda kin: {"cron": {"id": "c", "kin_id": kin, "name": "ZQX"}},
    "cron.deleted": lambda kin: {"cron_id": "c", "kin_id": kin},
    "cron.triggered": lambda kin: {"cron_id": "c", "kin_id": kin, "scheduled_for": 0},
    "cron.skipped": lambda kin: {"cron_id": "c", "kin_id": kin, "reason": "busy"},
    "cron.execution.completed": lambda kin: {
        "cron_id": "c",
        "kin_id": kin,
        "task_id": "t",
        "status": "completed",
    },
    "approval.requested": lambda kin: {
        "kin_id": kin,
        "approval": {"id": "a", "tool": "notify", "arguments": {"text": "ZQX-4411"}},
    },
    "approval.decided": lambda kin: {"kin_id": kin, "id": "a", "status": "allowed"},
    "usage.budget_warning": lambda kin: {
        "kin_id": kin,
        "budget": {"scope": "kin", "target_id": kin, "name": "Zebulon Vault"},
        "currency": "USD",
    },
}
PAUL = person("Paul")
SECRET_WORDS = "ZQX-4411"
KIN_NAME = "Zebulon Vault"


def api_routes(app: Any) -> list[tuple[str, Rule]]:
    found = []
    for rule in app.url_map.iter_rules():
        if not rule.rule.startswith("/api") or rule.endpoint in LIBRARY_PUBLIC_ENDPOINTS:
            continue
        for method in sorted((rule.methods or set()) - {"HEAD", "OPTIONS"}):
            found.append((method, rule))
    return found


def png() -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (32, 32), (20, 90, 200)).save(out, format="PNG")
    return out.getvalue()


@pytest.fixture
def fake_llm() -> Any:
    with FakeOpenAI() as fake:
        yield fake


@pytest.fixture
async def server(data_dir: Path, fake_llm: FakeOpenAI) -> AsyncIterator[RunningServer]:
    async with serve_with_openai(data_dir, fake_llm) as server:
        yield server


def test_every_route_and_event_kind_is_classified(data_dir: Path) -> None:
    from kinbot_core.config import load_settings
    from kinbot_core.platform import Platform
    from kinbot_web.app import create_app

    app = create_app(Platform(load_settings(data_dir=data_dir)))
    routes = {(method, rule.rule) for method, rule in api_routes(app)}
    assert routes - ROUTES.keys() == set(), "classify these routes in ROUTES"
    assert ROUTES.keys() - routes == set(), "these routes are gone: remove them from ROUTES"
    assert set(EVENT_SAMPLES) == set(KINDS), "classify every live event kind in EVENT_SAMPLES"
    for method, rule in api_routes(app):
        if ROUTES[(method, rule.rule)] == ADMIN:
            assert access_of(app.view_functions[rule.endpoint]) == "admin", rule.rule


def leaks(text: str, kin_id: str) -> list[str]:
    return [word for word in (kin_id, KIN_NAME, SECRET_WORDS) if word in text]


async def wait_for_sentinel(reader: SseReader, marker: str) -> None:
    await reader.wait_for(lambda e: e.type == "kin.queue" and e.data.get("kin_id") == marker)


async def test_a_member_not_allowed_sees_nothing_of_a_restricted_kin(
    server: RunningServer, fake_llm: FakeOpenAI
) -> None:
    admin = server.client
    platform = server.platform
    async with server.new_client() as marie, server.new_client() as paul:
        marie_id = (await register(admin, marie, MARIE))["id"]
        paul_id = (await register(admin, paul, PAUL))["id"]
        admin_id = (await admin.get("/api/me")).json()["user"]["id"]
        shared = await make_kin(admin, "Hall")
        old_task = {"parent_kin": shared, "kin": shared, "title": "Old", "description": "Old",
                    "mode": "async", "model": "gpt-4o", "status": "completed",
                    "depth": 1}  # fmt: skip
        await platform.db.write(lambda: TaskRecord.create(id="hall", created_at=1.0, **old_task))
        kin_id = await make_kin(admin, KIN_NAME)
        restricted = await admin.put(
            f"/api/kins/{kin_id}/access",
            json={"access": "members", "members": [marie_id, admin_id]},
        )
        assert restricted.json() == {"access": "members", "members": sorted([marie_id, admin_id])}

        async with (
            sse_stream(paul) as paul_events,
            sse_stream(marie) as marie_events,
            sse_stream(admin) as admin_events,
        ):
            # The Kin used for real: a memory, a sub-Kin task, a refused word to a shared Kin.
            memory = {"content": f"The safe code is {SECRET_WORDS}", "subject": "Safe"}
            job = {"task_description": f"Check {SECRET_WORDS}", "mode": "async"}
            to_hall = {"kin_id": shared, "message": f"{SECRET_WORDS}!", "type": "inform"}
            fake_llm.enqueue(
                Reply(tool_calls=[("memorize", {**memory, "category": "fact"})]),
                Reply(tool_calls=[("send_message", to_hall)]),
                Reply(tool_calls=[("spawn_self", job)]),
                Reply(text=f"Noted {SECRET_WORDS}."),
            )
            asked = await tell(marie, kin_id, f"Remember the safe code {SECRET_WORDS}.")
            await marie_events.wait_for(reply_to(asked))
            tasks = (await marie.get("/api/tasks")).json()["tasks"]
            task_id = next(t["id"] for t in tasks if t["parent_kin_id"] == kin_id)
            await marie_events.wait_for(
                lambda e: e.type == "task.updated" and e.data["task"]["status"] == "completed"
            )
            cron = {
                "name": f"Safe {SECRET_WORDS}",
                "schedule": "0 9 * * 1",
                "task_description": "Check the safe",
                "kin_id": kin_id,
            }
            cron_id = (await marie.post("/api/crons", json=cron)).json()["cron"]["id"]
            files = {"file": (f"{SECRET_WORDS}.txt", b"Plan.", "text/plain")}
            upload = await marie.post(f"/api/kins/{kin_id}/uploads", files=files)
            upload_id = upload.json()["upload"]["id"]
            hook = await admin.post("/api/webhooks", json={"kin_id": kin_id, "name": "Safe"})
            webhook_id = hook.json()["webhook"]["id"]
            avatar = {"avatar": ("a.png", png(), "image/png")}
            assert (await admin.put(f"/api/kins/{kin_id}/avatar", files=avatar)).is_success
            memories = (await marie.get(f"/api/kins/{kin_id}/memories")).json()["memories"]
            messages = await session(marie, kin_id)
            # The shared Kin heard nothing of it: the restricted Kin's words were refused.
            refused = [m for m in messages if m["role"] == "tool" and m["is_error"]]
            assert any("not used by the same people" in m["content"] for m in refused)
            assert not leaks(json.dumps(await session(paul, shared)), kin_id)

            # One item of every kind about the Kin, then one Paul may see, as a sentinel.
            for kind, sample in EVENT_SAMPLES.items():
                data = sample(kin_id) if sample else {"model": None, "done": True}
                platform.live.publish(kind, data)
            platform.live.publish("kin.queue", {"kin_id": shared, "queue_length": 0})
            for reader in (paul_events, marie_events, admin_events):
                await wait_for_sentinel(reader, shared)

        seen_by_paul = [e for e in paul_events.events]
        for event in seen_by_paul:
            assert not leaks(json.dumps(event.data), kin_id), (event.type, event.data)
        about_kin = {k for k, sample in EVENT_SAMPLES.items() if sample}
        for reader in (marie_events, admin_events):
            assert about_kin <= {e.type for e in reader.events if kin_id in json.dumps(e.data)}
        assert {"message", "kin.delta", "task.updated", "cron.created"} <= {
            e.type for e in marie_events.events if e.id is not None
        }

        # Every route, as Paul, with the Kin's real objects.
        ids = {
            "kin_id": kin_id,
            "task_id": task_id,
            "cron_id": cron_id,
            "upload_id": upload_id,
            "webhook_id": webhook_id,
            "message_id": str(messages[-1]["id"]),
            "memory_id": str(memories[0]["id"]),
            "user_id": paul_id,
            "number": "1",
            "run_id": "1",
            "plugin": "metrics",
            "rest": "prometheus",
        }
        body = {"kin_id": kin_id, "kin_ids": [kin_id]}
        for method, rule in api_routes(server.app):
            kind = ROUTES[(method, rule.rule)]
            if kind == NOT_CALLED:
                continue
            url = re.sub(
                r"<(?:[^:<>]+:)?([^<>]+)>", lambda m: ids.get(m.group(1), "sample"), rule.rule
            )
            answer = await paul.request(method, url, json=body if method != "GET" else None)
            where = f"{method} {url} -> {answer.status_code}"
            assert not leaks(answer.text, kin_id), where
            access = access_of(server.app.view_functions[rule.endpoint])
            if kind == KIN:
                expected = 403 if access == "admin" else 404
                assert answer.status_code == expected, where
                if expected == 404:
                    assert answer.json()["error"]["code"] == "not_found", where
                    # A made-up Kin gets the same answer: the refusal says nothing of the Kin.
                    made_up = url.replace(kin_id, "no-such-kin")
                    body_made_up = {"kin_id": "no-such-kin", "kin_ids": ["no-such-kin"]}
                    json_made_up = body_made_up if method != "GET" else None
                    missing = await paul.request(method, made_up, json=json_made_up)
                    assert (missing.status_code, missing.json()) == (404, answer.json()), where
                    # A made-up task, cron, upload or webhook is answered as the hidden one,
                    # worded for what was asked (only the id it echoes differs).
                    for name in ("task_id", "cron_id", "upload_id", "webhook_id"):
                        if f"<{name}>" not in rule.rule:
                            continue
                        plain: dict[str, object] | None = None if method == "GET" else {}
                        hidden = await paul.request(method, url, json=plain)
                        absent = await paul.request(
                            method, url.replace(ids[name], "no-such-one"), json=plain
                        )
                        assert absent.status_code == hidden.status_code == 404, where
                        worded = absent.text.replace("no-such-one", ids[name])
                        assert worded == hidden.text, where
                        assert name.removesuffix("_id") in hidden.text, where
                    allowed = await marie.request(method, url) if method == "GET" else None
                    assert allowed is None or allowed.status_code != 404, f"Marie: {where}"
            elif kind == ADMIN:
                assert answer.status_code == 403, where
        # The people allowed see it; Paul's list does not.
        for client in (admin, marie):
            names = [k["name"] for k in (await client.get("/api/kins")).json()["kins"]]
            assert KIN_NAME in names
        listed = (await admin.get("/api/kin-access")).json()["kins"]
        assert any(k["id"] == kin_id and k["access"] == "members" for k in listed)
        assert (await paul.get(f"/api/uploads/{upload_id}")).status_code == 404
        assert (await marie.get(f"/api/uploads/{upload_id}")).status_code == 200
        # A list's limit counts what Paul may see: the older shared task fills his page.
        newest = (await paul.get("/api/tasks?limit=1")).json()["tasks"]
        assert [task["id"] for task in newest] == ["hall"]


async def test_who_may_change_a_kins_access(server: RunningServer) -> None:
    admin = server.client
    async with server.new_client() as marie, server.new_client() as paul:
        marie_id = (await register(admin, marie, MARIE))["id"]
        await register(admin, paul, PAUL)
        own = await make_kin(marie, "Diary")
        shared = await make_kin(admin, "Hall")
        # A member makes her own Kin private, and shares it again; not someone else's.
        private = await marie.put(f"/api/kins/{own}/access", json={"access": "private"})
        assert private.json() == {"access": "private", "members": [marie_id]}
        assert (await paul.get(f"/api/kins/{own}")).status_code == 404
        assert (await admin.get(f"/api/kins/{own}")).status_code == 404
        shown = await admin.get(f"/api/kins/{own}/access")  # the administrator can fix it
        assert shown.json()["access"] == "private"
        refused = await marie.put(
            f"/api/kins/{shared}/access", json={"access": "private", "members": []}
        )
        assert (refused.status_code, refused.json()["error"]["code"]) == (
            403,
            "kin_access_forbidden",
        )
        members = await marie.put(
            f"/api/kins/{own}/access", json={"access": "members", "members": [marie_id]}
        )
        assert members.status_code == 403
        empty = await admin.put(f"/api/kins/{shared}/access", json={"access": "members"})
        assert (empty.status_code, empty.json()["error"]["code"]) == (400, "kin_access_no_member")
        again = await marie.put(f"/api/kins/{own}/access", json={"access": "everyone"})
        assert again.json() == {"access": "everyone", "members": []}
        assert (await paul.get(f"/api/kins/{own}")).status_code == 200
        bad: httpx.Response = await admin.put(
            f"/api/kins/{shared}/access", json={"access": "secret"}
        )
        assert bad.status_code == 400


async def test_a_resumed_stream_replays_nothing_of_a_kin_restricted_since(
    server: RunningServer,
) -> None:
    """Events kept for browsers resuming their stream follow the Kin's access of now."""
    admin, platform = server.client, server.platform
    async with server.new_client() as paul:
        await register(admin, paul, PAUL)
        admin_id = (await admin.get("/api/me")).json()["user"]["id"]
        hall = await make_kin(admin, "Hall")
        diary = await make_kin(admin, "Diary")
        async with sse_stream(paul) as before:
            platform.live.publish("kin.queue", {"kin_id": hall, "queue_length": 0})
            await wait_for_sentinel(before, hall)
        last_seen = before.of_type("kin.queue")[-1].id
        assert last_seen is not None
        platform.live.publish("kin.queue", {"kin_id": diary, "queue_length": 7})
        platform.live.publish("kin.state", {"kin_id": diary, "state": "idle", "error": None})
        restricted = await admin.put(
            f"/api/kins/{diary}/access", json={"access": "members", "members": [admin_id]}
        )
        assert restricted.status_code == 200, restricted.text
        async with sse_stream(paul, last_event_id=last_seen) as resumed:
            platform.live.publish("kin.queue", {"kin_id": hall, "queue_length": 1})
            await resumed.wait_for(lambda e: e.type == "kin.queue" and e.data["kin_id"] == hall)
        replayed = [e.type for e in resumed.events if diary in json.dumps(e.data)]
        assert replayed == ["kin.deleted"]  # told it is gone, and nothing of what it did
