"""People for the tests, and the HTTP steps that give them accounts."""

from __future__ import annotations

from typing import Any

import httpx

PASSWORD = "correct horse battery staple"

NICOLAS = {
    "first_name": "Nicolas",
    "last_name": "Durand",
    "email": "nicolas@example.org",
    "pseudonym": "Nico",
    "language": "fr",
    "password": PASSWORD,
    "password_confirmation": PASSWORD,
}
MARIE = {
    **NICOLAS,
    "first_name": "Marie",
    "email": "marie@example.org",
    "pseudonym": "Marie",
    "language": "en",
}


def person(name: str, **changes: Any) -> dict[str, Any]:
    """Another person's identity, with ``name`` as first name, pseudonym and email."""
    return {
        **MARIE,
        "first_name": name,
        "pseudonym": name,
        "email": f"{name.lower()}@example.org",
        **changes,
    }


async def set_up_admin(client: httpx.AsyncClient, identity: dict[str, Any] = NICOLAS) -> Any:
    """Onboarding screen 1 through HTTP; ``client`` ends up signed in as the administrator."""
    response = await client.post("/api/onboarding/identity", json=identity)
    assert response.status_code == 201, response.text
    return response.json()["user"]


async def invite(admin: httpx.AsyncClient, role: str = "member") -> str:
    """An invitation code created by a signed-in administrator."""
    response = await admin.post("/api/invitations", json={"role": role})
    assert response.status_code == 201, response.text
    code: str = response.json()["code"]
    return code


async def register(
    admin: httpx.AsyncClient,
    client: httpx.AsyncClient,
    identity: dict[str, Any] = MARIE,
    role: str = "member",
) -> Any:
    """Invite someone and register them with ``client``, which ends up signed in."""
    code = await invite(admin, role)
    response = await client.post("/api/auth/register", json={**identity, "code": code})
    assert response.status_code == 201, response.text
    return response.json()["user"]
