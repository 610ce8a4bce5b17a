"""Lighthouse on the live chat page: a signed-in user's chat with a Kin and a real session.

Serves KinBot (the current front-end build in ``kinbot_web/static``) with a fake LLM, signs
the administrator in, creates a Kin and exchanges 20 messages with it, then runs Lighthouse
(npm ``lighthouse``, installed apart in ``kinbot_web/frontend/lighthouse``) with Debian's
Chromium on ``/kins/<id>``, sending the session cookie, in the light theme then the dark one.
Prints performance, accessibility and best practices for mobile and desktop, and any text
Lighthouse finds in low contrast. Targets: accessibility >= 95, performance >= 90.

Run: ``make lighthouse`` (builds the front end, installs Lighthouse and Chromium first).
"""

from __future__ import annotations

import asyncio
import os
import tempfile
from pathlib import Path

from kinbot_core.config import load_settings
from kinbot_core.platform import Platform
from kinbot_web.auth.session import SESSION_COOKIE
from tests.support.accounts import set_up_admin
from tests.support.fakes import FakeOpenAI, Reply
from tests.support.kin_chat import make_kin, tell
from tests.support.provider_setups import add_openai_provider
from tests.support.server import running_server

ROOT = Path(__file__).resolve().parents[1]
RUNNER = ROOT / "kinbot_web" / "frontend" / "lighthouse" / "run.mjs"
EXCHANGES = 10


async def main() -> None:
    with tempfile.TemporaryDirectory() as data_dir, FakeOpenAI() as fake:
        platform = Platform(load_settings(data_dir=Path(data_dir), llm_max_retries=0))
        async with running_server(platform) as server:
            await set_up_admin(server.client)
            await add_openai_provider(server.client, fake)
            skipped = await server.client.post("/api/onboarding/search-providers/skip")
            assert skipped.status_code == 204, skipped.text  # onboarding done: the chat opens
            kin_id = await make_kin(server.client, "Chef")
            for number in range(EXCHANGES):
                fake.enqueue(
                    Reply(text=f"Answer {number}: **carrots**, then `rice`.\n\n- one\n- two")
                )
                await tell(server.client, kin_id, f"Question {number}: what do we cook tonight?")
            while True:  # every exchange stored
                if len(await platform.kins.messages(kin_id, limit=100)) >= 2 * EXCHANGES:
                    break
                await asyncio.sleep(0.1)
            cookie = f"{SESSION_COOKIE}={server.client.cookies[SESSION_COOKIE]}"
            node = await asyncio.create_subprocess_exec(
                "node",
                str(RUNNER),
                f"{server.url}/kins/{kin_id}",
                env={**os.environ, "LIGHTHOUSE_COOKIE": cookie},
            )
            if await node.wait() != 0:
                raise SystemExit("Lighthouse failed (is `make lighthouse` set up?)")


if __name__ == "__main__":
    asyncio.run(main())
