"""How well, and how fast, incoming messages are screened for pasted credentials.

    .venv/bin/python -m benchmarks.secret_detection [../shared/data/locomo/locomo-dev.json]

Prints, for KinBot's detector (``kinbot_core.vault.detection``) and for detect-secrets' own
ad-hoc scan (``scan_line`` with its default plugins, what its documentation offers for a
string): how many real-shaped credentials and announced passwords are found whole
(``tests/support/secret_samples.py``), how many ordinary family chat sentences (English and
French) are flagged, and, given a LoCoMo-format file, how many of its dialogue turns (real
chat, several thousand lines) are flagged. Then the time per message, and for a message of
the largest size accepted (100,000 characters).
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections.abc import Callable, Iterable
from pathlib import Path

from detect_secrets.core.scan import scan_line
from detect_secrets.settings import default_settings

from kinbot_core.vault.detection import find_secrets
from tests.support.secret_samples import KEYS, ORDINARY, PASSWORDS

#: What a detector gives for a text: the secrets' values.
Detector = Callable[[str], list[str]]


def kinbot(text: str) -> list[str]:
    return [text[f.start : f.end] for f in find_secrets(text)]


def detect_secrets_scan(text: str) -> list[str]:
    return [str(found.secret_value) for found in scan_line(text)]


def locomo_turns(path: Path) -> list[str]:
    conversations = json.loads(path.read_text())
    return [
        turn["text"]
        for conversation in conversations
        for key, session in conversation["conversation"].items()
        if key.startswith("session_") and isinstance(session, list)
        for turn in session
    ]


def per_message_ms(detector: Detector, texts: Iterable[str]) -> float:
    texts = list(texts)
    timings = []
    for _ in range(5):
        started = time.perf_counter()
        for text in texts:
            detector(text)
        timings.append((time.perf_counter() - started) / len(texts) * 1000)
    return statistics.median(timings)


def report(name: str, detector: Detector, turns: list[str]) -> None:
    pasted = KEYS + PASSWORDS
    whole = sum(item.value in detector(item.message) for item in pasted)
    flagged = [s for s in ORDINARY if detector(s)]
    print(f"{name}")
    print(f"  credentials found whole       {whole}/{len(pasted)}")
    print(f"  ordinary sentences flagged    {len(flagged)}/{len(ORDINARY)}")
    if turns:
        hits = sum(bool(detector(turn)) for turn in turns)
        print(f"  LoCoMo turns flagged          {hits}/{len(turns)}")
    sample = [item.message for item in pasted] + list(ORDINARY)
    print(f"  time per message              {per_message_ms(detector, sample):.3f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "locomo", nargs="?", type=Path, help="a LoCoMo JSON file, whose turns are screened too"
    )
    locomo = parser.parse_args().locomo
    turns = locomo_turns(locomo) if locomo is not None else []
    report("KinBot detector", kinbot, turns)
    largest = ("Bonjour, voici le compte rendu de la réunion de famille. " * 1800)[:100_000]
    started = time.perf_counter()
    find_secrets(largest)
    print(f"  a 100,000-character message   {(time.perf_counter() - started) * 1000:.1f} ms")
    with default_settings():
        report("detect-secrets scan_line (default plugins)", detect_secrets_scan, turns)


if __name__ == "__main__":
    main()
