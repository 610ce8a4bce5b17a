"""aiohttp's resolver under ``net_guard``'s address policy (apart from ``net_guard`` so that
importing the policy does not import aiohttp)."""

from __future__ import annotations

import socket
from typing import Any

from aiohttp import ThreadedResolver
from aiohttp.abc import ResolveResult

from kinbot_core.net_guard import AddressPolicy, BlockedAddress


class GuardedResolver(ThreadedResolver):
    """aiohttp's resolver, refusing a host when any address it resolves to is blocked.

    aiohttp reports resolver failures as connection errors; ``refused`` keeps the reason of
    the last refusal so the caller can say why.
    """

    def __init__(self, policy: AddressPolicy, loop: Any = None) -> None:
        super().__init__(loop)
        self.policy = policy
        self.refused: BlockedAddress | None = None

    async def resolve(
        self, host: str, port: int = 0, family: socket.AddressFamily = socket.AF_INET
    ) -> list[ResolveResult]:
        results = await super().resolve(host, port, family)
        try:
            for result in results:
                self.policy.check(result["host"])
        except BlockedAddress as refused:
            self.refused = BlockedAddress(f"{refused} ({host} resolves to it)")
            raise OSError(str(self.refused)) from None
        return results
