"""Whether the session's recent messages already say what a memory says, so that injecting
it would only repeat them.

A memory is "already said" when a recent message contains it verbatim (case, spacing and
outer punctuation aside), or when almost all of its words are in one recent message: its
full-text terms (stemmed in the text's language and folded as the full-text index does,
``kinbot_core.fulltext``, function words left out) are at least ``CONTAINED_SHARE`` of them
among the terms of that message. Memories of fewer than ``MIN_TERMS`` terms are judged
verbatim only: a message that names two words ("Is Bob vegetarian?") does not say a fact.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from kinbot_core.fulltext import index_terms, query_terms

#: Share of a memory's terms one recent message must hold for the memory to be skipped.
CONTAINED_SHARE = 0.8
#: Fewest terms a memory needs to be judged by its words rather than verbatim.
MIN_TERMS = 4
_SPACES = re.compile(r"\s+")


def normal(text: str) -> str:
    """Text compared for verbatim containment: case-folded, spaces collapsed, outer
    punctuation off."""
    return _SPACES.sub(" ", text.casefold()).strip(" .!?;:,")


@dataclass(frozen=True)
class RecentMessage:
    """One recent message, read once for every memory compared with it."""

    text: str
    terms: frozenset[str]

    @classmethod
    def of(cls, content: str) -> RecentMessage:
        """The message ``content`` as memories are compared with it."""
        return cls(normal(content), frozenset(index_terms(content).split()))


def already_said(content: str, recent: list[RecentMessage]) -> bool:
    """Whether one of the ``recent`` messages says the memory ``content`` (see the module)."""
    text = normal(content)
    if not text:
        return False
    if any(text in message.text for message in recent):
        return True
    terms = set(query_terms(content))
    if len(terms) < MIN_TERMS:
        return False
    needed = CONTAINED_SHARE * len(terms)
    return any(len(terms & message.terms) >= needed for message in recent)
