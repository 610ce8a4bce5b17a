"""The wheel build hook (hatch_build.py): when the front end is (re)built, and what ships.

The end-to-end tests build real wheels with hatchling (through `python -m build`) of a small
project laid out like KinBot, with the wheel configuration copied from pyproject.toml and a
front end whose `npm run build` is a Node script that writes kinbot_web/static/index.html and
counts its runs, so that every build runs the real hook, npm and Node in a few seconds.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path
from typing import Any

import pytest

from hatch_build import (
    BUILD_OUTPUT,
    DEPS_STAMP,
    FRONTEND_DIR,
    SKIP_VARIABLE,
    build_is_current,
    dependencies_are_current,
)

ROOT = Path(__file__).resolve().parent.parent


def _write(path: Path, text: str = "", mtime: float | None = None) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    if mtime is not None:
        os.utime(path, (mtime, mtime))
    return path


def _age(path: Path, mtime: float) -> None:
    os.utime(path, (mtime, mtime))


# --- the "is it up to date" logic, on a temporary tree --------------------------------------


def test_build_is_current_compares_the_output_with_every_source(tmp_path: Path) -> None:
    frontend, output = tmp_path / FRONTEND_DIR, tmp_path / BUILD_OUTPUT
    sources = [
        _write(frontend / "src" / "routes" / "chat.tsx", mtime=1000),
        _write(frontend / "public" / "favicon.svg", mtime=1000),
        _write(frontend / "scripts" / "compress.mjs", mtime=1000),
        _write(frontend / "index.html", mtime=1000),
        _write(frontend / "vite.config.ts", mtime=1000),
        _write(frontend / "tsconfig.app.json", mtime=1000),
        _write(frontend / "package.json", mtime=1000),
        _write(frontend / "package-lock.json", mtime=1000),
    ]
    assert not build_is_current(frontend, output), "no build at all"

    _write(output, "<html></html>", mtime=2000)
    assert build_is_current(frontend, output)

    for source in sources:
        _age(source, 3000)
        assert not build_is_current(frontend, output), f"{source} changed after the build"
        _age(source, 1000)
    assert build_is_current(frontend, output)

    # What the build does not read never makes it stale.
    _write(frontend / "node_modules" / "vite" / "index.js", mtime=3000)
    _write(frontend / "lighthouse" / "run.mjs", mtime=3000)
    _write(frontend / "README.md", mtime=3000)
    assert build_is_current(frontend, output)


def test_dependencies_are_current_follows_the_npm_ci_stamp(tmp_path: Path) -> None:
    frontend = tmp_path / "frontend"
    _write(frontend / "package.json", "{}", mtime=1000)
    _write(frontend / "package-lock.json", "{}", mtime=1000)
    assert not dependencies_are_current(frontend), "npm ci never ran"

    stamp = _write(frontend / DEPS_STAMP, mtime=2000)
    assert dependencies_are_current(frontend)

    _age(frontend / "package-lock.json", 3000)
    assert not dependencies_are_current(frontend), "the lock file changed after npm ci"
    _age(stamp, 4000)
    _age(frontend / "package.json", 5000)
    assert not dependencies_are_current(frontend), "package.json changed after npm ci"


# --- real wheel builds ----------------------------------------------------------------------

needs_npm = pytest.mark.skipif(shutil.which("npm") is None, reason="needs Node.js and npm")

FAKE_BUILD = """\
import { appendFileSync, mkdirSync, writeFileSync } from "node:fs";
mkdirSync("../static", { recursive: true });
writeFileSync("../static/index.html", "<!doctype html><title>KinBot</title>");
appendFileSync("builds.log", "build\\n");
"""


def _toml_table(name: str, table: dict[str, Any]) -> str:
    """A flat TOML table of strings and string arrays (JSON spells both the TOML way)."""
    lines = [f"[{name}]"]
    lines += [f"{key} = {json.dumps(value)}" for key, value in table.items()]
    return "\n".join(lines) + "\n"


def _project(tmp_path: Path) -> Path:
    """A KinBot-shaped project with the real wheel configuration and hook, and a tiny front end."""
    wheel = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["hatch"]["build"][
        "targets"
    ]["wheel"]
    hook = wheel.pop("hooks")["custom"]
    project = tmp_path / "project"
    text = '[build-system]\nrequires = ["hatchling"]\nbuild-backend = "hatchling.build"\n\n'
    text += '[project]\nname = "kinbot-packaging-probe"\nversion = "0.0.1"\n\n'
    text += _toml_table("tool.hatch.build.targets.wheel", wheel)
    text += _toml_table("tool.hatch.build.targets.wheel.hooks.custom", hook)
    _write(project / "pyproject.toml", text)
    shutil.copy(ROOT / hook["path"], project / hook["path"])
    for package in wheel["packages"]:
        _write(project / package / "__init__.py")

    frontend = project / FRONTEND_DIR
    package = {"name": "probe", "version": "0.0.1", "private": True}
    _write(frontend / "package.json", json.dumps({**package, "scripts": {"build": "node b.mjs"}}))
    lock = {**package, "lockfileVersion": 3, "requires": True, "packages": {"": package}}
    _write(frontend / "package-lock.json", json.dumps(lock))
    _write(frontend / "src" / "main.tsx", "export {};\n")
    _write(frontend / "b.mjs", FAKE_BUILD)
    return project


def _build(project: Path, *, skip: bool = False) -> tuple[str, set[str]]:
    """Build a wheel of ``project``; its output and the names of the wheel's files."""
    env = {k: v for k, v in os.environ.items() if k != SKIP_VARIABLE}
    if skip:
        env[SKIP_VARIABLE] = "1"
    dist = project / "dist"
    shutil.rmtree(dist, ignore_errors=True)
    command = [sys.executable, "-m", "build", "--wheel", "--no-isolation", "--outdir", str(dist)]
    result = subprocess.run(
        command, cwd=project, env=env, capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stdout + result.stderr
    (wheel,) = dist.glob("*.whl")
    with zipfile.ZipFile(wheel) as archive:
        return result.stdout + result.stderr, set(archive.namelist())


def _builds(project: Path) -> int:
    log = project / FRONTEND_DIR / "builds.log"
    return len(log.read_text().splitlines()) if log.exists() else 0


@needs_npm
def test_a_wheel_build_runs_npm_ci_and_the_build_once(tmp_path: Path) -> None:
    project = _project(tmp_path)
    frontend = project / FRONTEND_DIR

    output, names = _build(project)
    assert "npm ci" in output
    assert (frontend / DEPS_STAMP).exists()
    assert _builds(project) == 1
    assert "kinbot_web/static/index.html" in names
    assert not any(name.startswith("kinbot_web/frontend") for name in names)

    output, names = _build(project)
    assert "up to date" in output
    assert _builds(project) == 1, "an up-to-date build ran again"
    assert "kinbot_web/static/index.html" in names

    source = frontend / "src" / "main.tsx"
    later = (project / BUILD_OUTPUT).stat().st_mtime + 10
    _age(source, later)
    output, _ = _build(project)
    assert "npm ci" not in output, "the dependencies had not changed"
    assert _builds(project) == 2


@needs_npm
def test_the_skip_variable_and_editable_installs_leave_the_front_end_alone(
    tmp_path: Path,
) -> None:
    project = _project(tmp_path)

    output, names = _build(project, skip=True)
    assert f"{SKIP_VARIABLE}=1" in output
    assert "no web interface" in output
    assert _builds(project) == 0
    assert "kinbot_web/static/index.html" not in names

    # What `pip install -e .` asks of the backend (PEP 660).
    editable = "import hatchling.build as b; print(b.build_editable('dist'))"
    env = {k: v for k, v in os.environ.items() if k != SKIP_VARIABLE}
    result = subprocess.run(
        [sys.executable, "-c", editable], cwd=project, env=env, capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip().endswith(".whl")
    assert _builds(project) == 0, "an editable install ran the front-end build"
    assert not (project / BUILD_OUTPUT).exists()
