"""Spotting credentials pasted in a message (API keys, tokens, passwords), and where they are.

`detect-secrets` (Yelp) keeps the formats of many services' keys up to date, but it is made
for source files: its keyword and high-entropy plugins expect assignments and quoted strings,
and its ad-hoc line scan reports every word of a sentence. Chat text is therefore scanned
with:

- its format plugins (AWS, GitHub, GitLab, Slack, Stripe, Telegram, JWTs, SendGrid…);
- formats it does not know (Anthropic and OpenAI project keys, GitHub fine-grained tokens,
  Google and Hugging Face keys, PEM private keys, secrets in a URL's query);
- a password announced as one ("password: …", "mot de passe : …", "pwd=…");
- any other long token (32 characters or more) that does not read as words and whose Shannon
  entropy (detect-secrets' calculators) is that of random data; not in a URL's path, nor a
  UUID, nor a hex string named as a hash or an identifier ("commit …", "sha256:…",
  "cron_id": …), nor one of the platform's own ids (``task_…``, ``req_…``).

``benchmarks/secret_detection.py`` prints how this does on family chat (English and French)
and on real-shaped keys; it runs in a millisecond or so per message.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

_TOKEN_END = r"(?![A-Za-z0-9_-])"
#: Formats detect-secrets does not know: the kind of secret, its pattern, and which group of
#: the pattern is the secret (0: all of it).
EXTRA_FORMATS: tuple[tuple[str, re.Pattern[str], int], ...] = (
    ("Anthropic API Key", re.compile(r"sk-ant-[A-Za-z0-9_-]{20,}" + _TOKEN_END), 0),
    (
        "OpenAI API Key",
        re.compile(r"sk-(?:proj|svcacct|admin)-[A-Za-z0-9_-]{20,}" + _TOKEN_END),
        0,
    ),
    ("API Key", re.compile(r"(?<![A-Za-z0-9_-])sk-[A-Za-z0-9]{32,}" + _TOKEN_END), 0),
    ("GitHub Token", re.compile(r"github_pat_[A-Za-z0-9_]{22,}" + _TOKEN_END), 0),
    ("Google API Key", re.compile(r"AIza[0-9A-Za-z_-]{35}" + _TOKEN_END), 0),
    ("Hugging Face Token", re.compile(r"hf_[A-Za-z0-9]{30,}" + _TOKEN_END), 0),
    ("Slack Token", re.compile(r"xox[abposr]-[A-Za-z0-9-]{10,}" + _TOKEN_END), 0),
    # detect-secrets' pattern stops before the signature.
    (
        "JSON Web Token",
        re.compile(r"eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*" + _TOKEN_END),
        0,
    ),
    (
        "Private Key",
        re.compile(
            r"-----BEGIN[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----.*?"
            r"(?:-----END[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|\Z)",
            re.DOTALL,
        ),
        0,
    ),
    (
        "Secret in URL",
        re.compile(
            r"[?&](?:access_token|api_?key|apikey|auth|client_secret|key|password|secret|sig|"
            r"signature|token)=([^&#\s]{8,})",
            re.IGNORECASE,
        ),
        1,
    ),
)

#: A word that announces a password, then what separates it from the password.
PASSWORD = re.compile(
    r"\b(?:passwords?|passwd|passphrase|pwd|mots? de passe|mdp|passcode)\b"
    r"[^\n:=.;!?]{0,24}?"
    r"(?:\s*[:=]\s*|\s+(?:is|was|est|c'est|c\u2019est)\s+)"
    r"(?P<value>\S{4,})",
    re.IGNORECASE,
)
#: A plain word: after "is"/"est" it is the sentence going on, not a password.
_PLAIN_WORD = re.compile(r"[^\W\d_]+")
#: Punctuation after a password ends the sentence ("!" is kept: passwords often end with one).
_TRAILING_PUNCTUATION = ".,;:?)»\"'\u2019"
#: Words that follow "password:" in a sentence without being one.
_NOT_PASSWORDS = frozenset(
    {"none", "aucun", "aucune", "same", "pareil", "oublié", "forgotten", "changed", "reset"}
)

#: A candidate for the entropy check: a long run of token characters.
LONG_TOKEN = re.compile(r"[A-Za-z0-9+/=_-]{32,}")
URL = re.compile(r"\b(?:https?|ftp)://\S+|\bdata:[\w/+.-]+;base64,\S+", re.IGNORECASE)
#: Words that name the hex token after them as a checksum, a commit or an identifier (``id``,
#: ``cron_id``, ``uuid``…), not a credential.
NAMED_NOT_SECRET = re.compile(
    r"\b(?:commit|sha\d*|md5|hash|checksum|digest|empreinte|révision|revision|\w*ids?|"
    r"identifiant|kin|task|tâche|cron|message)\b\W{0,4}$",
    re.IGNORECASE,
)
#: The platform's own prefixed identifiers: a task's, a request's.
PLATFORM_ID = re.compile(r"(?:task|req)_[0-9a-f]{32}")

#: Above this Shannon entropy (detect-secrets' base64 calculator), a long token that does not
#: read as words is random. Lower than detect-secrets' default (4.5, tuned for longer strings
#: in code): a third of random 32-character keys fall under 4.5.
RANDOM_ENTROPY = 3.5
_HEX_DIGITS = frozenset("0123456789abcdefABCDEF")


@dataclass(frozen=True)
class _Detectors:
    """What this module uses of detect-secrets."""

    #: Its plugins that recognise a service's key by its format.
    format_plugins: tuple[Any, ...]
    base64: Any
    hex: Any
    is_potential_uuid: Callable[[str], bool]
    is_sequential_string: Callable[[str], bool]


@functools.cache
def _detectors() -> _Detectors:
    """detect-secrets, imported by the first scan: with the ``requests`` it brings, a tenth
    of a second that the server's start need not pay."""
    from detect_secrets.filters.heuristic import is_potential_uuid, is_sequential_string
    from detect_secrets.plugins.artifactory import ArtifactoryDetector
    from detect_secrets.plugins.aws import AWSKeyDetector
    from detect_secrets.plugins.azure_storage_key import AzureStorageKeyDetector
    from detect_secrets.plugins.base import RegexBasedDetector
    from detect_secrets.plugins.basic_auth import BasicAuthDetector
    from detect_secrets.plugins.discord import DiscordBotTokenDetector
    from detect_secrets.plugins.github_token import GitHubTokenDetector
    from detect_secrets.plugins.gitlab_token import GitLabTokenDetector
    from detect_secrets.plugins.high_entropy_strings import (
        Base64HighEntropyString,
        HexHighEntropyString,
    )
    from detect_secrets.plugins.jwt import JwtTokenDetector
    from detect_secrets.plugins.mailchimp import MailchimpDetector
    from detect_secrets.plugins.npm import NpmDetector
    from detect_secrets.plugins.openai import OpenAIDetector
    from detect_secrets.plugins.pypi_token import PypiTokenDetector
    from detect_secrets.plugins.sendgrid import SendGridDetector
    from detect_secrets.plugins.slack import SlackDetector
    from detect_secrets.plugins.square_oauth import SquareOAuthDetector
    from detect_secrets.plugins.stripe import StripeDetector
    from detect_secrets.plugins.telegram_token import TelegramBotTokenDetector
    from detect_secrets.plugins.twilio import TwilioKeyDetector

    format_plugins: tuple[RegexBasedDetector, ...] = (
        AWSKeyDetector(),
        ArtifactoryDetector(),
        AzureStorageKeyDetector(),
        BasicAuthDetector(),
        DiscordBotTokenDetector(),
        GitHubTokenDetector(),
        GitLabTokenDetector(),
        JwtTokenDetector(),
        MailchimpDetector(),
        NpmDetector(),
        OpenAIDetector(),
        PypiTokenDetector(),
        SendGridDetector(),
        SlackDetector(),
        SquareOAuthDetector(),
        StripeDetector(),
        TelegramBotTokenDetector(),
        TwilioKeyDetector(),
    )
    return _Detectors(
        format_plugins=format_plugins,
        base64=Base64HighEntropyString(),
        hex=HexHighEntropyString(),
        is_potential_uuid=is_potential_uuid,
        is_sequential_string=is_sequential_string,
    )


