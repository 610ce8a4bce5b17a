"""Which language a text is written in, for full-text search: English, French, or both.

A family's messages are short ("Dentiste mardi 14h"), and statistical detectors need more
text than that to be sure; the light ones that ship their model also cost tens of megabytes
of memory and a second of CPU to load in every process (py3langid: about 50 MB and 1.4 s).
Function words tell English from French cheaply and reliably whenever a text has a few of
them, which nearly every sentence has. A text without enough of them is given both
languages, so that it is indexed (and a query is read) both ways rather than wrongly.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from typing import Literal

Language = Literal["en", "fr"]
#: Every language full-text search knows, in the order used when a text could be either.
LANGUAGES: tuple[Language, ...] = ("en", "fr")

_WORD = re.compile(r"\w+", re.UNICODE)
#: Letters that are ligatures rather than letters with an accent (no Unicode decomposition).
_LIGATURES = str.maketrans({"œ": "oe", "æ": "ae", "ß": "ss"})


@functools.lru_cache(maxsize=65536)
def fold(word: str) -> str:
    """``word`` lowercased, accents removed and ligatures spelt out ("Élève" → "eleve",
    "cœur" → "coeur"), so that a word typed without its accents matches."""
    if word.isascii():
        return word.lower()
    decomposed = unicodedata.normalize("NFKD", word.lower().translate(_LIGATURES))
    return "".join(char for char in decomposed if not unicodedata.combining(char))


def folded(text: str) -> str:
    """``text`` folded for comparison: case and accents ignored ("Frère" and "frere" agree)."""
    decomposed = unicodedata.normalize("NFKD", text.casefold())
    return "".join(char for char in decomposed if not unicodedata.combining(char))


def words(text: str) -> list[str]:
    """The words of ``text``, lowercased (accents kept: the stemmers read them), split on
    anything that is not a letter or a digit, so French elisions ("l'été") come apart."""
    return [word.lower() for word in _WORD.findall(text)]


def _folded(text: str) -> frozenset[str]:
    return frozenset(fold(word) for word in text.split())


#: Common English function words: they match nearly every text, so in an OR query they only
#: add noise to the ranking.
ENGLISH_STOP_WORDS = _folded(
    """
    a about above after again against all am an and any are as at be because been before being
    below between both but by can could did do does doing down during each few for from further
    had has have having he her here hers herself him himself his how i if in into is it its
    itself just me more most my myself no nor not now of off on once only or other our ours
    ourselves out over own same she should so some such than that the their theirs them
    themselves then there these they this those through to too under until up very was we were
    what when where which while who whom why will with would you your yours yourself yourselves
    """
)

#: Common French function words (articles, pronouns, prepositions, conjunctions, the forms of
#: "être" and "avoir", elided letters), compared without accents. Packaged French lists also
#: drop words that carry meaning in a family's notes ("nom", "pièce", "état", "droite"), and
#: "été" stays out of this one because it is also the summer.
FRENCH_STOP_WORDS = _folded(
    """
    à au aux avec ce ceci cela ces cet cette ceux celle celles celui chez contre dans de des du
    elle elles en entre et eux il ils je la le les leur leurs lui ma mais me même mes moi mon
    ne ni nos notre nous on ou où par pas pour qu que quel quelle quelles quels qui quoi quand
    comment pourquoi sa sans se ses si son sur ta te tes toi ton tu un une vos votre vous y ça
    c d j l m n s t car donc puis aussi très plus moins
    suis es est sommes êtes sont serai seras sera serons serez seront serais serait serions
    seriez seraient étais était étions étiez étaient étant fus fut fûmes fûtes furent sois soit
    soyons soyez soient ai as a avons avez ont aurai auras aura aurons aurez auront aurais
    aurait aurions auriez auraient avais avait avions aviez avaient ayant eu eue eues eus eut
    aie aies ait ayons ayez aient
    """
)

STOP_WORDS: dict[Language, frozenset[str]] = {"en": ENGLISH_STOP_WORDS, "fr": FRENCH_STOP_WORDS}
# Words of both lists ("a", "on", "me", "as", "son"…) say nothing about the language.
_SHARED = ENGLISH_STOP_WORDS & FRENCH_STOP_WORDS
_EVIDENCE = {language: STOP_WORDS[language] - _SHARED for language in LANGUAGES}


def detect_languages(text_words: list[str]) -> tuple[Language, ...]:
    """The language(s) a text (given as its ``words``) is in: one when its function words
    clearly point to it (more than twice as many as the other language's), both otherwise."""
    folded = [fold(word) for word in text_words]
    hits = {language: sum(word in _EVIDENCE[language] for word in folded) for language in LANGUAGES}
    english, french = hits["en"], hits["fr"]
    if english > 2 * french:
        return ("en",)
    if french > 2 * english:
        return ("fr",)
    return LANGUAGES
