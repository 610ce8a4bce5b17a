"""Masking of vault values in text: whole texts, streamed text, structured data, log records.

A value is replaced by its placeholder, ``[SECRET: KEY]``. The longest values are matched
first, so a value containing another is masked whole.
"""

from __future__ import annotations

import json
import logging
import re
import threading
from collections.abc import Iterable, Mapping
from typing import Any

#: Values shorter than this cannot be told apart from ordinary text: the vault refuses them.
MIN_VALUE_LENGTH = 4


#: How a text marks where a vault secret's value was.
PLACEHOLDER_PATTERN = re.compile(r"\[SECRET: [A-Z][A-Z0-9_]*\]")


def placeholder(key: str) -> str:
    """What stands in for the value of ``key`` wherever it would have appeared."""
    return f"[SECRET: {key}]"


class Masker:
    """Replaces every known vault value by its placeholder. Immutable: the vault builds a
    new one whenever its secrets change, so a masker in use is never half updated."""

    def __init__(self, values: Mapping[str, str], retired: Iterable[tuple[str, str]] = ()) -> None:
        """``values``: key -> value; ``retired``: (key, former value) pairs, still masked."""
        pairs = [*retired, *values.items()]
        # A value inside JSON text (a tool's result) is escaped: that form is masked too.
        pairs += [(k, escaped) for k, v in pairs if (escaped := json.dumps(v)[1:-1]) != v]
        #: value -> key; values too short to mask are left out.
        self._keys = {v: k for k, v in pairs if len(v) >= MIN_VALUE_LENGTH}
        ordered = sorted(self._keys, key=len, reverse=True)
        self._pattern = re.compile("|".join(map(re.escape, ordered))) if ordered else None
        self._longest = len(ordered[0]) if ordered else 0
        #: The values by their first character, for finding where one may begin.
        self._by_first: dict[str, list[str]] = {}
        for value in ordered:
            self._by_first.setdefault(value[0], []).append(value)

    def __bool__(self) -> bool:
        return self._pattern is not None

    def mask(self, text: str) -> str:
        """``text`` with every vault value replaced by its placeholder."""
        if self._pattern is None or not text:
            return text
        return self._pattern.sub(lambda m: placeholder(self._keys[m.group(0)]), text)

    def mask_data(self, value: Any) -> Any:
        """A copy of JSON-like ``value`` (dicts, lists, strings…) with every string masked."""
        if self._pattern is None:
            return value
        if isinstance(value, str):
            return self.mask(value)
        if isinstance(value, dict):
            return {self.mask_data(k): self.mask_data(v) for k, v in value.items()}
        if isinstance(value, list | tuple):
            return type(value)(self.mask_data(item) for item in value)
        return value

    def contains_secret(self, text: str) -> bool:
        """Whether ``text`` holds a vault value."""
        return self._pattern is not None and self._pattern.search(text) is not None

    def stream(self) -> StreamMasker:
        """A masker for text that arrives in pieces (a model's streamed reply)."""
        return StreamMasker(self)

    def held_back(self, text: str) -> int:
        """Length of the longest end of ``text`` that begins a vault value (0 if none)."""
        for start in range(max(0, len(text) - self._longest + 1), len(text)):
            length = len(text) - start  # the longest end first
            for value in self._by_first.get(text[start], ()):
                if len(value) > length and text.startswith(value[:length], start):
                    return length
        return 0

    def split_stable(self, text: str) -> tuple[str, str]:
        """``text`` cut in two: the start, masked, which more text coming after it cannot
        change; and the rest, unmasked, which might still begin (or extend) a value.

        Every position before the longest end of ``text`` that begins a value is settled: a
        value found there is complete, and no longer value can start there any more.
        """
        if self._pattern is None:
            return text, ""
        unsettled = len(text) - self.held_back(text)
        shown: list[str] = []
        done = 0
        for match in self._pattern.finditer(text):
            if match.start() >= unsettled:
                break
            shown += [text[done : match.start()], placeholder(self._keys[match.group(0)])]
            done = match.end()
        cut = max(unsettled, done)
        shown.append(text[done:cut])
        return "".join(shown), text[cut:]


class StreamMasker:
    """Masks a text given piece by piece, never letting out any part of a value, even one
    split across pieces: the end of what it has seen that could begin a value is held back
    until the next piece (or ``flush``) shows whether it does."""

    def __init__(self, masker: Masker) -> None:
        self._masker = masker
        self._pending = ""

    def feed(self, piece: str) -> str:
        """Take the next piece; return what can be let out now (possibly empty)."""
        if not self._masker:
            return piece
        shown, self._pending = self._masker.split_stable(self._pending + piece)
        return shown

    def flush(self) -> str:
        """The end of the stream: what was held back, masked."""
        rest, self._pending = self._pending, ""
        return self._masker.mask(rest)


class LogScrubber(logging.Filter):
    """Rewrites log records so they carry no vault value: message, arguments, traceback.

    Installed process-wide (``install``) as a step of log record creation, so it covers every
    logger and handler, including ones added later; it also works as an ordinary filter.
    """

    def __init__(self) -> None:
        super().__init__()
        self._masker = Masker({})

    def update(self, masker: Masker) -> None:
        """Scrub with ``masker`` from now on."""
        self._masker = masker

    def filter(self, record: logging.LogRecord) -> bool:
        masker = self._masker
        if not masker:
            return True
        try:
            message = record.getMessage()
        except Exception:  # a malformed record: leave it to the handler to report
            return True
        scrubbed = masker.mask(message)
        if scrubbed != message or record.args:
            record.msg, record.args = scrubbed, None
        if record.exc_info and not record.exc_text:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = masker.mask(record.exc_text)
        if record.stack_info:
            record.stack_info = masker.mask(record.stack_info)
        return True


_installed: list[LogScrubber] = []
_install_lock = threading.Lock()
_original_factory = logging.getLogRecordFactory()


def _scrubbing_factory(*args: Any, **kwargs: Any) -> logging.LogRecord:
    record = _original_factory(*args, **kwargs)
    for scrubber in list(_installed):
        scrubber.filter(record)
    return record


def install(scrubber: LogScrubber) -> None:
    """Scrub every log record created from now on (until ``uninstall``)."""
    global _original_factory
    with _install_lock:
        if not _installed:
            _original_factory = logging.getLogRecordFactory()
            logging.setLogRecordFactory(_scrubbing_factory)
        if scrubber not in _installed:
            _installed.append(scrubber)


def uninstall(scrubber: LogScrubber) -> None:
    """Stop scrubbing with ``scrubber``; the last one out restores the record factory."""
    with _install_lock:
        if scrubber in _installed:
            _installed.remove(scrubber)
        if not _installed and logging.getLogRecordFactory() is _scrubbing_factory:
            logging.setLogRecordFactory(_original_factory)
