"""How many recent messages a compacting keeps verbatim (``kept_recent``): the setting, fewer
in a small window's room, and, when a refused prompt makes it compact harder, only whole
exchanges (what it keeps starts at a person's message), so that something is folded."""

from __future__ import annotations

from kinbot_core.compacting.folding import kept_recent
from kinbot_core.compacting.selection import Candidate, choose_cut


def exchange_of(*roles_and_tokens: tuple[str, int]) -> list[Candidate]:
    return [
        Candidate(id=n, position=n, role=role, tokens=tokens)
        for n, (role, tokens) in enumerate(roles_and_tokens, start=1)
    ]


#: Notes, a short answer, and the question being answered.
SESSION = exchange_of(("user", 175), ("assistant", 6), ("user", 11))


def test_a_roomy_window_keeps_the_setting() -> None:
    assert kept_recent(SESSION, 30, None) == 30
    assert kept_recent(SESSION, 30, 10_000) == 3


def test_compacting_harder_keeps_whole_exchanges_and_folds_the_rest() -> None:
    # A quarter of a 365-token room holds the answer and the question, not the notes: the
    # answer alone cannot start what is kept, so only the question stays.
    kept = kept_recent(SESSION, 30, 365, harder=True)
    assert kept == 1
    assert choose_cut(SESSION, keep_recent=kept, budget_tokens=91) == 2
    # Without rounding to an exchange, two kept messages would leave nothing to fold.
    assert choose_cut(SESSION, keep_recent=2, budget_tokens=91) == 0


def test_compacting_harder_in_a_roomy_window_keeps_what_fits() -> None:
    session = SESSION + exchange_of(("assistant", 6), ("user", 11))
    assert kept_recent(session, 30, 10_000, harder=True) == 5
    assert kept_recent(session, 2, 10_000, harder=True) == 1  # never starts on an answer
