"""Is a mail really from the address in its ``From``? Anyone can write any ``From``; the
receiving mail provider checks DKIM signatures and DMARC and records the outcome in an
``Authentication-Results`` header (RFC 8601) at the top of the mail. The channel trusts that
header, and only that one: the topmost, or the topmost with the provider's own name
(``authserv-id``) when one is configured, since a sender can add forged ones below it.

A sender counts as authenticated when the provider reports ``dmarc=pass`` for the ``From``
domain, or a passing DKIM signature of a domain aligned with it (the same domain, or one a
sub-domain of the other).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

_COMMENT = re.compile(r"\([^()]*\)")


@dataclass(frozen=True)
class AuthResult:
    """One ``method=result`` of an Authentication-Results header with its properties."""

    method: str
    result: str
    properties: dict[str, str]


def parse_authentication_results(header: str) -> tuple[str | None, list[AuthResult]]:
    """The ``authserv-id`` (None when the header has none, as Microsoft's) and the results."""
    text = header
    while _COMMENT.search(text):  # comments may nest: remove the innermost first
        text = _COMMENT.sub(" ", text)
    segments = [segment.strip() for segment in text.split(";") if segment.strip()]
    authserv_id: str | None = None
    if segments and "=" not in segments[0].split()[0]:
        authserv_id = segments.pop(0).split()[0].lower()
    results = []
    for segment in segments:
        tokens = segment.split()
        method, _, result = tokens[0].partition("=")
        properties = {}
        for token in tokens[1:]:
            name, equals, value = token.partition("=")
            if equals:
                properties[name.lower()] = value.strip('"').lower()
        results.append(AuthResult(method.split("/")[0].lower(), result.lower(), properties))
    return authserv_id, results


def sender_authenticated(
    sender: str, authentication_results: Iterable[str], authserv_id: str = ""
) -> bool:
    """Whether the trusted Authentication-Results header (of ``authentication_results``, the
    headers from top to bottom) vouches for ``sender``'s domain."""
    domain = sender.rpartition("@")[2].lower()
    if not domain:
        return False
    trusted = authserv_id.strip().lower()
    for header in authentication_results:
        server, results = parse_authentication_results(header)
        if trusted and server != trusted:
            continue
        return any(_vouches(result, domain) for result in results)
    return False


def _vouches(result: AuthResult, domain: str) -> bool:
    if result.result != "pass":
        return False
    if result.method == "dmarc":
        return result.properties.get("header.from", domain) == domain
    if result.method == "dkim":
        signer = (
            result.properties.get("header.d")
            or result.properties.get("header.i", "").rpartition("@")[2]
        )
        return bool(signer) and _aligned(signer, domain)
    return False


def _aligned(signer: str, domain: str) -> bool:
    return signer == domain or domain.endswith("." + signer) or signer.endswith("." + domain)
