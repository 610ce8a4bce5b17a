"""The cache of checked browser sessions: fresh entries only, and nothing that raced with a
change to an account."""

from __future__ import annotations

import time

from kinbot_core.accounts.session_cache import SessionCache


def test_a_checked_session_is_served_until_its_ttl() -> None:
    cache: SessionCache[str] = SessionCache(ttl=60)
    cache.put(cache.generation(), "s1", time.time() + 3600, "nicolas")
    assert cache.get("s1") == "nicolas"
    assert cache.get("s2") is None

    stale: SessionCache[str] = SessionCache(ttl=0)
    stale.put(stale.generation(), "s1", time.time() + 3600, "nicolas")
    time.sleep(0.01)
    assert stale.get("s1") is None


def test_an_expired_session_is_never_served() -> None:
    cache: SessionCache[str] = SessionCache(ttl=60)
    cache.put(cache.generation(), "s1", time.time() - 1, "nicolas")
    assert cache.get("s1") is None


def test_a_change_forgets_everything_and_a_racing_lookup_is_not_kept() -> None:
    cache: SessionCache[str] = SessionCache(ttl=60)
    cache.put(cache.generation(), "s1", time.time() + 3600, "nicolas")
    started = cache.generation()  # a lookup reads the database...
    cache.clear()  # ...while the user logs out
    assert cache.get("s1") is None
    cache.put(started, "s1", time.time() + 3600, "nicolas")  # the lookup's stale answer
    assert cache.get("s1") is None
