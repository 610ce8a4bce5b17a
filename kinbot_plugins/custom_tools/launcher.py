"""The launcher: confines the process it runs in, then becomes one run of a Kin's code.

The sandbox runs it as ``python -I -S -c <this file's text> POLICY COMMAND...``: standard
library only, and Python 3.8 syntax, because inside a bubblewrap sandbox it runs with the
interpreter Kin code uses. ``POLICY`` is a JSON object; each step below runs when its key is
there, in this order:

- ``stage`` (as root): a private mount namespace where the workspace is bind-mounted on a
  directory every user can reach (the working directory then), for ``user`` below;
- ``user``: drop to that user and group id (no supplementary groups; a root process loses
  every capability doing so);
- ``rlimits`` (``[soft, hard]`` by ``resource`` name) and ``processes``: how many more tasks
  (``RLIMIT_NPROC``) the user may have than it has now;
- always ``no_new_privs``; ``parent``: killed when that process (the server) dies;
- ``landlock``: a Landlock domain (see ``landlock_ruleset``);
- ``seccomp``: a seccomp filter (see ``seccomp_program``);

then ``execv(COMMAND)``. Every failure ends the process with ``EXIT_CODE`` and one line
``kinbot-sandbox: <why>`` on stderr: nothing of the command runs unless all steps held.
"""

from __future__ import annotations

import ctypes
import json
import os
import resource
import signal
import struct
import sys
from typing import Any

EXIT_CODE = 125
MARK = "kinbot-sandbox: "

PR_SET_PDEATHSIG = 1
PR_SET_SECCOMP = 22
PR_SET_NO_NEW_PRIVS = 38
SECCOMP_MODE_FILTER = 2
CLONE_NEWNS = 0x00020000
MS_BIND, MS_REC, MS_PRIVATE = 0x1000, 0x4000, 0x40000

# -- Landlock (include/uapi/linux/landlock.h) --------------------------------------------------
LANDLOCK_CREATE_RULESET_VERSION = 1
RULE_PATH_BENEATH, RULE_NET_PORT = 1, 2
FS_EXECUTE, FS_WRITE_FILE, FS_READ_FILE, FS_READ_DIR = 1, 2, 4, 8
FS_REMOVE_DIR, FS_REMOVE_FILE, FS_MAKE_CHAR, FS_MAKE_DIR = 16, 32, 64, 128
FS_MAKE_REG, FS_MAKE_SOCK, FS_MAKE_FIFO, FS_MAKE_BLOCK = 256, 512, 1024, 2048
FS_MAKE_SYM, FS_REFER, FS_TRUNCATE, FS_IOCTL_DEV = 4096, 8192, 16384, 32768
NET_BIND_TCP, NET_CONNECT_TCP = 1, 2
SCOPE_ABSTRACT_UNIX_SOCKET, SCOPE_SIGNAL = 1, 2
#: File system rights each Landlock ABI version handles (v4, v6 and v7 add none).
FS_RIGHTS_BY_ABI = {1: (1 << 13) - 1, 2: (1 << 14) - 1, 3: (1 << 15) - 1, 5: (1 << 16) - 1}
FILE_RIGHTS = FS_EXECUTE | FS_WRITE_FILE | FS_READ_FILE | FS_TRUNCATE | FS_IOCTL_DEV
READ_RIGHTS = FS_EXECUTE | FS_READ_FILE | FS_READ_DIR
#: Everything in the workspace and the temporary directory but making device files.
WRITE_RIGHTS = ((1 << 16) - 1) & ~(FS_MAKE_CHAR | FS_MAKE_BLOCK | FS_IOCTL_DEV)
DEVICE_RIGHTS = FS_READ_FILE | FS_WRITE_FILE

