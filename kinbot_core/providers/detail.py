"""A provider's own words about a failure, fit to show the members of the family: secrets
masked, the addresses of this machine or its network left out, Python class names dropped,
cut to a readable length. Used for a failed turn's ``detail``, a failed connection test's and
the stored reason of a task that ended before error codes existed."""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Callable
from urllib.parse import urlsplit

#: Longest provider message kept as a detail.
DETAIL_CHARS = 500
_URL = re.compile(r"\b[a-zA-Z][a-zA-Z0-9+.-]*://[^\s<>\"')\]]+")
#: Host names that only mean something on this machine or its network.
_LOCAL_SUFFIXES = (".local", ".lan", ".internal", ".home.arpa", ".localdomain", ".localhost")
#: An exception's class name in parentheses, as "(ClientResponseError)": machinery, not words.
_CLASS_NAME = re.compile(r"\s*\((?:[A-Za-z_]\w*\.)*[A-Z]\w*(?:Error|Exception|Timeout)\)")


def _unchanged(text: str) -> str:
    return text


def shown_detail(text: str | None, mask: Callable[[str], str] = _unchanged) -> str | None:
    """``text`` as a person may read it (``mask`` hides vault values), or ``None`` when there
    is nothing to say."""
    if not text or not text.strip():
        return None
    text = _URL.sub(lambda m: "[address]" if is_local(m.group(0)) else m.group(0), text)
    text = _CLASS_NAME.sub("", text)
    return mask(text.strip())[:DETAIL_CHARS] or None


def is_local(url: str) -> bool:
    """Whether ``url`` points at this machine or a private network (never shown)."""
    try:
        host = (urlsplit(url).hostname or "").lower()
    except ValueError:
        return True
    if not host or "." not in host or host.endswith(_LOCAL_SUFFIXES) or host == "localhost":
        return True
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return False
    return not address.is_global
