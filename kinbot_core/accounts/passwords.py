"""Password hashing with argon2 (through passlib), off the event loop."""

from __future__ import annotations

import asyncio
import functools

from passlib.context import CryptContext

_context = CryptContext(schemes=["argon2"], deprecated="auto")


@functools.cache
def _dummy_hash() -> str:
    return str(_context.hash("a password nobody has"))


async def hash_password(password: str) -> str:
    """The argon2id hash of ``password`` (computed on a worker thread: it takes ~0.1 s)."""
    return str(await asyncio.to_thread(_context.hash, password))


async def verify_password(password: str, password_hash: str | None) -> bool:
    """Whether ``password`` matches. With no hash, a dummy one is checked so that an unknown
    account takes as long to refuse as a wrong password."""
    candidate = password_hash or await asyncio.to_thread(_dummy_hash)
    matched = bool(await asyncio.to_thread(_context.verify, password, candidate))
    return matched and password_hash is not None
