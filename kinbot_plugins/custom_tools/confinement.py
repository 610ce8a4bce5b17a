"""What one run of Kin code may touch, written as the launcher's policy and bubblewrap's
options (``sandbox`` puts them together; ``launcher`` applies them in the child).

Both sandboxes show the same files: the system directories read-only (``/usr``, ``/bin``,
``/lib*``, the Python prefix when it is elsewhere), a few files of ``/etc`` (``ETC_ENTRIES``:
no ``passwd``, no ``shadow``), ``/dev/null`` and its kind, the Kin's workspace and a private
temporary directory, both writable. Nothing else: not the data directory (database, its WAL,
``secret.key``, uploads, the other Kins' workspaces). No network, unless a Kin may use it:
then only TCP to the egress proxy (``ProxyAccess``), whose address goes in ``HTTP_PROXY``.
A server running as root runs Kin code as ``NOBODY``.
"""

from __future__ import annotations

import functools
import json
import os
import shutil
import stat
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kinbot_core.egress import ProxyAccess
from kinbot_plugins.custom_tools import launcher

#: Where the workspace appears inside the bubblewrap sandbox.
SANDBOX_WORKSPACE = "/workspace"
SAFE_PATH = "/usr/local/bin:/usr/bin:/bin"
#: The user (and group) Kin code runs as when the server runs as root.
NOBODY = 65534
#: What of /etc Kin code sees: dynamic linking, time zone, MIME types and TLS certificates.
#: Not passwd, shadow, group, hosts or anything of the server.
ETC_ENTRIES = (
    "ld.so.cache",
    "ld.so.conf",
    "ld.so.conf.d",
    "alternatives",
    "localtime",
    "mime.types",
    "ssl",
    "ca-certificates",
    "ca-certificates.conf",
)
ROOT_DIRECTORIES = ("bin", "sbin", "lib", "lib32", "lib64", "libx32")
#: Devices Kin code may open (read and write): the rest of /dev is not there.
DEVICES = ("/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom")
#: Where the system's Python is looked for, first found first.
PYTHON_CANDIDATES = ("/usr/local/bin/python3", "/usr/bin/python3", "/bin/python3")


@dataclass(frozen=True)
class Limits:
    """The rlimits of every process of a run (``custom_tool_*`` settings)."""

    cpu_seconds: int
    memory_bytes: int
    max_processes: int
    file_size_bytes: int
    open_files: int

    @classmethod
    def of(cls, settings: Any) -> Limits:
        return cls(
            cpu_seconds=settings.custom_tool_cpu_seconds,
            memory_bytes=settings.custom_tool_memory_bytes,
            max_processes=settings.custom_tool_max_processes,
            file_size_bytes=settings.custom_tool_file_size_bytes,
            open_files=settings.custom_tool_open_files,
        )

    def policy(self) -> dict[str, Any]:
        """The launcher's ``rlimits`` and ``processes`` (the CPU limit signals SIGXCPU, then
        kills a second later)."""
        policy: dict[str, Any] = {
            "rlimits": {
                "CPU": [self.cpu_seconds, self.cpu_seconds + 1],
                "DATA": [self.memory_bytes, self.memory_bytes],
                "FSIZE": [self.file_size_bytes, self.file_size_bytes],
                "NOFILE": [self.open_files, self.open_files],
            }
        }
        if self.max_processes:
            policy["processes"] = self.max_processes
        return policy


def server_python() -> str:
    """The server's Python, its real binary (a virtualenv's is a link to it)."""
    return os.path.realpath(sys.executable)


@functools.cache
def kin_python() -> str:
    """The Python Kin code runs with: the system's ``python3`` (where every user can run it),
    else the server's."""
    for candidate in PYTHON_CANDIDATES:
        if os.access(candidate, os.X_OK):
            return os.path.realpath(candidate)
    return server_python()


def python_prefixes() -> list[str]:
    """The installation directories of ``kin_python`` to show Kin code, when not in /usr."""
    if kin_python() != server_python():
        return []
    prefix = os.path.realpath(sys.base_prefix)
    return [] if prefix == "/usr" or prefix.startswith("/usr/") else [prefix]


@functools.cache
def _launcher_source() -> str:
    return Path(launcher.__file__).read_text(encoding="utf-8")


def launched(python: str, policy: dict[str, Any], command: list[str]) -> list[str]:
    """The command running ``command`` through the launcher with ``policy``."""
    return [python, "-I", "-S", "-c", _launcher_source(), json.dumps(policy), *command]


def running_as_root() -> bool:
    return os.geteuid() == 0


def system_paths() -> list[str]:
    """The read-only system paths, as Landlock rules."""
    paths = ["/usr"] + [f"/{name}" for name in ROOT_DIRECTORIES] + python_prefixes()
    return paths + [f"/etc/{name}" for name in ETC_ENTRIES]


