"""Time in questions and messages, for time-aware history search (English and French).

Two cues, both cheap regular expressions, no model:

- a question that asks *when* ("When did…", "How long ago…", "Quand…", "Depuis quand…")
  is better answered by a message that says when ("yesterday", "last week", "in May", "hier",
  "il y a deux semaines");
- a question that names a date ("in October 2023", "on 13 May", "en juillet") is better
  answered by a message written on that date: each message carries the date it was sent.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta

_MONTH_NUMBERS = {
    **{
        name: number
        for number, names in enumerate(
            [
                ("january", "jan", "janvier", "janv"),
                ("february", "feb", "février", "fevrier", "févr", "fevr"),
                ("march", "mar", "mars"),
                ("april", "apr", "avril", "avr"),
                ("may", "mai"),
                ("june", "jun", "juin"),
                ("july", "jul", "juillet", "juil"),
                ("august", "aug", "août", "aout"),
                ("september", "sep", "sept", "septembre"),
                ("october", "oct", "octobre"),
                ("november", "nov", "novembre"),
                ("december", "dec", "décembre", "decembre", "déc"),
            ],
            start=1,
        )
        for name in names
    }
}
#: Month names that are also common words: a date only with a day or a year next to them, or
#: after a preposition ("in May", "en mars"), never "may I" or "a march".
_AMBIGUOUS = frozenset({"may", "mar", "march", "jan", "dec", "sep", "mars", "mai"})
_MONTH = "|".join(sorted(map(re.escape, _MONTH_NUMBERS), key=len, reverse=True))
_DAY = r"(?P<day>\d{1,2})(?:st|nd|rd|th|er)?"
_YEAR = r"(?P<year>(?:19|20)\d\d)"
_DATE = re.compile(
    rf"(?:(?P<before>\b(?:in|on|of|since|until|during|by|en|de|du|au|le|depuis)\s+)?"
    rf"\b{_DAY}\s+(?:of\s+)?)?\b(?P<month>{_MONTH})\b\.?"
    rf"(?:\s+(?P<day2>\d{{1,2}})(?:st|nd|rd|th)?\b)?(?:,?\s+{_YEAR}\b)?",
    re.IGNORECASE,
)
_LEAD = re.compile(
    r"\b(?:in|on|of|since|until|during|by|en|de|du|au|le|depuis|fin|début)\s+$", re.I
)
_YEAR_ALONE = re.compile(rf"\b(?:in|of|en|since|depuis)\s+{_YEAR}\b", re.IGNORECASE)

_ASKS_WHEN = re.compile(
    r"\b(?:when|how long|since when|what (?:year|month|day|date|time|week)"
    r"|which (?:year|month|day|date|week)|quand|depuis quand|combien de temps"
    r"|quel(?:le)? (?:année|annee|mois|jour|date|semaine))\b",
    re.IGNORECASE,
)
_WEEKDAYS = (
    "monday|tuesday|wednesday|thursday|friday|saturday|sunday"
    "|lundi|mardi|mercredi|jeudi|vendredi|samedi|dimanche"
)
_UNITS = "days?|weeks?|weekends?|months?|years?|nights?|jours?|semaines?|mois|ans?|années?"
_SAYS_WHEN = re.compile(
    rf"\b(?:yesterday|today|tonight|tomorrow|recently|ago|earlier|lately|soon"
    rf"|(?:last|next|this|past|coming) (?:{_UNITS}|summer|winter|spring|fall|autumn|{_WEEKDAYS})"
    rf"|{_WEEKDAYS}|(?:19|20)\d\d|\d+ (?:{_UNITS})"
    rf"|hier|aujourd'hui|demain|ce soir|récemment|bientôt|il y a"
    rf"|(?:{_UNITS}) (?:dernier|dernière|derniere|prochain|prochaine|passée?)"
    rf"|(?:le|la|l') ?(?:mois|semaine|année|an|week-end)"
    rf" (?:dernier|dernière|prochain|prochaine))\b",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class DateCue:
    """A date named in a question; ``None`` parts match any value."""

    year: int | None
    month: int | None
    day: int | None

    def matches(self, when: date) -> bool:
        """Whether ``when`` falls in the named period (a named day also takes the day before
        and after: the sender's time zone may differ from UTC)."""
        days = [when] if self.day is None else [when + timedelta(days=d) for d in (-1, 0, 1)]
        return any(
            (self.year is None or moment.year == self.year)
            and (self.month is None or moment.month == self.month)
            and (self.day is None or moment.day == self.day)
            for moment in days
        )


def asks_when(question: str) -> bool:
    """Whether the question asks for a time ("when", "how long", "quand", ...)."""
    return _ASKS_WHEN.search(question) is not None


def says_when(text: str) -> bool:
    """Whether the text mentions a time ("yesterday", "last week", "in 2022", "hier", ...)."""
    return _SAYS_WHEN.search(text) is not None or bool(date_cues(text))


def date_cues(text: str) -> list[DateCue]:
    """The dates (a day, a month, a year) the text names."""
    cues: list[DateCue] = []
    for found in _DATE.finditer(text):
        month = found["month"].lower()
        day_text = found["day"] or found["day2"]
        if month in _AMBIGUOUS and not (
            day_text or found["year"] or _LEAD.search(text[: found.start("month")])
        ):
            continue
        day = int(day_text) if day_text and 1 <= int(day_text) <= 31 else None
        year = int(found["year"]) if found["year"] else None
        cues.append(DateCue(year, _MONTH_NUMBERS[month], day))
    if not cues:
        cues = [DateCue(int(found["year"]), None, None) for found in _YEAR_ALONE.finditer(text)]
    return cues


def sent_on(timestamp: float) -> date:
    """The (UTC) date of a message's timestamp."""
    return datetime.fromtimestamp(timestamp, UTC).date()
