"""What ``kinbot serve`` has not imported when it first answers: the packages that only some
requests need (``KEPT_FOR_FIRST_USE``: the provider SDKs and their HTTP clients, MCP, the
local model, numpy for the memory vectors, the channels' and files' libraries). Each costs
start-up time and resident memory on a small machine (issue 22: a start under 1.5 s, an idle
server under 100 MB), so each is imported when first used; this test fails when a change
imports one at start."""

from __future__ import annotations

from pathlib import Path

from benchmarks.start_time import KEPT_FOR_FIRST_USE, import_profile, start_once


def test_a_start_leaves_every_package_kept_for_first_use_unimported(tmp_path: Path) -> None:
    started = start_once(tmp_path, ("-X", "importtime"))
    imported = {name for _us, _depth, name in import_profile(started.stderr)}
    assert imported, "no import profile: -X importtime printed nothing"
    assert sorted(set(KEPT_FOR_FIRST_USE) & imported) == []
