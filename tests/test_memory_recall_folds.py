"""The cross-validation mode of the recall benchmark on a tiny generated LoCoMo file: settings
chosen on one conversation, measured on the other, each text embedded once."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from benchmarks import memory_recall

SESSION_DATE = "1:56 pm on 8 May, 2023"


def conversation(
    sample_id: str, lines: list[str], questions: list[tuple[str, int, str]]
) -> dict[str, Any]:
    turns = [
        {"speaker": "Ann" if i % 2 == 0 else "Bob", "dia_id": f"D1:{i + 1}", "text": text}
        for i, text in enumerate(lines)
    ]
    return {
        "sample_id": sample_id,
        "conversation": {
            "speaker_a": "Ann",
            "speaker_b": "Bob",
            "session_1_date_time": SESSION_DATE,
            "session_1": turns,
        },
        "qa": [
            {"question": q, "answer": "-", "evidence": [evidence], "category": category}
            for q, category, evidence in questions
        ],
    }


def test_the_recall_benchmark_cross_validates_the_search_settings(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    dataset = tmp_path / "two.json"
    first = conversation(
        "first",
        ["I adopted a grey cat yesterday.", "What a lovely cat!", "We planted tulips."],
        [("When did Ann adopt a cat?", 2, "D1:1"), ("What did Ann plant?", 4, "D1:3")],
    )
    second = conversation(
        "second",
        ["My brother moved to Lyon.", "Is Lyon far?", "I bake bread on Sundays."],
        [("Where did Ann's brother move?", 4, "D1:1"), ("What does Ann bake?", 1, "D1:3")],
    )
    dataset.write_text(json.dumps([first, second]), encoding="utf-8")
    cache = tmp_path / "vectors.npz"
    arguments = [
        str(dataset), "--cross-validate", "--levels", "turns",
        "--grid", "search_rrf_k=5,60", "--grid", "search_when_boost=0,1",
        "--before", "search_when_boost=0", "--fixed", "search_date_boost=0",
        "--embedding-cache", str(cache),
    ]  # fmt: skip
    memory_recall.main(arguments)
    out = capsys.readouterr().out
    for label in ("before", "after"):
        section = out.split(f"turns {label}:", 1)[1]
        assert "held out first: chosen " in section and "held out second: chosen " in section
        table = section.split("held-out folds (mean ±stdev (min-max) over 2 folds):", 1)[1]
        table = table.split("searches of all questions", 1)[0]
        hybrid = table.split("hybrid", 1)[1].splitlines()
        assert any(line.split()[:2] == ["2", "temporal"] for line in hybrid)
        (everything,) = [line for line in hybrid if line.split()[:1] == ["all"]]
        assert len(everything.split()) == 1 + 3 * 3  # mean, ±stdev, (min-max) for R@5/10/25
    # The "before" run holds the boost at 0; the "after" one chooses it among 0 and 1.
    before = out.split("turns before:", 1)[1].split("turns after:", 1)[0]
    assert before.count("when_boost=0.0") == 2 and "when_boost=1" not in before
    assert "when_boost=" in out.split("turns after:", 1)[1]
    # Six turns and four questions embedded once in each of the three forms of
    # search_semantic_query (as written, as a statement, as keywords), whatever the number of
    # settings tried.
    assert "18 texts embedded" in out
    # A second run takes every vector from the file.
    memory_recall.main(arguments)
    assert "0 texts embedded" in capsys.readouterr().out
