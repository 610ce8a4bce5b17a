"""Hatch build hook: builds the web interface into kinbot_web/static/ before a wheel is made.

The wheel ships kinbot_web/static/ (ignored by git), so building a wheel from a checkout or an
sdist runs ``npm ci`` (when node_modules is missing or older than package.json or
package-lock.json) and ``npm run build`` in kinbot_web/frontend/, unless the build is already
newer than every front-end source. Editable installs (``pip install -e .``, what the Makefile
does) never run it: the Makefile builds the front end itself. ``KINBOT_SKIP_FRONTEND_BUILD=1``
skips it, shipping whatever kinbot_web/static/ holds.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface

FRONTEND_DIR = Path("kinbot_web", "frontend")
BUILD_OUTPUT = Path("kinbot_web", "static", "index.html")
SKIP_VARIABLE = "KINBOT_SKIP_FRONTEND_BUILD"
# The stamp the Makefile touches after `npm ci`; sharing it keeps both from reinstalling.
DEPS_STAMP = Path("node_modules", ".installed")
DEPS_MANIFESTS = ("package.json", "package-lock.json")
# What the build reads, as in the Makefile's FRONTEND_SOURCES (plus the two manifests).
SOURCE_DIRS = ("src", "public", "scripts")
SOURCE_GLOBS = ("index.html", "vite.config.ts", "tsconfig*.json", *DEPS_MANIFESTS)


class FrontendBuildError(RuntimeError):
    """The web interface could not be built (no npm, or a failed npm command)."""


def _mtime(path: Path) -> float | None:
    try:
        return path.stat().st_mtime
    except FileNotFoundError:
        return None


def frontend_sources(frontend: Path) -> Iterator[Path]:
    """Every file the front-end build depends on, under ``frontend``."""
    for name in SOURCE_DIRS:
        yield from (path for path in (frontend / name).rglob("*") if path.is_file())
    for pattern in SOURCE_GLOBS:
        yield from (path for path in frontend.glob(pattern) if path.is_file())


def dependencies_are_current(frontend: Path) -> bool:
    """Whether ``npm ci`` ran after the last change to package.json and package-lock.json."""
    stamp = _mtime(frontend / DEPS_STAMP)
    if stamp is None:
        return False
    manifests = (_mtime(frontend / name) for name in DEPS_MANIFESTS)
    return all(mtime is None or mtime <= stamp for mtime in manifests)


def build_is_current(frontend: Path, output: Path) -> bool:
    """Whether ``output`` exists and is at least as new as every source under ``frontend``."""
    built = _mtime(output)
    if built is None:
        return False
    return all(path.stat().st_mtime <= built for path in frontend_sources(frontend))


def _npm(frontend: Path, *args: str) -> None:
    npm = shutil.which("npm")
    if npm is None:
        raise FrontendBuildError(
            "building the web interface needs Node.js >= 20.19 and npm; install them, or set "
            f"{SKIP_VARIABLE}=1 to ship kinbot_web/static/ as it is"
        )
    try:
        subprocess.run([npm, *args], cwd=frontend, check=True)
    except subprocess.CalledProcessError as error:
        raise FrontendBuildError(
            f"`npm {' '.join(args)}` failed in {frontend} (exit status {error.returncode})"
        ) from error


class FrontendBuildHook(BuildHookInterface):  # type: ignore[type-arg]
    """Runs the front-end build before hatchling collects a (non-editable) wheel's files."""

    PLUGIN_NAME = "custom"

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        """Build kinbot_web/static/ when making a wheel, unless skipped or up to date."""
        if self.target_name != "wheel" or version == "editable":
            return
        root = Path(self.root)
        frontend, output = root / FRONTEND_DIR, root / BUILD_OUTPUT
        if os.environ.get(SKIP_VARIABLE) == "1":
            state = "as it is" if output.exists() else "EMPTY: the wheel has no web interface"
            self.app.display_warning(f"{SKIP_VARIABLE}=1: shipping kinbot_web/static/ {state}")
            return
        if not (frontend / "package.json").exists():
            if output.exists():
                self.app.display_info("No front-end sources: shipping kinbot_web/static/ as is")
                return
            raise FrontendBuildError(f"neither {FRONTEND_DIR} nor {BUILD_OUTPUT} exists")
        if build_is_current(frontend, output):
            self.app.display_info("The web interface build is up to date (kinbot_web/static/)")
            return
        if not dependencies_are_current(frontend):
            self.app.display_info("Installing the web interface's dependencies (npm ci)")
            _npm(frontend, "ci", "--no-audit", "--no-fund")
            stamp = frontend / DEPS_STAMP
            stamp.parent.mkdir(exist_ok=True)  # npm ci makes no node_modules without packages
            stamp.touch()
        self.app.display_info("Building the web interface (npm run build)")
        _npm(frontend, "run", "build")
        if not output.exists():
            raise FrontendBuildError(f"`npm run build` did not write {BUILD_OUTPUT}")
