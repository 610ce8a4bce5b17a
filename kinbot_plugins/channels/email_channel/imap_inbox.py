"""Reading new mail from an IMAP folder by UID (IMAPClient, in a thread of its own).

A folder's messages are numbered by UIDs that only grow, valid while the folder's UIDVALIDITY
stays the same (RFC 9051 section 2.3.1.1). The channel keeps ``(uidvalidity, last_uid)`` as its
offset: mail with a greater UID is new. IMAPClient is a blocking library, so every call runs in
one worker thread per inbox (never two at once on the connection); the connection is opened on
first use, kept, and opened again after an error. Messages are fetched with ``BODY.PEEK[]`` so
reading them does not mark them seen; :meth:`ImapInbox.mark_seen` does once they are stored.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import ssl
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import TypeVar

from imapclient import IMAPClient
from imapclient.exceptions import IMAPClientError

from kinbot_plugins.channels.email_channel.errors import MailTransportError, Security

log = logging.getLogger(__name__)

T = TypeVar("T")

#: Mail above this size is skipped (logged), not fetched: a family's mail is far smaller.
MAX_MAIL_BYTES = 40 * 1024 * 1024
#: The longest IDLE before it is begun again: servers may end a silent one after 30 minutes
#: (RFC 2177), and home routers forget a silent connection sooner.
_IDLE_MAX_SECONDS = 9 * 60
#: How long one IDLE wait listens before checking whether the inbox is being closed.
_IDLE_SLICE_SECONDS = 1.0


@dataclass(frozen=True)
class ImapAccount:
    """Where and how to read mail."""

    host: str
    port: int
    security: Security
    username: str
    password: str
    folder: str = "INBOX"
    timeout_seconds: float = 30.0


@dataclass(frozen=True)
class FolderState:
    """A folder's UIDVALIDITY and the UID its next message will get."""

    uidvalidity: int
    uidnext: int


@dataclass(frozen=True)
class FetchedMail:
    """One message as the server stores it, and whether it was marked seen before."""

    uid: int
    raw: bytes
    seen: bool = False