# -- seccomp (linux/seccomp.h, linux/filter.h, linux/audit.h) -----------------------------------
RET_ALLOW = 0x7FFF0000
RET_ERRNO = 0x00050000
LD_W_ABS, JEQ_K, JSET_K, JGE_K, RET_K, AND_K = 0x20, 0x15, 0x45, 0x35, 0x06, 0x54
AF_UNIX, AF_INET, AF_INET6 = 1, 2, 10
SOCK_STREAM, SOCK_TYPE_MASK, IPPROTO_TCP = 1, 0xF, 6
#: CLONE_NEWNS, NEWCGROUP, NEWUTS, NEWIPC, NEWUSER, NEWPID and NEWNET.
CLONE_NEW_NAMESPACES = 0x7E020000
EPERM, ENOSYS = 1, 38
#: Per machine: the audit architecture, then the numbers of the system calls the filter names.
SYSCALLS = {
    "x86_64": (0xC000003E, {
        "socket": 41, "socketpair": 53, "clone": 56, "clone3": 435, "unshare": 272,
        "setsid": 112, "setpgid": 109, "truncate": 76, "keyctl": 250, "add_key": 248,
        "request_key": 249, "io_uring_setup": 425, "io_uring_enter": 426,
        "io_uring_register": 427, "chmod": 90, "fchmodat": 268, "fchmodat2": 452,
        "kill": 62, "tkill": 200, "tgkill": 234, "rt_sigqueueinfo": 129,
        "rt_tgsigqueueinfo": 297, "pidfd_open": 434,
    }),
    "aarch64": (0xC00000B7, {
        "socket": 198, "socketpair": 199, "clone": 220, "clone3": 435, "unshare": 97,
        "setsid": 157, "setpgid": 154, "truncate": 45, "keyctl": 219, "add_key": 217,
        "request_key": 218, "io_uring_setup": 425, "io_uring_enter": 426,
        "io_uring_register": 427, "fchmodat": 53, "fchmodat2": 452,
        "kill": 129, "tkill": 130, "tgkill": 131, "rt_sigqueueinfo": 138,
        "rt_tgsigqueueinfo": 240, "pidfd_open": 434,
    }),
}  # fmt: skip
LANDLOCK_SYSCALLS = (444, 445, 446)  # create_ruleset, add_rule, restrict_self: same everywhere


class Refused(Exception):
    """A step could not be applied; the message says which and why."""


_libc = ctypes.CDLL(None, use_errno=True)
_libc.syscall.restype = ctypes.c_long


def _check(result: int, what: str) -> int:
    if result < 0:
        errno = ctypes.get_errno()
        raise Refused(f"{what}: {os.strerror(errno)} (errno {errno})")
    return result


def _syscall(number: int, *arguments: object) -> int:
    """``syscall(2)``: integers are passed as C longs (it reads every argument as one)."""
    converted = [ctypes.c_long(a) if isinstance(a, int) else a for a in arguments]
    return int(_libc.syscall(ctypes.c_long(number), *converted))


def _prctl(option: int, *arguments: object) -> int:
    converted = [ctypes.c_ulong(a) if isinstance(a, int) else a for a in arguments]
    converted += [ctypes.c_ulong(0)] * (4 - len(converted))
    return int(_libc.prctl(ctypes.c_int(option), *converted))


# -- Landlock ------------------------------------------------------------------------------------


def landlock_abi() -> int:
    """The Landlock ABI version of this kernel, 0 when it has none (or it is disabled)."""
    version = _syscall(LANDLOCK_SYSCALLS[0], None, 0, LANDLOCK_CREATE_RULESET_VERSION)
    return max(version, 0)