@dataclass(frozen=True)
class Finding:
    """A secret found in a text: ``text[start:end]``, and the kind of secret it looks like."""

    start: int
    end: int
    kind: str


def find_secrets(text: str) -> list[Finding]:
    """The secrets in ``text``, in order, none overlapping (overlapping finds are merged)."""
    found = sorted(_candidates(text), key=lambda f: (f.start, -f.end))
    merged: list[Finding] = []
    for finding in found:
        if merged and finding.start <= merged[-1].end:
            last = merged[-1]
            merged[-1] = Finding(last.start, max(last.end, finding.end), last.kind)
        else:
            merged.append(finding)
    return merged


def _candidates(text: str) -> Iterator[Finding]:
    yield from _formats(text)
    yield from _passwords(text)
    yield from _random_tokens(text)


def _formats(text: str) -> Iterator[Finding]:
    for plugin in _detectors().format_plugins:
        for pattern in plugin.denylist:
            for match in pattern.finditer(text):
                yield from _secret_of(match, str(plugin.secret_type))
    for kind, pattern, group in EXTRA_FORMATS:
        for match in pattern.finditer(text):
            yield Finding(match.start(group), match.end(group), kind)


#: What detect-secrets' patterns match around a key (a delimiter), not part of it.
_DELIMITERS = " \t\r\n\"'=:"


