"""A private Dovecot IMAP server on 127.0.0.1 (test support).

Debian's ``dovecot-imapd`` (``make dovecot`` installs it), started as an unprivileged process
with its own configuration, run and state directories. Any address logs in with the server's
one password and gets its own maildir under a temporary directory (a static passdb: Dovecot
re-reads a passwd-file at most once a second, too slowly for users made by tests). It listens
on a plain port (which also offers STARTTLS) and an implicit-TLS port, with a certificate made
for the test. Run as root (CI), it drops to the ``dovecot`` system user
the package creates; run by anyone else, it runs as that user.

Mail "arrives" by IMAP APPEND to the inbox, as a mail delivery agent would file it.
"""

from __future__ import annotations

import contextlib
import grp
import imaplib
import os
import pwd
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.support.loopback import self_signed

DOVECOT = shutil.which("dovecot") or shutil.which("dovecot", path="/usr/sbin:/sbin")

#: Skips a test where Debian's dovecot-imapd is not installed (CI installs it: make dovecot).
needs_dovecot = pytest.mark.skipif(
    DOVECOT is None, reason="Dovecot is not installed (make dovecot: apt-get install dovecot-imapd)"
)

#: The password of every mailbox.
PASSWORD = "mailbox-password"

CONFIG = """\
protocols = imap
verbose_proctitle = yes
listen = 127.0.0.1
base_dir = {root}/run
state_dir = {root}/state
log_path = {root}/dovecot.log
ssl = yes
ssl_cert = <{root}/cert.pem
ssl_key = <{root}/key.pem
disable_plaintext_auth = no
auth_mechanisms = plain login
default_internal_user = {user}
default_internal_group = {group}
default_login_user = {user}
first_valid_uid = 1
mail_location = maildir:{root}/mail/%u
auth_failure_delay = 0
passdb {{
  driver = static
  args = password={password}
}}
userdb {{
  driver = static
  args = uid={user} gid={group} home={root}/home/%u
}}
service imap-login {{
  chroot =
  inet_listener imap {{
    address = 127.0.0.1
    port = {port}
  }}
  inet_listener imaps {{
    address = 127.0.0.1
    port = {tls_port}
    ssl = yes
  }}
}}
service anvil {{
  chroot =
  # No growing delay after a wrong password (a test of one would slow the next logins).
  unix_listener anvil-auth-penalty {{
    mode = 0
  }}
}}
"""


@dataclass
class Dovecot:
    """A running private Dovecot; ``ca_file`` is the one certificate its TLS port shows."""

    port: int
    tls_port: int
    ca_file: Path
    root: Path
    password: str
    host: str = "127.0.0.1"
    process_group: int = 0

    def idling(self, address: str) -> bool:
        """Whether a session of ``address`` waits in IMAP IDLE now (Dovecot shows its state
        in its process title)."""
        for stat in Path("/proc").glob("[0-9]*/stat"):
            try:
                group = int(stat.read_text().rsplit(")", 1)[1].split()[2])
                title = (stat.parent / "cmdline").read_bytes()
            except (OSError, IndexError, ValueError):
                continue
            session = title.startswith(f"dovecot/imap [{address} ".encode())
            if group == self.process_group and session and title.rstrip(b"\0").endswith(b" IDLE]"):
                return True
        return False

    @contextlib.contextmanager
    def imap(self, address: str) -> Iterator[imaplib.IMAP4]:
        """A logged-in standard-library IMAP client for ``address`` (the test's own side)."""
        client = imaplib.IMAP4(self.host, self.port, timeout=10)
        try:
            client.login(address, self.password)
            yield client
        finally:
            with contextlib.suppress(OSError, imaplib.IMAP4.error):
                client.logout()

    def deliver(
        self, address: str, message: bytes, folder: str = "INBOX", *, seen: bool = False
    ) -> int:
        """File ``message`` into ``address``'s ``folder`` as new mail (or as mail someone
        already read: ``seen``); its UID."""
        with self.imap(address) as client:
            flags = "(\\Seen)" if seen else None
            status, data = client.append(folder, flags, None, message)
            assert status == "OK", data
            code = data[0].decode() if isinstance(data[0], bytes) else str(data[0])
            # "[APPENDUID <uidvalidity> <uid>] Append completed."
            return int(code.split("]")[0].split()[2])

    def flags(self, address: str, uid: int, folder: str = "INBOX") -> str:
        """The flags of message ``uid`` (as Dovecot prints them)."""
        with self.imap(address) as client:
            client.select(folder, readonly=True)
            status, data = client.uid("FETCH", str(uid), "(FLAGS)")
            assert status == "OK", data
            return data[0].decode() if isinstance(data[0], bytes) else str(data[0])

    def log_text(self) -> str:
        log = self.root / "dovecot.log"
        return log.read_text() if log.exists() else ""


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _accepts(port: int) -> bool:
    with socket.socket() as probe:
        probe.settimeout(1)
        return probe.connect_ex(("127.0.0.1", port)) == 0


