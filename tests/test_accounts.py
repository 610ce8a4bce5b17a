"""Accounts over real HTTP: onboarding, sign-in, sessions, cookies, CSRF, rate limits."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from http.cookies import SimpleCookie
from typing import Any

import httpx
import pytest

from kinbot_core.config import Settings, load_settings
from kinbot_core.db.models import BrowserSession, User
from kinbot_core.events import Event
from kinbot_core.platform import Platform
from tests.support.accounts import MARIE, NICOLAS, PASSWORD, person, register, set_up_admin
from tests.support.server import RunningServer, running_server


@pytest.fixture
async def server(settings: Settings) -> AsyncIterator[RunningServer]:
    async with running_server(Platform(settings)) as server:
        yield server


def session_cookie(response: httpx.Response) -> SimpleCookie:
    cookie: SimpleCookie = SimpleCookie()
    cookie.load(response.headers["set-cookie"])
    return cookie


async def test_onboarding_starts_with_the_identity_screen(server: RunningServer) -> None:
    before = (await server.client.get("/api/onboarding")).json()
    assert before == {
        "step": "identity", "completed": [], "setup_code_required": False, "signed_in": False
    }  # fmt: skip
    admin = await set_up_admin(server.client)
    assert admin["role"] == "admin"
    assert admin["pseudonym"] == "Nico" and admin["language"] == "fr"
    assert "password_hash" not in admin and "password" not in admin
    after = (await server.client.get("/api/onboarding")).json()
    assert after == {
        "step": "providers", "completed": ["identity"], "setup_code_required": False,
        "signed_in": True,  # the identity screen signed its author in
    }  # fmt: skip
    me = (await server.client.get("/api/me")).json()["user"]
    assert me["email"] == "nicolas@example.org"
    async with server.new_client() as stranger:
        assert (await stranger.get("/api/onboarding")).json()["signed_in"] is False


async def test_identity_is_validated(server: RunningServer) -> None:
    mismatch = await server.client.post(
        "/api/onboarding/identity", json={**NICOLAS, "password_confirmation": "other password"}
    )
    assert mismatch.status_code == 400
    assert "password_confirmation" in mismatch.text
    bad = await server.client.post(
        "/api/onboarding/identity", json={**NICOLAS, "email": "not-an-email", "language": "de"}
    )
    assert {f["field"] for f in bad.json()["error"]["details"]["fields"]} == {"email", "language"}
    short = await server.client.post(
        "/api/onboarding/identity",
        json={**NICOLAS, "password": "short", "password_confirmation": "short"},
    )
    assert short.status_code == 400
    assert short.json()["error"]["code"] == "password_rejected"
    assert short.json()["error"]["details"] == {"min_length": 10}  # the sentence says how long
    assert (await server.client.get("/api/onboarding")).json()["step"] == "identity"


async def test_racing_setup_requests_make_exactly_one_admin(server: RunningServer) -> None:
    clients = [server.new_client() for _ in range(8)]
    try:
        responses = await asyncio.gather(
            *(
                client.post("/api/onboarding/identity", json=person(f"Racer{index}"))
                for index, client in enumerate(clients)
            )
        )
    finally:
        for client in clients:
            await client.aclose()
    statuses = sorted(response.status_code for response in responses)
    assert statuses == [201] + [409] * 7
    assert all(
        r.json()["error"]["code"] == "already_set_up" for r in responses if r.status_code == 409
    )
    users = await server.platform.db.read(lambda: [(u.role, u.email) for u in User.select()])
    assert len(users) == 1 and users[0][0] == "admin"
    again = await server.client.post("/api/onboarding/identity", json=person("Late"))
    assert again.status_code == 409


async def test_the_session_cookie_is_http_only_and_same_site_lax(server: RunningServer) -> None:
    response = await server.client.post("/api/onboarding/identity", json=NICOLAS)
    morsel = session_cookie(response)["kinbot_session"]
    assert morsel["httponly"] is True
    assert morsel["samesite"] == "Lax"
    assert morsel["path"] == "/"
    assert not morsel["secure"]  # plain HTTP on loopback
    assert int(morsel["max-age"]) == 30 * 86400


async def test_secure_cookie_behind_an_https_reverse_proxy(data_dir: Any) -> None:
    settings = load_settings(
        data_dir=data_dir, trusted_proxy_hops=1, trusted_origins=["https://kinbot.example.org"]
    )
    async with running_server(Platform(settings)) as server:
        # The administrator was created from the proxy's own machine.
        created = await server.client.post(
            "/api/onboarding/identity", json=NICOLAS, headers={"X-Forwarded-For": "127.0.0.1"}
        )
        assert created.status_code == 201, created.text
        response = await server.client.post(
            "/api/auth/login",
            json={"email": NICOLAS["email"], "password": PASSWORD},
            headers={
                "Origin": "https://kinbot.example.org",
                "X-Forwarded-Proto": "https",
                "X-Forwarded-Host": "kinbot.example.org",
                "X-Forwarded-For": "192.168.1.23",
            },
        )
        assert response.status_code == 200, response.text
        assert session_cookie(response)["kinbot_session"]["secure"] is True
        sessions = await server.platform.db.read(
            lambda: [
                s.ip
                for s in BrowserSession.select().join(User).where(User.email == NICOLAS["email"])
            ]
        )
        assert "192.168.1.23" in sessions


async def test_login_logout_and_a_fresh_session_id_each_time(server: RunningServer) -> None:
    first = (await server.client.post("/api/onboarding/identity", json=NICOLAS)).cookies[
        "kinbot_session"
    ]
    login = await server.client.post(
        "/api/auth/login", json={"email": "NICOLAS@example.org", "password": PASSWORD}
    )
    assert login.status_code == 200
    second = login.cookies["kinbot_session"]
    assert second != first
    async with server.new_client(cookies={"kinbot_session": first}) as stale:
        assert (await stale.get("/api/me")).status_code == 401

    assert (await server.client.post("/api/auth/logout")).status_code == 204
    assert (await server.client.get("/api/me")).status_code == 401
    async with server.new_client(cookies={"kinbot_session": second}) as replay:
        refused = await replay.get("/api/me")
    assert refused.status_code == 401
    assert refused.json()["error"]["code"] == "unauthenticated"


async def test_wrong_password_and_unknown_account_look_the_same(server: RunningServer) -> None:
    await set_up_admin(server.client)
    async with server.new_client() as stranger:
        wrong = await stranger.post(
            "/api/auth/login", json={"email": NICOLAS["email"], "password": "not it at all"}
        )
        unknown = await stranger.post(
            "/api/auth/login", json={"email": "nobody@example.org", "password": "not it at all"}
        )
    assert wrong.status_code == unknown.status_code == 401
    assert wrong.json() == unknown.json()
    assert "kinbot_session" not in wrong.cookies


async def test_a_password_change_ends_every_other_session(server: RunningServer) -> None:
    await set_up_admin(server.client)
    async with server.new_client() as laptop:
        await laptop.post("/api/auth/login", json={"email": NICOLAS["email"], "password": PASSWORD})
        assert (await laptop.get("/api/me")).status_code == 200
        wrong = await server.client.patch(
            "/api/me",
            json={"password": {"current": "nope", "new": "x" * 12, "confirmation": "x" * 12}},
        )
        assert wrong.status_code == 403
        new_password = "a much better passphrase"
        changed = await server.client.patch(
            "/api/me",
            json={
                "first_name": "Nicolás",
                "password": {
                    "current": PASSWORD,
                    "new": new_password,
                    "confirmation": new_password,
                },
            },
        )
        assert changed.status_code == 200, changed.text
        assert changed.json()["user"]["first_name"] == "Nicolás"
        assert (await laptop.get("/api/me")).status_code == 401
        assert (await server.client.get("/api/me")).status_code == 200
        old = await laptop.post(
            "/api/auth/login", json={"email": NICOLAS["email"], "password": PASSWORD}
        )
        assert old.status_code == 401
        new = await laptop.post(
            "/api/auth/login", json={"email": NICOLAS["email"], "password": new_password}
        )
        assert new.status_code == 200


async def test_profile_changes_are_validated(server: RunningServer) -> None:
    await set_up_admin(server.client)
    updated = await server.client.patch("/api/me", json={"pseudonym": " Nicky ", "language": "en"})
    assert updated.json()["user"]["pseudonym"] == "Nicky"
    assert updated.json()["user"]["language"] == "en"
    invalid = await server.client.patch("/api/me", json={"language": "de", "first_name": ""})
    assert invalid.status_code == 400


async def test_cross_site_requests_are_refused(data_dir: Any) -> None:
    settings = load_settings(data_dir=data_dir, trusted_origins=["https://kinbot.example.org"])
    async with running_server(Platform(settings)) as server:
        await set_up_admin(server.client)
        evil = await server.client.post("/api/auth/logout", headers={"Origin": "https://evil.test"})
        assert evil.status_code == 403
        assert evil.json()["error"]["code"] == "cross_origin_refused"
        fetch_cross = await server.client.post(
            "/api/auth/logout", headers={"Sec-Fetch-Site": "cross-site"}
        )
        assert fetch_cross.status_code == 403
        null_origin = await server.client.post("/api/auth/logout", headers={"Origin": "null"})
        assert null_origin.status_code == 403
        login_csrf = await server.client.post(
            "/api/auth/login",
            json={"email": NICOLAS["email"], "password": PASSWORD},
            headers={"Origin": "https://evil.test"},
        )
        assert login_csrf.status_code == 403
        # reading is not state-changing
        assert (
            await server.client.get("/api/me", headers={"Origin": "https://evil.test"})
        ).is_success
        # still signed in: the refused logouts did nothing
        assert (await server.client.get("/api/me")).status_code == 200

        lan = await server.client.patch(
            "/api/me",
            json={"pseudonym": "Nico"},
            headers={"Origin": "http://192.168.1.20:8787", "Host": "192.168.1.20:8787"},
        )
        assert lan.status_code == 200
        proxied = await server.client.patch(
            "/api/me", json={"pseudonym": "Nico"}, headers={"Origin": "https://kinbot.example.org"}
        )
        assert proxied.status_code == 200
        own = await server.client.post(
            "/api/auth/logout", headers={"Origin": server.url, "Sec-Fetch-Site": "same-origin"}
        )
        assert own.status_code == 204


async def test_failed_logins_are_rate_limited_per_account_and_per_address(
    data_dir: Any,
) -> None:
    settings = load_settings(
        data_dir=data_dir, login_rate_limit_per_account=3, login_rate_limit_per_ip=5
    )
    async with running_server(Platform(settings)) as server:
        await set_up_admin(server.client)
        async with server.new_client() as attacker:

            async def attempt(email: str, password: str = "wrong password!") -> httpx.Response:
                return await attacker.post(
                    "/api/auth/login", json={"email": email, "password": password}
                )

            assert [(await attempt(NICOLAS["email"])).status_code for _ in range(3)] == [401] * 3
            blocked = await attempt(NICOLAS["email"], PASSWORD)
            assert blocked.status_code == 429
            assert blocked.json()["error"]["code"] == "rate_limited"
            assert int(blocked.headers["Retry-After"]) > 0
            # two more failures on other accounts exhaust this address's allowance
            assert (await attempt("a@example.org")).status_code == 401
            assert (await attempt("b@example.org")).status_code == 401
            assert (await attempt("c@example.org")).status_code == 429


async def test_user_events_are_published(server: RunningServer) -> None:
    seen: list[tuple[str, dict[str, Any]]] = []

    def record(event: Event) -> None:
        seen.append((event.type, event.payload()))

    server.platform.bus.on("user.*", record)
    admin = await set_up_admin(server.client)
    await server.client.post("/api/auth/logout")
    await server.client.post(
        "/api/auth/login", json={"email": NICOLAS["email"], "password": PASSWORD}
    )
    async with server.new_client() as marie_client:
        marie = await register(server.client, marie_client, MARIE)
    await server.platform.bus.flush()
    assert seen == [
        ("user.created", {"user_id": admin["id"], "role": "admin"}),
        ("user.login", {"user_id": admin["id"]}),
        ("user.logout", {"user_id": admin["id"]}),
        ("user.login", {"user_id": admin["id"]}),
        ("user.created", {"user_id": marie["id"], "role": "member"}),
        ("user.login", {"user_id": marie["id"]}),
    ]
    assert PASSWORD not in repr(seen)