def landlock_ruleset(policy: dict[str, Any], abi: int) -> int | None:
    """A Landlock ruleset for the best ABI the kernel has (``abi``), to be enforced with
    ``restrict_self``; ``None`` when there is nothing to restrict (and nothing required).
    Made before dropping privileges: the paths are opened with the server's rights.

    ``read``: paths readable and executable; ``write``: paths fully usable (not device
    files); ``devices``: files readable and writable (``/dev/null``…). With ``filesystem``
    false the file system is left alone (bubblewrap confines it). TCP: no bind ever, connect
    only to ``tcp_ports``. Abstract unix sockets and signals: only within the domain.
    Refused below ``required_abi``.
    """
    if abi < policy.get("required_abi", 1):
        if abi == 0:
            raise Refused("this kernel has no Landlock (Linux 5.13 or later, with landlock "
                          "among its security modules), or it is disabled")  # fmt: skip
        raise Refused(f"Landlock ABI {abi} is older than the {policy['required_abi']} needed")
    if abi == 0:
        return None
    filesystem = policy.get("filesystem", True)
    handled_fs = FS_RIGHTS_BY_ABI[max(v for v in FS_RIGHTS_BY_ABI if v <= abi)]
    if not filesystem:
        handled_fs = 0
    handled_net = NET_BIND_TCP | NET_CONNECT_TCP if abi >= 4 else 0
    scoped = SCOPE_ABSTRACT_UNIX_SOCKET | SCOPE_SIGNAL if abi >= 6 else 0
    fields = [handled_fs] + ([handled_net] if abi >= 4 else []) + ([scoped] if abi >= 6 else [])
    if not any(fields):
        return None
    attr = struct.pack(f"{len(fields)}Q", *fields)
    ruleset = _check(_syscall(LANDLOCK_SYSCALLS[0], attr, len(attr), 0), "landlock_create_ruleset")
    try:
        if filesystem:
            for rights, paths in ((READ_RIGHTS, policy.get("read", ())),
                                  (WRITE_RIGHTS, policy.get("write", ())),
                                  (DEVICE_RIGHTS, policy.get("devices", ()))):  # fmt: skip
                for path in paths:
                    _allow_path(ruleset, path, rights & handled_fs)
        if handled_net:
            for port in policy.get("tcp_ports", ()):
                rule = struct.pack("QQ", NET_CONNECT_TCP, port)
                _check(_syscall(LANDLOCK_SYSCALLS[1], ruleset, RULE_NET_PORT, rule, 0),
                       f"Landlock rule for TCP port {port}")  # fmt: skip
        elif policy.get("tcp_ports"):
            raise Refused(f"Landlock ABI {abi} cannot limit TCP connections to a port")
    except Refused:
        os.close(ruleset)
        raise
    return ruleset


def restrict_self(ruleset: int) -> None:
    """Enforce ``ruleset`` on this process and all it will run (no_new_privs must be set)."""
    try:
        _check(_syscall(LANDLOCK_SYSCALLS[2], ruleset, 0), "landlock_restrict_self")
    finally:
        os.close(ruleset)


def _allow_path(ruleset: int, path: str, rights: int) -> None:
    try:
        fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
    except FileNotFoundError:
        return  # an optional system path (/lib32, /etc/gai.conf…) this machine has not
    try:
        if not os.path.isdir(path):
            rights &= FILE_RIGHTS
        rule = struct.pack("=Qi", rights, fd)
        _check(_syscall(LANDLOCK_SYSCALLS[1], ruleset, RULE_PATH_BENEATH, rule, 0),
               f"Landlock rule for {path}")  # fmt: skip
    finally:
        os.close(fd)


# -- seccomp -------------------------------------------------------------------------------------


