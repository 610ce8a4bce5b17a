"""What KinBot itself writes on a messaging platform (not a Kin): the pairing code, the
confirmation of a link, the answer to ``/kin``, a reply that could not be made. In the
person's language when known (English and French), else in both."""

from __future__ import annotations

LANGUAGES = ("en", "fr")

_PAIRING = {
    "en": (
        "Hello! I don't know you yet, so your message was not passed on.\n\n"
        "To talk to the family's Kins here, sign in to KinBot, open **My account → Link a "
        "messaging account** and enter this code:\n\n`{code}`\n\n"
        "It works once, for {minutes} minutes. An administrator can also link you."
    ),
    "fr": (
        "Bonjour\u00a0! Je ne vous connais pas encore\u00a0: "
        "votre message n'a pas été transmis.\n\n"
        "Pour parler ici aux Kins de la famille, connectez-vous à KinBot, ouvrez **Mon "
        "compte → Lier un compte de messagerie** et saisissez ce code\u00a0:\n\n`{code}`\n\n"
        "Il sert une fois, pendant {minutes} minutes. Un administrateur peut aussi vous lier."
    ),
}
_LINKED = {
    "en": "You are linked to KinBot as {name}. Write to me here: {kin} will answer.",
    "fr": "Vous êtes lié à KinBot en tant que {name}. Écrivez-moi ici\u00a0: {kin} vous répondra.",
}
_KINS = {
    "en": "You are talking to {current}. Also here: {others}. Write /kin and a name to switch.",
    "fr": (
        "Vous parlez à {current}. Aussi ici\u00a0: {others}. Écrivez /kin et un nom pour changer."
    ),
}
_ONLY_KIN = {
    "en": "You are talking to {current}.",
    "fr": "Vous parlez à {current}.",
}
_SWITCHED = {
    "en": "You are now talking to {current}.",
    "fr": "Vous parlez maintenant à {current}.",
}
_FAILED = {
    "en": "Sorry, {kin} could not answer this time. Try again later.",
    "fr": "Désolé, {kin} n'a pas pu répondre cette fois. Réessayez plus tard.",
}


def language_of(tag: str | None) -> str | None:
    """``"fr"`` for ``"fr-CA"``: a language KinBot writes in, or ``None``."""
    if not tag:
        return None
    primary = tag.split("-", 1)[0].split("_", 1)[0].lower()
    return primary if primary in LANGUAGES else None


def _worded(texts: dict[str, str], language: str | None, **values: object) -> str:
    chosen = language_of(language)
    if chosen is not None:
        return texts[chosen].format(**values)
    return "\n\n———\n\n".join(texts[lang].format(**values) for lang in LANGUAGES)


def pairing_text(code: str, ttl_seconds: float, language: str | None) -> str:
    """The reply to an unknown sender: their one-time code and where to enter it."""
    return _worded(_PAIRING, language, code=code, minutes=max(int(ttl_seconds // 60), 1))


def linked_text(name: str, kin: str, language: str | None) -> str:
    """The confirmation that the account is now linked."""
    return _worded(_LINKED, language, name=name, kin=kin)


def kins_text(current: str, others: list[str], language: str | None) -> str:
    """The answer to ``/kin``: who the chat talks to, and who else it may."""
    if not others:
        return _worded(_ONLY_KIN, language, current=current)
    return _worded(_KINS, language, current=current, others=", ".join(others))


def switched_text(current: str, language: str | None) -> str:
    """The answer to ``/kin <name>``: the chat's new Kin."""
    return _worded(_SWITCHED, language, current=current)


def failed_text(kin: str, language: str | None) -> str:
    """What replaces a reply a Kin could not make (its turn failed)."""
    return _worded(_FAILED, language, kin=kin)


_FILE_TOO_LARGE = {
    "en": "[{name}: too large to be sent here; it is in the chat in KinBot]",
    "fr": (
        "[{name}\u00a0: trop volumineux pour être envoyé ici\u00a0; "
        "il est dans la discussion dans KinBot]"
    ),
}
_FILE_GONE = {
    "en": "[{name}: no longer available]",
    "fr": "[{name}\u00a0: n'est plus disponible]",
}


def file_not_sent_text(name: str, too_large: bool, language: str | None) -> str:
    """The line naming a file of a reply that is not sent with it (over the platform's
    limit, or deleted since)."""
    return _worded(_FILE_TOO_LARGE if too_large else _FILE_GONE, language, name=name)
