"""Full-text terms in the text's language: what FTS5 indexes, and how a query is read.

FTS5's own stemmer (porter) knows English only. So the full-text tables (``memory_fts``,
``message_fts``) index *terms* instead of raw text: each word lowercased, stemmed with the
Snowball stemmer of the text's language (``kinbot_core.text_language``) and folded (accents
off), so that "allergiques" finds "allergie", "élèves" finds "eleve", and "allergies" still
finds "allergic". A word is indexed in two forms when they differ, stemmed as written and
stemmed without its accents, because a stemmer reads accents ("activités" → "activ",
"activites" → "activit"): whichever way a word is typed, in the text or in the query, one
form meets the other. Queries are turned into terms the same way, stop words left out.

The SQLite function ``kinbot_fulltext_terms(text)`` (registered on every connection of the
database, see ``register_sql_functions``) lets triggers and migrations index the same way.
"""

from __future__ import annotations

import functools
import logging
import threading
from typing import Any

import Stemmer

from kinbot_core.text_language import (
    STOP_WORDS,
    Language,
    detect_languages,
    fold,
    words,
)

logger = logging.getLogger(__name__)

#: The name of the SQLite function that gives ``index_terms`` of a text.
SQL_TERMS_FUNCTION = "kinbot_fulltext_terms"

_SNOWBALL_NAMES: dict[Language, str] = {"en": "english", "fr": "french"}
# A PyStemmer stemmer is not safe to share between threads (the database has several).
_local = threading.local()


def _stemmer(language: Language) -> Any:
    stemmers: dict[Language, Any] | None = getattr(_local, "stemmers", None)
    if stemmers is None:
        stemmers = _local.stemmers = {
            name: Stemmer.Stemmer(snowball) for name, snowball in _SNOWBALL_NAMES.items()
        }
    return stemmers[language]


@functools.lru_cache(maxsize=65536)
def _forms(word: str, language: Language) -> tuple[str, ...]:
    stemmer = _stemmer(language)
    as_written = fold(stemmer.stemWord(word))
    unaccented = fold(stemmer.stemWord(fold(word)))
    return (as_written,) if as_written == unaccented else (as_written, unaccented)


@functools.lru_cache(maxsize=65536)
def word_terms(word: str, languages: tuple[Language, ...]) -> tuple[str, ...]:
    """The index forms of one lowercased ``word`` in each of ``languages``, without repeats."""
    return tuple(dict.fromkeys(form for language in languages for form in _forms(word, language)))


def index_terms(text: str) -> str:
    """What the full-text index holds for ``text``: its words' terms, separated by spaces,
    in the language(s) the text is detected in. Stop words are kept (a query made of them
    alone still finds), queries leave them out."""
    text_words = words(text)
    languages = detect_languages(text_words)
    return " ".join(term for word in text_words for term in word_terms(word, languages))


def query_terms(text: str, *, drop_stop_words: bool = True) -> list[str]:
    """The terms a free-text query looks for, without repeats: each word in the language(s)
    the query is detected in; with ``drop_stop_words``, the function words of that language
    are left out, unless the query has nothing else."""
    text_words = list(dict.fromkeys(words(text)))
    languages = detect_languages(text_words)
    terms: dict[str, None] = {}
    for language in languages:
        stop = STOP_WORDS[language] if drop_stop_words else frozenset()
        for word in text_words:
            if fold(word) not in stop:
                terms.update(dict.fromkeys(word_terms(word, (language,))))
    if not terms:
        for word in text_words:
            terms.update(dict.fromkeys(word_terms(word, languages)))
    return list(terms)


def match_expression(text: str, *, drop_stop_words: bool = True) -> str | None:
    """An FTS5 MATCH expression for a free-text query over the terms columns: every term
    quoted (so no user input is read as FTS syntax) and joined with OR; ``None`` when the
    query has no word."""
    terms = query_terms(text, drop_stop_words=drop_stop_words)
    if not terms:
        return None
    return " OR ".join(f'"{term}"' for term in terms)


def _sql_terms(text: Any) -> str:
    if not isinstance(text, str):
        return ""
    try:
        return index_terms(text)
    except Exception:  # a message must be stored even if its terms cannot be made
        logger.exception("full-text terms failed; the text is indexed folded, unstemmed")
        return " ".join(fold(word) for word in words(text))


def register_sql_functions(conn: Any) -> None:
    """Make ``kinbot_fulltext_terms(text)`` available on a DB-API SQLite connection: the
    triggers that keep ``message_fts`` in step with messages call it."""
    conn.create_function(SQL_TERMS_FUNCTION, 1, _sql_terms, deterministic=True)
