"""What a Kin is told about where its scripts run: true of the mode in force and of its own
network setting (the system prompt's section, ``list_custom_tools``)."""

from __future__ import annotations

from kinbot_plugins.custom_tools.confinement import ETC_ENTRIES, NOBODY, Limits
from kinbot_plugins.custom_tools.sandbox import SandboxState

MIB = 1024 * 1024


def sandbox_note(
    state: SandboxState, network: str, limits: Limits, timeout: float, *, as_nobody: bool
) -> str:
    """The sandbox in words, for the model. ``network`` is ``off``, ``unavailable`` or
    ``proxy`` (``runtime.Network.state``)."""
    if state.mode == "refused":
        return (
            "Custom tools are disabled on this server: no sandbox can confine them here, so "
            "register_tool and run_custom_tool will fail. Tell the user if they ask for one "
            f"(the administrator can fix it: {state.problem})"
        )
    etc = ", ".join(f"/etc/{name}" for name in ETC_ENTRIES[:4])
    if state.mode == "bubblewrap":
        files = (
            "Your scripts run in a bubblewrap sandbox: they see the system directories "
            f"read-only (/usr, /bin, /lib, a few files of /etc such as {etc}), your workspace "
            "at /workspace (their working directory and HOME, writable), a private /tmp, and "
            "no other file of the server (no /etc/passwd, no data of other Kins)."
        )
    elif state.mode == "landlock":
        user = f" as user nobody ({NOBODY})" if as_nobody else ""
        files = (
            f"Your scripts run confined by Landlock{user}: they may read the system "
            f"directories (/usr, /bin, /lib, a few files of /etc such as {etc}), read and "
            "write only your workspace (their working directory: use relative paths) and "
            "their private temporary directory ($TMPDIR); every other file of the server is "
            "out of reach (no /etc/passwd, no /proc, no /dev/shm, so no multiprocessing "
            "pools; no data of other Kins). They cannot start a new session or process group, "
            "and chmod has no effect: run scripts with python or bash."
        )
    else:
        files = (
            "Your scripts run WITHOUT a sandbox (the administrator chose so): they start in "
            "your workspace with a clean environment but could read what the server can. "
            "Keep to your workspace."
        )
    if state.mode == "none":
        reach = "Their network is not restricted."
        if network == "proxy":
            reach += " Go through the proxy in HTTP_PROXY/HTTPS_PROXY."
    elif network == "proxy":
        reach = (
            "Network: only HTTP and HTTPS through the proxy given in HTTP_PROXY/HTTPS_PROXY "
            "(public addresses only); no other connection, no UDP, no DNS of their own."
        )
    elif network == "unavailable":
        reach = (
            "Network: none (your network access is on, but this server cannot limit it to "
            "its proxy, so it stays off). Use fetch_page or ask the user for files."
        )
    else:
        reach = (
            "Network: none (a user can allow it in your settings). Use fetch_page for web "
            "pages, or ask the user to upload files."
        )
    bounds = (
        f"Each run ends after {timeout:g} seconds; each process may use {limits.cpu_seconds} "
        f"CPU seconds and {limits.memory_bytes // MIB} MiB of memory, and write files of at "
        f"most {limits.file_size_bytes // MIB} MiB"
    )
    if limits.max_processes:
        bounds += f"; a run may have about {limits.max_processes} processes and threads"
    return f"{files} {reach} {bounds}. Their environment holds no secret."
