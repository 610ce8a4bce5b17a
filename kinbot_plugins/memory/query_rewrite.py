"""The query the semantic signal embeds, rewritten without a language model.

A question ("When did Caroline go to the support group?") is embedded far from the statement
that answers it ("I went to a LGBTQ support group yesterday"): its question form weighs in
the vector. ``search_semantic_query`` chooses what is embedded:

- ``question``: the query as written (the default);
- ``statement``: its leading question form left out (an interrogative and the auxiliary
  after it, in English or French: "When did", "What is", "How long has", "Quand est-ce
  que", "Qu'est-ce que"…) and its question mark: "Caroline go to the support group";
- ``keywords``: its words without the function words of its language (the stop words the
  full-text side already leaves out), in their written form: "caroline go support group".

The full-text signal and the time cues always read the query as written.
"""

from __future__ import annotations

import re
from typing import Any

from kinbot_core.text_language import STOP_WORDS, detect_languages, fold, words

SEMANTIC_QUERIES = ("question", "statement", "keywords")

_EN_ASK = (
    r"how\s+(?:long|many|much|often|old|far|come)|how|when|what|where|who|whom|whose|which|why"
)
_EN_AUX = r"did|does|do|is|was|are|were|has|have|had|will|would|can|could|should|might|may|shall"
_APOSTROPHE = "'\u2019"  # the straight and the typographic one
_QUE = rf"qu(?:e|[{_APOSTROPHE}])?"
_FR_ASK = (
    rf"qu[{_APOSTROPHE}]est[- ]ce\s+{_QUE}|est[- ]ce\s+{_QUE}|depuis\s+quand|quand|où|ou|qui|"
    rf"quel(?:le)?s?|comment|pourquoi|combien(?:\s+de)?|que|qu[{_APOSTROPHE}]"
)
_QUESTION_FORM = re.compile(
    rf"^\s*(?:(?:{_EN_ASK})\b(?:\s+(?:{_EN_AUX})\b)?|(?:{_EN_AUX})\b"
    rf"|(?:{_FR_ASK})(?:\b|(?<=[{_APOSTROPHE}]))(?:\s*est[- ]ce\s+{_QUE})?)\s*",
    re.IGNORECASE,
)


def statement(query: str) -> str:
    """``query`` without its leading question form and question marks (unchanged when
    nothing would be left)."""
    stripped = _QUESTION_FORM.sub("", query, count=1).replace("?", " ").strip()
    return stripped or query


def keywords(query: str) -> str:
    """The words of ``query`` that are not function words of its language (the query itself
    when it has no other)."""
    text_words = words(query)
    stop = frozenset().union(*(STOP_WORDS[language] for language in detect_languages(text_words)))
    kept = [word for word in text_words if fold(word) not in stop]
    return " ".join(kept) if kept else query


def semantic_query(settings: Any, query: str) -> str:
    """What the semantic signal embeds for ``query`` under ``search_semantic_query``."""
    form = settings.search_semantic_query
    if form == "statement":
        return statement(query)
    if form == "keywords":
        return keywords(query)
    return query