def seccomp_program(
    policy: dict[str, Any], machine: str, landlock: int
) -> list[tuple[int, int, int, int]]:
    """The filter: sockets only of the kinds allowed (``socketpair`` of unix sockets; TCP over
    IPv4/IPv6 when ``tcp``), no new namespaces (``clone3`` is "not implemented", so the C
    library falls back to ``clone``, whose flags are checked), no io_uring (it would open
    sockets unseen), no kernel keyrings; with ``sessions`` false, no leaving the process
    group (so killing the group reaches every process); no signal to the processes (or,
    negative, the groups) of ``protect``, nor to every process at once (-1), nor by thread id
    (``tkill``; the C library uses ``tgkill``): before Landlock ABI 6 scopes signals, Kin
    code running as the server's user could stop the server; below Landlock ABI 3, no
    ``truncate`` by path (Landlock cannot check it there). Other architectures: refused."""
    if machine not in SYSCALLS:
        raise Refused(f"no seccomp filter for the {machine} architecture")
    arch, nr = SYSCALLS[machine]
    denied = ["unshare", "keyctl", "add_key", "request_key", "io_uring_setup",
              "io_uring_enter", "io_uring_register"]  # fmt: skip
    if not policy.get("sessions", False):
        denied += ["setsid", "setpgid"]
    if landlock < 3:
        denied.append("truncate")
    # Landlock does not check mode changes: by path they do nothing (fchmod of a file that
    # Landlock let it open still works), so the server's own files keep theirs.
    ignored = [] if policy.get("modes", True) else ["chmod", "fchmodat", "fchmodat2"]
    protected = [pid & 0xFFFFFFFF for pid in policy.get("protect", [])]
    if protected:
        denied.append("tkill")
    # A string is a label; an instruction is (operation, constant, jump if true, if false).
    code: list[Any] = [("ld", 4), ("jeq", arch, None, "deny"), ("ld", 0)]
    if machine == "x86_64":
        code.append(("jge", 0x40000000, "deny", None))  # the x32 system calls
    code.append(("jeq", nr["socket"], "socket", None))
    code.append(("jeq", nr["socketpair"], "socketpair", None))
    code.append(("jeq", nr["clone"], "clone", None))
    code.append(("jeq", nr["clone3"], "enosys", None))
    code += [("jeq", nr[name], "deny", None) for name in denied]
    code += [("jeq", nr[name], "ignore", None) for name in ignored if name in nr]
    if protected:
        signals = ("kill", "tgkill", "rt_sigqueueinfo", "rt_tgsigqueueinfo", "pidfd_open")
        code += [("jeq", nr[name], "signal", None) for name in signals]
    code.append(("ret", RET_ALLOW))
    if protected:
        code += ["signal", ("ld", 16)]  # the process (or, negative, the group)
        code += [("jeq", pid, "deny", None) for pid in [*protected, 0xFFFFFFFF]]
        code.append(("ret", RET_ALLOW))
    code += ["socket", ("ld", 16)]  # the address family
    if policy.get("tcp", False):
        code.append(("jeq", AF_INET, "tcp", None))
        code.append(("jeq", AF_INET6, "tcp", "deny"))
        code += ["tcp", ("ld", 24), ("and", SOCK_TYPE_MASK), ("jeq", SOCK_STREAM, None, "deny")]
        code += [("ld", 32), ("jeq", 0, "allow", None), ("jeq", IPPROTO_TCP, "allow", "deny")]
    else:
        code.append(("ret", RET_ERRNO | EPERM))
    code += ["socketpair", ("ld", 16), ("jeq", AF_UNIX, "allow", "deny")]
    code += ["clone", ("ld", 16), ("jset", CLONE_NEW_NAMESPACES, "deny", "allow")]
    code += ["enosys", ("ret", RET_ERRNO | ENOSYS)]
    code += ["ignore", ("ret", RET_ERRNO | 0)]  # "succeeds", doing nothing
    code += ["allow", ("ret", RET_ALLOW)]
    code += ["deny", ("ret", RET_ERRNO | EPERM)]
    return _assemble(code)


def _assemble(code: list[Any]) -> list[tuple[int, int, int, int]]:
    labels: dict[str, int] = {}
    instructions: list[Any] = []
    for item in code:
        if isinstance(item, str):
            labels[item] = len(instructions)
        else:
            instructions.append(item)
    program = []
    for index, (op, k, *targets) in enumerate(instructions):
        if op in ("ld", "ret", "and"):
            program.append(({"ld": LD_W_ABS, "ret": RET_K, "and": AND_K}[op], 0, 0, k))
            continue
        offsets = [0 if t is None else labels[t] - index - 1 for t in targets]
        if min(offsets) < 0 or max(offsets) > 255:
            raise Refused("seccomp filter: a jump out of range")
        program.append(({"jeq": JEQ_K, "jset": JSET_K, "jge": JGE_K}[op], *offsets, k))
    return program


def install_seccomp(program: list[tuple[int, int, int, int]]) -> None:
    """Load ``program`` as this process's seccomp filter (no_new_privs must be set)."""
    buffer = b"".join(struct.pack("HBBI", *instruction) for instruction in program)
    filters = ctypes.create_string_buffer(buffer)
    fprog = ctypes.create_string_buffer(struct.pack("@HP", len(program), ctypes.addressof(filters)))
    _check(_prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, fprog), "seccomp filter")


