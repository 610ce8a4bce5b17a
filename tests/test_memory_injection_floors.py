"""Which recalled memories earn their place in a prompt (``kinbot_plugins.memory.injection``):
the relevance floors, pinned memories past them, and the skip of what the session's recent
messages already say (``kinbot_plugins.memory.session_overlap``)."""

from __future__ import annotations

from types import SimpleNamespace

from kinbot_core.memory import Memory
from kinbot_plugins.memory.injection import relevant_enough, select
from kinbot_plugins.memory.session_overlap import RecentMessage, already_said

SETTINGS = SimpleNamespace(
    memory_injected_max_tokens=1000,
    memory_injection_min_score=0.3,
    memory_injection_relative_score=0.75,
)


def memory(memory_id: int, content: str, *, pinned: bool = False) -> Memory:
    return Memory(memory_id, "kin", content, "fact", "", None, 0.0, 0.0, pinned=pinned)


PEANUTS = memory(1, "Marie is allergic to peanuts")
HOLIDAY = memory(2, "The family goes on holiday in August")
BUDGET = memory(3, "The grocery budget is 600 euros a month", pinned=True)


def test_a_memory_below_the_absolute_floor_is_not_injected() -> None:
    chosen = select(SETTINGS, [], [(PEANUTS, 0.62), (HOLIDAY, 0.12)], [])
    assert chosen == [PEANUTS]


def test_a_memory_far_below_the_best_of_the_turn_is_not_injected() -> None:
    # 0.4 passes the absolute floor but not 0.75 of the best (0.6).
    assert relevant_enough(SETTINGS, [(PEANUTS, 0.6), (HOLIDAY, 0.4)]) == [PEANUTS]
    assert relevant_enough(SETTINGS, [(PEANUTS, 0.6), (HOLIDAY, 0.46)]) == [PEANUTS, HOLIDAY]


def test_when_nothing_is_relevant_only_pinned_memories_are_injected() -> None:
    assert select(SETTINGS, [BUDGET], [(HOLIDAY, 0.1), (PEANUTS, 0.05)], []) == [BUDGET]


def test_a_pinned_memory_below_the_floor_is_still_injected_once() -> None:
    chosen = select(SETTINGS, [BUDGET], [(PEANUTS, 0.7), (BUDGET, 0.01)], [])
    assert chosen == [BUDGET, PEANUTS]


def test_unscored_memories_pass_the_floors() -> None:
    # Found by full text alone (the semantic signal failed): no score to judge by.
    assert select(SETTINGS, [], [(PEANUTS, None), (HOLIDAY, None)], []) == [PEANUTS, HOLIDAY]


def test_a_memory_the_session_says_in_other_forms_is_skipped() -> None:
    recent = [RecentMessage.of("Remember: every August, our family goes on holidays!")]
    assert already_said(HOLIDAY.content, recent)
    assert select(SETTINGS, [], [(HOLIDAY, 0.8), (PEANUTS, 0.7)], recent) == [PEANUTS]


def test_a_message_naming_a_few_of_a_memorys_words_does_not_say_it() -> None:
    recent = [RecentMessage.of("Where does the family go in August?")]
    assert not already_said(HOLIDAY.content, recent)
    # Short memories are judged verbatim only: a question naming its words says nothing.
    assert not already_said("Nicolas is vegetarian", [RecentMessage.of("Is Nicolas vegetarian?")])
    assert already_said("Nicolas is vegetarian", [RecentMessage.of("NICOLAS  is vegetarian.")])


def test_french_memories_are_compared_by_their_stems() -> None:
    recent = [RecentMessage.of("Rappel : Mamie Jeanne habitait à Annecy avec ses chats.")]
    assert already_said("Mamie Jeanne habite à Annecy avec son chat", recent)
