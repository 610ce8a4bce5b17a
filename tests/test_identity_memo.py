"""IdentityMemo: a value found again for the very same object, never for an equal one."""

from __future__ import annotations

from kinbot_core.identity_memo import IdentityMemo


def test_the_same_object_finds_its_value_an_equal_one_does_not() -> None:
    memo: IdentityMemo[str] = IdentityMemo(limit=2)
    first, equal = ["Nicolas"], ["Nicolas"]
    assert memo.keep(first, "one contact") == "one contact"
    assert memo.get(first) == "one contact"
    assert memo.get(equal) is None


def test_past_its_limit_it_forgets_and_keeps_going() -> None:
    memo: IdentityMemo[int] = IdentityMemo(limit=2)
    objects = [object() for _ in range(3)]
    for number, source in enumerate(objects):
        memo.keep(source, number)
    assert memo.get(objects[0]) is None and memo.get(objects[1]) is None
    assert memo.get(objects[2]) == 2