def _secret_of(match: re.Match[str], kind: str) -> Iterator[Finding]:
    """The secret a detect-secrets pattern matched: its longest group when that is long
    enough to be the secret (a password in a URL), else the whole match (a group that is
    only the key's prefix, ``ghp``), without the delimiters some patterns take around it."""
    groups = [index for index in range(1, (match.re.groups or 0) + 1) if match.group(index)]
    longest = max(groups, key=lambda index: len(match.group(index)), default=0)
    group = longest if longest and len(match.group(longest)) >= 8 else 0
    start, end = match.start(group), match.end(group)
    while start < end and match.string[start] in _DELIMITERS:
        start += 1
    while end > start and match.string[end - 1] in _DELIMITERS:
        end -= 1
    if end - start >= 8:
        yield Finding(start, end, kind)


def _passwords(text: str) -> Iterator[Finding]:
    """A password after a word announcing one: anything after ":" or "=" but a short plain
    word; after "is"/"est", only what is not a plain word (``Maison#1987``)."""
    for match in PASSWORD.finditer(text):
        value = match.group("value").rstrip(_TRAILING_PUNCTUATION)
        if len(value) < 4 or value.lower() in _NOT_PASSWORDS:
            continue
        separator = text[match.start() : match.start("value")]
        announced = ":" in separator or "=" in separator
        if _PLAIN_WORD.fullmatch(value) and not (announced and len(value) >= 6):
            continue
        start = match.start("value")
        yield Finding(start, start + len(value), "Password")


def _random_tokens(text: str) -> Iterator[Finding]:
    detectors = _detectors()
    in_urls = [(m.start(), m.end()) for m in URL.finditer(text)]
    for match in LONG_TOKEN.finditer(text):
        if any(start <= match.start() < end for start, end in in_urls):
            continue
        token = match.group(0).strip("=/+-_")
        if (
            len(token) < 32
            or detectors.is_potential_uuid(token)
            or detectors.is_sequential_string(token)
        ):
            continue
        if not any(c.isalpha() for c in token):
            continue  # a long number: an account, a serial
        if PLATFORM_ID.fullmatch(token):
            continue  # a task's or a request's id
        if set(token) <= _HEX_DIGITS:
            if NAMED_NOT_SECRET.search(text[max(0, match.start() - 24) : match.start()]):
                continue
            entropy = detectors.hex.calculate_shannon_entropy(token)
            random = entropy > detectors.hex.entropy_limit
        else:
            random = not reads_as_words(token) and (
                detectors.base64.calculate_shannon_entropy(token) > RANDOM_ENTROPY
            )
        if random:
            yield Finding(match.start(), match.start() + len(match.group(0)), "High Entropy String")


_PART = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+")
_VOWELS = frozenset("aeiouyAEIOUY")
_CONSONANTS_RUN = re.compile(r"[^aeiouyAEIOUY\d]{4,}")


def reads_as_words(token: str) -> bool:
    """Whether ``token`` is made of words (``getUserPreferences2``, ``photo_vacances_2023``,
    ``le-gratin-de-mamie``) rather than random characters: most of its letters are in parts
    of 3 letters or more that have a vowel and no run of 4 consonants, and its digits come in
    at most two groups. Random 32-character keys read as words about once in 200."""
    parts = _PART.findall(token)
    letters = sum(len(part) for part in parts if part.isalpha())
    if not letters or sum(part.isdigit() for part in parts) > 2:
        return False
    wordlike = sum(
        len(part)
        for part in parts
        if part.isalpha()
        and len(part) >= 3
        and not _VOWELS.isdisjoint(part)
        and not _CONSONANTS_RUN.search(part)
    )
    return wordlike / letters >= 0.6