def landlock_policy(
    workspace: Path, private_tmp: Path, limits: Limits, proxy: ProxyAccess | None
) -> dict[str, Any]:
    """The launcher's policy in Landlock mode: the files above, TCP only to the proxy, no
    other sockets, no leaving the process group, no change of file modes by path, no signal
    to the server."""
    policy = limits.policy()
    policy["parent"] = os.getpid()
    policy["landlock"] = {
        "read": system_paths(),
        "write": [str(workspace), str(private_tmp)],
        "devices": list(DEVICES),
        "tcp_ports": [proxy.port] if proxy else [],
        "required_abi": 4 if proxy else 1,
    }
    policy["seccomp"] = {
        "tcp": proxy is not None,
        "sessions": False,
        "modes": False,
        "protect": [os.getpid(), -os.getpgrp()],
    }
    return policy


def inner_policy(limits: Limits, proxy: ProxyAccess | None) -> dict[str, Any]:
    """The launcher's policy inside bubblewrap: the rlimits, and when the network is shared,
    TCP only to the proxy (Landlock) and no other sockets (seccomp)."""
    policy = limits.policy()
    policy["landlock"] = {
        "filesystem": False,
        "tcp_ports": [proxy.port] if proxy else [],
        "required_abi": 4 if proxy else 0,
    }
    policy["seccomp"] = {"tcp": proxy is not None, "sessions": True}
    return policy


def bubblewrap_options(bwrap: str, workspace: Path, proxy: ProxyAccess | None) -> list[str]:
    """``bwrap`` and its options: new namespaces (the network one unless ``proxy``), the
    files above, ``workspace`` mounted at ``/workspace``, a clean environment."""
    # No --new-session: the run already has no terminal, and staying in the run's process
    # group lets killing the group reach the sandbox's init (and with it, everything in it)
    # even before bubblewrap has set up --die-with-parent.
    options = [bwrap, "--die-with-parent", "--unshare-all", "--unshare-user"]
    options += ["--uid", str(NOBODY), "--gid", str(NOBODY)]
    if proxy:
        options.append("--share-net")
    options += ["--ro-bind", "/usr", "/usr"]
    for name in ROOT_DIRECTORIES:
        path = Path("/", name)
        if path.is_symlink():
            options += ["--symlink", os.readlink(path), str(path)]
        elif path.is_dir():
            options += ["--ro-bind", str(path), str(path)]
    for prefix in python_prefixes():
        options += ["--ro-bind", prefix, prefix]
    options += ["--dir", "/etc"]
    for name in ETC_ENTRIES:
        options += ["--ro-bind-try", f"/etc/{name}", f"/etc/{name}"]
    options += ["--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp"]
    options += ["--bind", str(workspace), SANDBOX_WORKSPACE, "--chdir", SANDBOX_WORKSPACE]
    options.append("--clearenv")
    for key, value in environment(SANDBOX_WORKSPACE, None, proxy).items():
        options += ["--setenv", key, value]
    return [*options, "--"]


def environment(home: str, tmpdir: str | None, proxy: ProxyAccess | None) -> dict[str, str]:
    """The only environment Kin code gets: no secret of the server's."""
    env = {"PATH": SAFE_PATH, "LANG": "C.UTF-8", "HOME": home}
    if tmpdir:
        env["TMPDIR"] = tmpdir
    if proxy:
        for name in ("HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy"):
            env[name] = proxy.url
        env["NO_PROXY"] = env["no_proxy"] = ""
    return env


def reachable_by(path: Path, uid: int) -> bool:
    """Whether user ``uid`` (in its own group only) may pass every parent directory of
    ``path`` (ACLs aside: then it is deemed not to)."""
    for parent in path.parents:
        info = os.stat(parent)
        if info.st_uid == uid:
            allowed = info.st_mode & stat.S_IXUSR
        elif info.st_gid == uid:
            allowed = info.st_mode & stat.S_IXGRP
        else:
            allowed = info.st_mode & stat.S_IXOTH
        if not allowed:
            return False
    return True


def hand_over(directory: Path, uid: int) -> None:
    """Give ``directory`` and what is in it to ``uid`` (and its group), so that Kin code
    running as ``uid`` can use its workspace. Symbolic links are not followed (directories
    are walked by descriptor), and a file with other hard links is never given away."""
    if os.lstat(directory).st_uid != uid:
        os.chown(directory, uid, uid, follow_symlinks=False)
    for _root, dirs, files, root_fd in os.fwalk(directory, follow_symlinks=False):
        for name in dirs + files:
            try:
                info = os.stat(name, dir_fd=root_fd, follow_symlinks=False)
                if stat.S_ISLNK(info.st_mode) or (info.st_uid, info.st_gid) == (uid, uid):
                    continue
                if not stat.S_ISDIR(info.st_mode) and info.st_nlink > 1:
                    continue
                os.chown(name, uid, uid, dir_fd=root_fd, follow_symlinks=False)
            except FileNotFoundError:
                continue  # removed meanwhile


def remove_tree(directory: Path) -> None:
    """Remove a run's private directory (``rmtree`` resists symbolic links swapped in)."""
    shutil.rmtree(directory, ignore_errors=True)