def _owner() -> tuple[str, str, list[str]]:
    """The user and group Dovecot runs as, and the command prefix that makes it so."""
    if os.geteuid() != 0:
        me = pwd.getpwuid(os.geteuid())
        return me.pw_name, _group_name(me.pw_gid), []
    system = pwd.getpwnam("dovecot")
    group = _group_name(system.pw_gid)
    drop = ["setpriv", f"--reuid={system.pw_uid}", f"--regid={system.pw_gid}", "--clear-groups"]
    return system.pw_name, group, drop


def _group_name(gid: int) -> str:
    return grp.getgrgid(gid).gr_name


@contextlib.contextmanager
def dovecot_server() -> Iterator[Dovecot]:
    """Start a private Dovecot; stop it and remove its files when the block ends.

    Its directory is made under the system's temporary directory (not pytest's, which the
    unprivileged ``dovecot`` user cannot enter).
    """
    assert DOVECOT is not None, "use needs_dovecot"
    user, group, drop = _owner()
    root = Path(tempfile.mkdtemp(prefix="kinbot-dovecot-"))
    try:
        self_signed(root)
        if drop:
            uid, gid = pwd.getpwnam(user).pw_uid, pwd.getpwnam(user).pw_gid
            for path in (root, root / "cert.pem", root / "key.pem"):
                os.chown(path, uid, gid)
        for attempt in range(3):
            port, tls_port = _free_port(), _free_port()
            (root / "dovecot.conf").write_text(
                CONFIG.format(
                    root=root,
                    user=user,
                    group=group,
                    port=port,
                    tls_port=tls_port,
                    password=PASSWORD,
                )
            )
            server = Dovecot(port, tls_port, root / "cert.pem", root, PASSWORD)
            process = subprocess.Popen(
                [*drop, DOVECOT, "-F", "-c", str(root / "dovecot.conf")],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
                start_new_session=True,
            )
            server.process_group = process.pid
            try:
                if _wait_listening(process, (port, tls_port)):
                    yield server
                    return
            finally:
                # Its whole process group at once: a polite stop takes Dovecot a second.
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(process.pid, signal.SIGKILL)
                process.wait()
            if attempt == 2:
                stderr = process.stderr.read().decode() if process.stderr else ""
                raise AssertionError(f"Dovecot did not start:\n{stderr}\n{server.log_text()}")
    finally:
        shutil.rmtree(root, ignore_errors=True)


def _wait_listening(process: subprocess.Popen[bytes], ports: tuple[int, ...]) -> bool:
    """Whether Dovecot listens on ``ports`` before it exits (a port taken meanwhile: False)."""
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if process.poll() is not None:
            return False
        if all(_accepts(port) for port in ports):
            return True
        time.sleep(0.05)
    raise AssertionError("Dovecot neither listened nor exited within 30 s")
