"""Run a command as on a machine that refuses user namespaces, or has no Landlock, or both.

``python tests/support/jail.py [--no-namespaces] [--no-landlock] -- COMMAND...`` loads a
seccomp filter, then executes ``COMMAND``; the filter stays on it and on everything it
starts. With ``--no-namespaces``, like Docker's default profile in an unprivileged container,
it refuses ``unshare`` and a ``clone`` that asks for new namespaces (``EPERM``; ``clone3`` is
"not implemented", so the C library falls back to ``clone``): bubblewrap cannot work. With
``--no-landlock``, the Landlock system calls are "not implemented", as on a kernel built
without it. Written on its own (not with the
product's filter code), so the machine it emulates does not depend on what it tests.
"""

from __future__ import annotations

import ctypes
import os
import struct
import sys

ALLOW, ERRNO, EPERM, ENOSYS = 0x7FFF0000, 0x00050000, 1, 38
LOAD, JUMP_EQUAL, JUMP_SET, RETURN = 0x20, 0x15, 0x45, 0x06
NAMESPACE_FLAGS = 0x7E020000  # CLONE_NEWNS, NEWCGROUP, NEWUTS, NEWIPC, NEWUSER, NEWPID, NEWNET
#: Audit architecture; unshare, clone, clone3; the Landlock system calls.
MACHINES = {
    "x86_64": (0xC000003E, 272, 56, 435),
    "aarch64": (0xC00000B7, 97, 220, 435),
}
LANDLOCK = (444, 445, 446)


def program(*, namespaces: bool, landlock: bool) -> list[tuple[int, int, int, int]]:
    """The filter, as (code, jump if true, jump if false, constant) instructions."""
    arch, unshare, clone, clone3 = MACHINES[os.uname().machine]
    refused = [] if namespaces else [(unshare, EPERM), (clone3, ENOSYS)]
    if not landlock:
        refused += [(number, ENOSYS) for number in LANDLOCK]
    clone_flags = 0 if namespaces else NAMESPACE_FLAGS
    checks: list[tuple[int, int, int, int]] = []
    for number, errno in refused:
        checks += [(JUMP_EQUAL, 0, 1, number), (RETURN, 0, 0, ERRNO | errno)]
    return [
        (LOAD, 0, 0, 4),
        (JUMP_EQUAL, 1, 0, arch),
        (RETURN, 0, 0, ALLOW),
        (LOAD, 0, 0, 0),
        *checks,
        (JUMP_EQUAL, 1, 0, clone),
        (RETURN, 0, 0, ALLOW),
        (LOAD, 0, 0, 16),  # clone's flags
        (JUMP_SET, 0, 1, clone_flags),
        (RETURN, 0, 0, ERRNO | EPERM),
        (RETURN, 0, 0, ALLOW),
    ]


def install(instructions: list[tuple[int, int, int, int]]) -> None:
    libc = ctypes.CDLL(None, use_errno=True)
    code = ctypes.create_string_buffer(b"".join(struct.pack("HBBI", *i) for i in instructions))
    fprog = ctypes.create_string_buffer(
        struct.pack("@HP", len(instructions), ctypes.addressof(code))
    )
    no_new_privs, set_seccomp, mode_filter = 38, 22, 2
    zero = ctypes.c_ulong(0)
    if libc.prctl(no_new_privs, ctypes.c_ulong(1), zero, zero, zero) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_NO_NEW_PRIVS)")
    if libc.prctl(set_seccomp, ctypes.c_ulong(mode_filter), fprog, zero, zero) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_SECCOMP)")


def main(argv: list[str]) -> None:
    options, command = argv[: argv.index("--")], argv[argv.index("--") + 1 :]
    if not options or set(options) - {"--no-namespaces", "--no-landlock"} or not command:
        raise SystemExit("usage: jail.py [--no-namespaces] [--no-landlock] -- COMMAND...")
    install(
        program(
            namespaces="--no-namespaces" not in options, landlock="--no-landlock" not in options
        )
    )
    os.execv(command[0], command)


if __name__ == "__main__":
    main(sys.argv[1:])