# -- the other steps -----------------------------------------------------------------------------


def stage_workspace(source: str, target: str) -> None:
    """In a new mount namespace, bind ``source`` on ``target`` (both real directories): the
    workspace where a user who cannot pass its parent directories reaches it."""
    try:
        _check(_libc.unshare(ctypes.c_int(CLONE_NEWNS)), "unshare(CLONE_NEWNS)")
        private = ctypes.c_ulong(MS_REC | MS_PRIVATE)
        _check(_libc.mount(b"none", b"/", None, private, None), "making the mounts private")
        bind = ctypes.c_ulong(MS_BIND | MS_REC)
        _check(_libc.mount(source.encode(), target.encode(), None, bind, None), "bind mount")
    except Refused as exc:
        raise Refused(
            f"the workspace {source} is in a directory closed to user nobody, and it cannot "
            f"be mounted elsewhere here ({exc}): keep the data directory where other users "
            "may pass (chmod o+x on its parent directories), or run KinBot as another user"
        ) from None


def drop_to(uid: int) -> None:
    """Become ``uid`` (and the group of the same id), with no supplementary groups."""
    os.setgroups([])
    os.setresgid(uid, uid, uid)
    os.setresuid(uid, uid, uid)


def tasks_of(uid: int) -> int:
    """How many tasks (threads) of real user ``uid`` this /proc shows."""
    count = 0
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/status") as status:
                fields = dict(line.split(":", 1) for line in status if ":" in line)
        except OSError:
            continue  # gone meanwhile
        if int(fields["Uid"].split()[0]) == uid:
            count += int(fields["Threads"])
    return count


def set_limits(policy: dict[str, Any]) -> None:
    """The ``rlimits`` and ``processes`` of ``policy``, never above the hard limits in force."""
    limits = dict(policy.get("rlimits", {}))
    if policy.get("processes"):
        limit = tasks_of(os.getuid()) + policy["processes"]
        limits["NPROC"] = [limit, limit]
    for name, (soft, hard) in limits.items():
        which = getattr(resource, f"RLIMIT_{name}")
        ceiling = resource.getrlimit(which)[1]
        if ceiling != resource.RLIM_INFINITY:
            hard = min(hard, ceiling)
        resource.setrlimit(which, (min(soft, hard), hard))


def confine(policy: dict[str, Any]) -> None:
    """Apply every step of ``policy`` to this process, or raise ``Refused``."""
    abi = landlock_abi()
    try:
        if "stage" in policy:
            stage_workspace(policy["stage"]["source"], policy["stage"]["target"])
            os.chdir(policy["stage"]["target"])
        # Before dropping privileges: the paths of its rules are opened with the server's.
        ruleset = landlock_ruleset(policy["landlock"], abi) if "landlock" in policy else None
        if "user" in policy:
            drop_to(policy["user"])
        set_limits(policy)
    except (OSError, ValueError) as exc:
        raise Refused(str(exc)) from None
    _check(_prctl(PR_SET_NO_NEW_PRIVS, 1), "no_new_privs")
    if "parent" in policy:
        _check(_prctl(PR_SET_PDEATHSIG, int(signal.SIGKILL)), "parent death signal")
        if os.getppid() != policy["parent"]:
            raise Refused("the server is gone")
    if ruleset is not None:
        restrict_self(ruleset)
    if "seccomp" in policy:
        install_seccomp(seccomp_program(policy["seccomp"], os.uname().machine, abi))


def main(argv: list[str]) -> None:
    """``argv``: the policy (JSON), then the command to run confined."""
    try:
        if len(argv) < 2:
            raise Refused("usage: POLICY COMMAND...")
        confine(json.loads(argv[0]))
        os.execv(argv[1], argv[1:])
    except (Refused, OSError) as exc:
        sys.stderr.write(f"{MARK}{exc}\n")
        sys.stderr.flush()
        os._exit(EXIT_CODE)


if __name__ == "__main__":
    main(sys.argv[1:])
