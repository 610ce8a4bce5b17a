"""How fast ``kinbot serve`` answers, and how much memory it holds while idle.

For each of N runs (default 3), a fresh data directory and a free 127.0.0.1 port:

- **first start**: ``kinbot serve`` on the empty directory (database created, migrations run,
  master key generated) until ``GET /api/health`` first answers 200;
- **restart**: the same directory again, as after ``docker restart``.

A warm-up start comes first: on a fresh clone it writes the project's bytecode cache, as the
first ``make run`` does (an installed wheel has it from pip); its time is printed too.

Each start prints the wall time from the spawn of the process to the first 200, and the CPU
time (user + system, all threads) the child had used by then, which the other work on a busy
machine does not inflate. The restart also prints the idle server's resident memory (RSS)
once it answers and after one more health request. The medians follow.

Then one start under ``python -X importtime``, whose profile gives the top-level imports by
cumulative time and the heavy third-party packages, wherever they were imported from; and,
where the local embedding model is installed, the memory that loading it adds (in a process
of its own, through the plugin's loader).

Run: ``.venv/bin/python -m benchmarks.start_time [runs]``.
"""

from __future__ import annotations

import argparse
import http.client
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

#: Packages that ``kinbot serve`` imports only when a request first needs them: the provider
#: SDKs and their HTTP clients, MCP, the local model, numpy (the memory vectors), the
#: channels' and files' libraries (``tests/test_start_imports.py`` fails when one is imported
#: at start).
KEPT_FOR_FIRST_USE = (
    "anthropic",
    "openai",
    "google.genai",
    "voyageai",
    "aiohttp",
    "httpx",
    "requests",
    "mcp",
    "sentence_transformers",
    "torch",
    "transformers",
    "numpy",
    "numkong",
    "sqlite_vec",
    "telegram",
    "pywebpush",
    "imapclient",
    "aiosmtplib",
    "detect_secrets",
    "jsonschema",
    "bs4",
    "markdown_it",
    "pypdf",
    "docx",
    "openpyxl",
    "pptx",
    "odf",
)
#: Packages whose import cost matters at start-up: those, and the larger libraries of the web
#: stack that a start does import.
WATCHED = (
    *KEPT_FOR_FIRST_USE,
    "quart",
    "quart_schema",
    "hypercorn",
    "pydantic",
    "peewee",
    "cryptography",
    "PIL",
    "aiocron",
)


@dataclass(frozen=True)
class Start:
    """One start of ``kinbot serve``: to the first 200, and the idle memory after it."""

    wall_seconds: float
    cpu_seconds: float
    rss_mb: float
    rss_after_request_mb: float
    stderr: str


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def cpu_seconds(pid: int) -> float:
    """CPU time (user and system, every thread) of process ``pid`` so far (Linux)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def rss_mb(pid: int | str) -> float:
    """Resident memory of process ``pid`` (or ``"self"``), in MB (Linux)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS")