class ImapInbox:
    """One IMAP account's folder, read by UID. Close it with :meth:`close`."""

    def __init__(self, account: ImapAccount, ssl_context: ssl.SSLContext | None = None) -> None:
        self.account = account
        self._ssl_context = ssl_context or ssl.create_default_context()
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="imap")
        self._client: IMAPClient | None = None
        self._closing = threading.Event()

    async def state(self) -> FolderState:
        """The folder's UIDVALIDITY and UIDNEXT, as of now (selecting it afresh)."""
        return await self._run(self._select)

    async def fetch_after(self, last_uid: int, limit: int) -> tuple[FolderState, list[FetchedMail]]:
        """Up to ``limit`` messages with a UID above ``last_uid``, oldest first, with the
        folder's state they belong to (a changed UIDVALIDITY makes ``last_uid`` meaningless:
        the caller checks). A message over :data:`MAX_MAIL_BYTES` comes back with an empty
        ``raw``."""

        def fetch() -> tuple[FolderState, list[FetchedMail]]:
            state = self._select()
            client = self._connected()
            uids = self._uids_after(last_uid)[:limit]
            if not uids:
                return state, []
            known = client.fetch(uids, ["RFC822.SIZE", "FLAGS"])
            small = [
                uid
                for uid in uids
                if int(known.get(uid, {}).get(b"RFC822.SIZE", 0)) <= MAX_MAIL_BYTES
            ]
            bodies = client.fetch(small, ["BODY.PEEK[]"]) if small else {}
            mails = []
            for uid in uids:
                raw = bodies.get(uid, {}).get(b"BODY[]", b"")
                if uid not in small:
                    log.warning("mail %s in %s is too large, skipped", uid, self.account.folder)
                seen = b"\\Seen" in known.get(uid, {}).get(b"FLAGS", ())
                mails.append(FetchedMail(uid, bytes(raw or b""), seen))
            return state, mails

        return await self._run(fetch)

    async def headers_of(self, message_id: str) -> bytes | None:
        """The header of the mail in the folder whose Message-ID is ``message_id``, if any."""

        def look_up() -> bytes | None:
            self._select()
            client = self._connected()
            found = client.search(["HEADER", "Message-ID", message_id])
            if not found:
                return None
            uid = max(int(uid) for uid in found)
            fetched = client.fetch([uid], ["BODY.PEEK[HEADER]"]).get(uid, {})
            header = fetched.get(b"BODY[HEADER]")
            return bytes(header) if header else None

        return await self._run(look_up)

    async def mark_seen(self, uids: list[int]) -> None:
        """Flag ``uids`` as seen (the mailbox's owner sees the Kin has read them)."""
        if uids:
            await self._run(lambda: self._connected().add_flags(uids, [b"\\Seen"], silent=True))

    async def wait_for_mail(self, last_uid: int, seconds: float) -> None:
        """Return when mail above ``last_uid`` may have arrived, at the latest after
        ``seconds`` (nine minutes at most with IDLE): with IMAP IDLE when the server offers it
        (new mail then wakes the caller at once), else after the full wait (polling)."""
        idle = await self._run(lambda: self._connected().has_capability("IDLE"))
        if not idle:
            await asyncio.sleep(seconds)
            return
        deadline = time.monotonic() + min(seconds, _IDLE_MAX_SECONDS)

        def listen() -> None:
            client = self._connected()
            client.noop()  # the server tells this session of mail that came meanwhile
            if self._uids_after(last_uid):  # arrived since the caller's last look
                return
            client.idle()
            try:
                while not self._closing.is_set() and time.monotonic() < deadline:
                    responses = client.idle_check(timeout=_IDLE_SLICE_SECONDS)
                    if any(_announces_mail(response) for response in responses):
                        return
            finally:
                client.idle_done()

        await self._run(listen)

    async def close(self) -> None:
        """Log out and stop the worker thread (an IDLE wait ends within a second)."""
        self._closing.set()
        with contextlib.suppress(MailTransportError):
            await self._run(self._disconnect)
        self._executor.shutdown(wait=False)

    # Worker-thread side.

    async def _run(self, call: Callable[[], T]) -> T:
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._executor, self._guarded, call)

    def _guarded(self, call: Callable[[], T]) -> T:
        try:
            return call()
        except MailTransportError:
            self._disconnect()
            raise
        except (OSError, IMAPClientError) as error:
            self._disconnect()
            raise MailTransportError(_reason(error), _describe(error)) from error

    def _connected(self) -> IMAPClient:
        if self._client is not None:
            return self._client
        account = self.account
        client = IMAPClient(
            account.host,
            port=account.port,
            ssl=account.security == "tls",
            ssl_context=self._ssl_context,
            timeout=account.timeout_seconds,
        )
        try:
            if account.security == "starttls":
                client.starttls(self._ssl_context)
            try:
                client.login(account.username, account.password)
            except IMAPClientError as error:
                raise MailTransportError("login", _describe(error)) from error
        except BaseException:
            with contextlib.suppress(Exception):
                client.shutdown()
            raise
        self._client = client
        return client

    def _select(self) -> FolderState:
        client = self._connected()
        try:
            selected = client.select_folder(self.account.folder)
        except IMAPClientError as error:
            raise MailTransportError("folder", _describe(error)) from error
        return FolderState(int(selected[b"UIDVALIDITY"]), int(selected.get(b"UIDNEXT", 1)))

    def _uids_after(self, last_uid: int) -> list[int]:
        found = self._connected().search(["UID", f"{last_uid + 1}:*"])
        # "n:*" always includes the folder's last message, even below n.
        return sorted(int(uid) for uid in found if int(uid) > last_uid)

    def _disconnect(self) -> None:
        client, self._client = self._client, None
        if client is not None:
            with contextlib.suppress(Exception):
                client.logout()
            with contextlib.suppress(Exception):
                client.shutdown()


def _announces_mail(response: object) -> bool:
    return isinstance(response, tuple) and len(response) >= 2 and response[1] == b"EXISTS"


def _reason(error: BaseException) -> str:
    if isinstance(error, IMAPClientError):
        return "protocol"
    return "connect"


def _describe(error: BaseException) -> str:
    """The error's own words, without the class name (which means nothing to a person)."""
    return str(error).strip() or type(error).__name__
