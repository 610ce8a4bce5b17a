"""Installing throw-away plugin distributions: real dist-info metadata with entry points."""

from __future__ import annotations

import importlib
import textwrap
from pathlib import Path


def write_distribution(
    site: Path,
    name: str,
    *,
    modules: dict[str, str],
    entry_points: dict[str, str],
    version: str = "1.0.0",
) -> None:
    """Write modules and a ``<name>.dist-info`` into ``site`` (a directory on ``sys.path``).

    ``entry_points`` maps plugin names to ``module`` or ``module:object`` in group ``kinbot``.
    """
    site.mkdir(parents=True, exist_ok=True)
    for module, source in modules.items():
        (site / f"{module}.py").write_text(textwrap.dedent(source))
    info = site / f"{name.replace('-', '_')}-{version}.dist-info"
    info.mkdir(exist_ok=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n")
    lines = ["[kinbot]", *(f"{plugin} = {target}" for plugin, target in entry_points.items())]
    (info / "entry_points.txt").write_text("\n".join(lines) + "\n")
    importlib.invalidate_caches()