def health_status(port: int) -> int | None:
    """The status of ``GET /api/health``, or ``None`` while nothing listens."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
    try:
        connection.request("GET", "/api/health")
        return connection.getresponse().status
    except OSError:
        return None
    finally:
        connection.close()


def start_once(data_dir: Path, python_flags: tuple[str, ...] = ()) -> Start:
    """Start ``kinbot serve`` on ``data_dir``, time it to the first 200, measure, stop it."""
    port = free_port()
    environment = {**os.environ, "KINBOT_DATA_DIR": str(data_dir), "KINBOT_LOG_LEVEL": "WARNING"}
    # As installed (pip compiles site-packages) or run from a clone (``make run``: the first
    # start writes the project's bytecode): compiled modules, even where the calling shell
    # says not to write bytecode (PYTHONDONTWRITEBYTECODE), which would compile the whole
    # project from source at every start.
    environment.pop("PYTHONDONTWRITEBYTECODE", None)
    command = [sys.executable, *python_flags, "-m", "kinbot_web.cli", "serve"]
    # A file, not a pipe: a full pipe would block the child's -X importtime output.
    with tempfile.TemporaryFile("w+") as log:
        began = time.perf_counter()
        child = subprocess.Popen(
            [*command, "--host", "127.0.0.1", "--port", str(port)],
            stdout=subprocess.DEVNULL,
            stderr=log,
            env=environment,
            text=True,
        )
        try:
            while (status := health_status(port)) != 200:
                if child.poll() is not None:
                    raise RuntimeError(f"kinbot serve exited with {child.returncode} ({status})")
                time.sleep(0.01)
            wall = time.perf_counter() - began
            cpu = cpu_seconds(child.pid)
            rss = rss_mb(child.pid)
            health_status(port)
            rss_after = rss_mb(child.pid)
        finally:
            child.terminate()
            child.wait(timeout=60)
        log.seek(0)
        stderr = log.read()
    return Start(wall, cpu, rss, rss_after, stderr)


def import_profile(stderr: str) -> list[tuple[int, int, str]]:
    """``-X importtime`` lines as (cumulative µs, depth, module)."""
    rows = []
    for line in stderr.splitlines():
        if not line.startswith("import time:") or "self [us]" in line:
            continue
        _, cumulative, name = line[len("import time:") :].split("|")
        depth = (len(name) - len(name.lstrip())) // 2
        rows.append((int(cumulative), depth, name.strip()))
    return rows


def print_import_profile(rows: list[tuple[int, int, str]], top: int = 20) -> None:
    total = sum(us for us, depth, _ in rows if depth == 0)
    print(f"\nimport profile (-X importtime): {total / 1e6:.2f} s in top-level imports")
    print(f"the {top} heaviest imports three levels deep (cumulative; -X importtime inflates):")
    for us, depth, name in sorted((r for r in rows if r[1] <= 2), reverse=True)[:top]:
        print(f"  {us / 1000:8.1f} ms  {'  ' * depth}{name}")
    print("watched packages (cumulative, where first imported):")
    seen = {name: us for us, _, name in rows if name in WATCHED}
    for name, us in sorted(seen.items(), key=lambda item: -item[1]):
        print(f"  {us / 1000:8.1f} ms  {name}")
    absent = [name for name in WATCHED if name not in seen]
    print(f"not imported at start: {', '.join(absent) or '-'}")


MODEL_PROBE = """
from benchmarks.start_time import rss_mb
from kinbot_plugins.providers import local_embeddings
before = rss_mb('self')
local_embeddings.load_bundled_model().encode(
    [local_embeddings.PROBE_TEXT], batch_size=1, show_progress_bar=False,
    convert_to_numpy=True, normalize_embeddings=True,
)
print(f'{before:.1f} {rss_mb("self"):.1f}')
"""


def model_memory() -> tuple[float, float] | None:
    """RSS before and after the local embedding model is loaded and embeds one text, in a
    process of its own; ``None`` when the model is not installed."""
    try:
        import sentence_transformers  # noqa: F401
    except ImportError:
        return None
    probe = subprocess.run(
        [sys.executable, "-c", MODEL_PROBE], capture_output=True, text=True, check=True
    )
    before, after = probe.stdout.split()
    return float(before), float(after)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("runs", nargs="?", type=int, default=3, help="starts measured (3)")
    runs = parser.parse_args().runs
    with tempfile.TemporaryDirectory() as directory:
        warm_up = start_once(Path(directory))
    print(
        f"warm-up (on a fresh clone it writes the bytecode cache): "
        f"{warm_up.wall_seconds:.2f} s wall, {warm_up.cpu_seconds:.2f} s CPU"
    )
    first: list[Start] = []
    again: list[Start] = []
    for run in range(runs):
        with tempfile.TemporaryDirectory() as directory:
            first.append(start_once(Path(directory)))
            again.append(start_once(Path(directory)))
        print(
            f"run {run + 1}: first start {first[-1].wall_seconds:.2f} s wall, "
            f"{first[-1].cpu_seconds:.2f} s CPU; restart {again[-1].wall_seconds:.2f} s wall, "
            f"{again[-1].cpu_seconds:.2f} s CPU; idle RSS {again[-1].rss_mb:.0f} MB, "
            f"{again[-1].rss_after_request_mb:.0f} MB after a request"
        )

    def median(values: list[float]) -> float:
        return statistics.median(values)

    print(
        f"\nmedian of {runs}: first start {median([s.wall_seconds for s in first]):.2f} s wall, "
        f"{median([s.cpu_seconds for s in first]):.2f} s CPU; "
        f"restart {median([s.wall_seconds for s in again]):.2f} s wall, "
        f"{median([s.cpu_seconds for s in again]):.2f} s CPU; "
        f"idle RSS {median([s.rss_mb for s in again]):.0f} MB, "
        f"{median([s.rss_after_request_mb for s in again]):.0f} MB after a request"
    )
    with tempfile.TemporaryDirectory() as directory:
        start_once(Path(directory))
        profiled = start_once(Path(directory), ("-X", "importtime"))
    print_import_profile(import_profile(profiled.stderr))
    memory = model_memory()
    if memory is None:
        print("\nlocal embedding model: not installed (the 'local' extra)")
    else:
        before, after = memory
        print(f"\nlocal embedding model loaded: RSS {before:.0f} MB -> {after:.0f} MB")


if __name__ == "__main__":
    main()
