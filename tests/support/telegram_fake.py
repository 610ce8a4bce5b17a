"""A fake Telegram Bot API on loopback, speaking the real wire protocol (test support).

The product's client (python-telegram-bot) is pointed at it through its documented
``base_url``/``base_file_url`` settings: ``fake.base_url`` and ``fake.base_file_url``. It
serves ``/bot<token>/<method>`` (form-encoded or multipart, as the library sends) for
``getMe``, ``getUpdates`` (offsets confirm updates; ``timeout`` long-polls), ``sendMessage``
(parse_mode HTML checked: unknown or unbalanced tags are refused with "can't parse
entities"; texts over 4096 characters refused), ``sendPhoto``, ``sendDocument``,
``sendChatAction``, ``getFile`` and the file download at ``/file/bot<token>/<path>``,
``setWebhook``/``deleteWebhook`` (while a webhook is set, updates are POSTed to it with the
secret token, again until it answers 200, and ``getUpdates`` answers 409 as Telegram does).

A test plays the people (``user_sends``), reads what the bot sent (``sent``,
``wait_for_sent``) and scripts failures (``fail_next``: a 429 with ``retry_after``, a 401…)
or holds a method's calls unanswered, never taken, until released (``hold``).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import logging
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from html.parser import HTMLParser
from types import TracebackType
from typing import Any, Self

import httpx
from hypercorn.asyncio import serve
from hypercorn.config import Config
from quart import Quart, Response, request

from tests.support.fakes import loopback_config

logger = logging.getLogger("tests.support.telegram_fake")

#: The tags of Telegram's HTML formatting.
ALLOWED_TAGS = {
    "b", "strong", "i", "em", "u", "ins", "s", "strike", "del", "span", "tg-spoiler", "a",
    "code", "pre", "blockquote", "tg-emoji",
}  # fmt: skip
MAX_TEXT = 4096


@dataclass(frozen=True)
class TelegramUser:
    """A Telegram account (a person, or another bot)."""

    id: int
    first_name: str
    last_name: str | None = None
    username: str | None = None
    is_bot: bool = False
    language_code: str | None = "en"

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"id": self.id, "is_bot": self.is_bot, "first_name": self.first_name}
        for key in ("last_name", "username", "language_code"):
            if getattr(self, key) is not None:
                data[key] = getattr(self, key)
        return data


@dataclass(frozen=True)
class TelegramChat:
    """A chat: ``private`` (its id is the person's), ``group`` or ``supergroup``."""

    id: int
    type: str = "private"
    title: str | None = None

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"id": self.id, "type": self.type}
        if self.title:
            data["title"] = self.title
        return data


def private_chat(user: TelegramUser) -> TelegramChat:
    return TelegramChat(user.id, "private")


@dataclass
class Sent:
    """Something the bot sent: ``method`` (``sendMessage``, ``sendPhoto``…), its chat, text
    (or caption), parse mode, the message it replies to, a file's bytes, and the message id
    the fake gave it."""

    method: str
    chat_id: str
    text: str | None
    parse_mode: str | None
    reply_to: int | None
    file: bytes | None
    message_id: int
    action: str | None = None


@dataclass
class _Bot:
    token: str
    user: TelegramUser
    updates: list[dict[str, Any]] = field(default_factory=list)
    confirmed: int = 0
    webhook: tuple[str, str | None] | None = None
    delivered_to_webhook: int = 0


@dataclass
class _Failure:
    status: int
    description: str
    retry_after: int | None


class FakeTelegram:
    """The Bot API for any number of bots, each known by its token."""

    def __init__(self) -> None:
        self._lock = threading.Condition()
        self._bots: dict[str, _Bot] = {}
        self._files: dict[str, tuple[str, bytes]] = {}
        self._sent: list[Sent] = []
        self._failures: dict[str, list[_Failure]] = {}
        self._held: dict[str, threading.Event] = {}
        self._held_after: dict[str, int] = {}
        #: Every API call received, as (token, method), oldest first.
        self.calls: list[tuple[str, str]] = []
        self._ids = itertools.count(1000)
        self._update_ids = itertools.count(1)
        self._loop: asyncio.AbstractEventLoop | None = None
        self._news: asyncio.Event | None = None
        self._shutdown: asyncio.Event | None = None
        self._thread: threading.Thread | None = None
        self._url: str | None = None
        self._app = self._build_app()

    # -- lifecycle ---------------------------------------------------------------------------

    def start(self) -> Self:
        sock = socket.create_server(("127.0.0.1", 0), backlog=128)
        self._url = f"http://127.0.0.1:{sock.getsockname()[1]}"
        config = loopback_config(sock, logger)
        ready = threading.Event()
        self._thread = threading.Thread(
            target=self._run, args=(config, ready), name="fake-telegram", daemon=True
        )
        self._thread.start()
        if not ready.wait(timeout=10):
            raise RuntimeError("the fake Telegram did not start")
        return self

    def stop(self) -> None:
        for gate in list(self._held.values()):
            gate.set()
        if self._loop is not None and self._shutdown is not None:
            with contextlib.suppress(RuntimeError):
                self._loop.call_soon_threadsafe(self._shutdown.set)
        if self._thread is not None:
            self._thread.join(timeout=10)
        self._thread = None

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()

    def _run(self, config: Config, ready: threading.Event) -> None:
        loop = asyncio.new_event_loop()
        asyncio.set_event_loop(loop)
        self._loop = loop
        self._news = asyncio.Event()
        self._shutdown = asyncio.Event()
        pusher = loop.create_task(self._push_to_webhooks())
        loop.call_soon(ready.set)
        try:
            loop.run_until_complete(serve(self._app, config, shutdown_trigger=self._shutdown.wait))
        finally:
            pusher.cancel()
            with contextlib.suppress(BaseException):
                loop.run_until_complete(pusher)
            loop.close()

    @property
    def base_url(self) -> str:
        """The ``base_url`` to configure (the token is appended to it)."""
        return f"{self._url}/bot"

    @property
    def base_file_url(self) -> str:
        return f"{self._url}/file/bot"

    # -- bots and people ----------------------------------------------------------------------

    def add_bot(self, token: str, username: str = "family_kin_bot", bot_id: int = 7000) -> None:
        """A bot with this token (the one @BotFather would have made)."""
        user = TelegramUser(bot_id, "Family Kin", username=username, is_bot=True)
        with self._lock:
            self._bots[token] = _Bot(token, user)

    def bot_user(self, token: str) -> TelegramUser:
        with self._lock:
            return self._bots[token].user

    def user_sends(
        self,
        token: str,
        sender: TelegramUser,
        text: str = "",
        *,
        chat: TelegramChat | None = None,
        photo: bytes | None = None,
        document: tuple[str, str, bytes] | None = None,
        voice: bytes | None = None,
        mention_bot: bool = False,
        reply_to_bot: int | None = None,
    ) -> int:
        """``sender`` writes to the bot (in their private chat unless ``chat`` is given):
        text, a photo, a ``(file name, MIME type, bytes)`` document or a voice note; in a
        group, ``mention_bot`` starts the text with ``@<bot>`` and ``reply_to_bot`` answers
        one of the bot's messages. Returns the update id."""
        chat = chat or private_chat(sender)
        with self._lock:
            bot = self._bots[token]
            message_id = next(self._ids)
            message: dict[str, Any] = {
                "message_id": message_id,
                "date": int(time.time()),
                "chat": chat.to_json(),
                "from": sender.to_json(),
            }
            body_key = "caption" if (photo or document or voice) else "text"
            entities: list[dict[str, Any]] = []
            if mention_bot:
                mention = f"@{bot.user.username}"
                text = f"{mention} {text}"
                entities.append({"type": "mention", "offset": 0, "length": len(mention)})
            if text:
                message[body_key] = text
                if entities:
                    message[f"{body_key}_entities" if body_key == "caption" else "entities"] = (
                        entities
                    )
            if reply_to_bot is not None:
                message["reply_to_message"] = {
                    "message_id": reply_to_bot,
                    "date": int(time.time()),
                    "chat": chat.to_json(),
                    "from": bot.user.to_json(),
                    "text": "(an earlier message of the bot)",
                }
            if photo is not None:
                file_id = self._store_file("photos", "jpg", photo)
                message["photo"] = [
                    {"file_id": f"{file_id}-small", "file_unique_id": "s", "width": 90,
                     "height": 90, "file_size": 10},
                    {"file_id": file_id, "file_unique_id": file_id, "width": 800,
                     "height": 600, "file_size": len(photo)},
                ]  # fmt: skip
                self._files[f"{file_id}-small"] = ("photos/small.jpg", b"not the largest")
            if document is not None:
                name, mime_type, data = document
                file_id = self._store_file("documents", name.rpartition(".")[2], data)
                message["document"] = {"file_id": file_id, "file_unique_id": file_id,
                                       "file_name": name, "mime_type": mime_type,
                                       "file_size": len(data)}  # fmt: skip
            if voice is not None:
                file_id = self._store_file("voice", "oga", voice)
                message["voice"] = {"file_id": file_id, "file_unique_id": file_id,
                                    "duration": 3, "mime_type": "audio/ogg",
                                    "file_size": len(voice)}  # fmt: skip
            update_id = next(self._update_ids)
            bot.updates.append({"update_id": update_id, "message": message})
        self._announce()
        return update_id

    def _store_file(self, folder: str, extension: str, data: bytes) -> str:
        file_id = f"file-{next(self._ids)}"
        self._files[file_id] = (f"{folder}/{file_id}.{extension}", data)
        return file_id

    def _announce(self) -> None:
        loop, news = self._loop, self._news
        if loop is not None and news is not None:
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(news.set)

    # -- what the bot did ---------------------------------------------------------------------

    def sent(self, method: str | None = None) -> list[Sent]:
        """What the bot sent so far (of one ``method`` if given), oldest first."""
        with self._lock:
            return [s for s in self._sent if method is None or s.method == method]

    def messages_to(self, chat_id: int) -> list[Sent]:
        """The messages and files sent to a chat (chat actions left out)."""
        return [s for s in self.sent() if s.chat_id == str(chat_id) and s.action is None]

    def wait_for_sent(
        self, condition: Callable[[list[Sent]], bool], timeout: float = 60.0
    ) -> list[Sent]:
        """Block until ``condition(sent)`` holds; returns what was sent then."""
        deadline = time.monotonic() + timeout
        with self._lock:
            while not condition(list(self._sent)):
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise AssertionError(f"timed out; the bot sent: {self._sent}")
                self._lock.wait(remaining)
            return list(self._sent)

    async def sent_when(self, condition: Callable[[list[Sent]], bool]) -> list[Sent]:
        """``wait_for_sent`` for async tests (the wait runs in a thread, not on the loop)."""
        return await asyncio.to_thread(self.wait_for_sent, condition)

    def wait_for_call(self, method: str, count: int = 1, timeout: float = 60.0) -> None:
        """Block until ``method`` was called ``count`` times."""
        deadline = time.monotonic() + timeout
        with self._lock:
            while sum(1 for _, m in self.calls if m == method) < count:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise AssertionError(f"timed out waiting for {method}; calls: {self.calls}")
                self._lock.wait(remaining)

    def confirmed_offset(self, token: str) -> int:
        """The offset the bot confirmed with its last ``getUpdates``."""
        with self._lock:
            return self._bots[token].confirmed

    def webhook_of(self, token: str) -> tuple[str, str | None] | None:
        with self._lock:
            return self._bots[token].webhook

    # -- scripting ----------------------------------------------------------------------------

    def fail_next(
        self,
        method: str,
        status: int = 429,
        description: str | None = None,
        *,
        retry_after: int | None = None,
        count: int = 1,
    ) -> None:
        """Answer the next ``count`` calls of ``method`` with an error (429 with
        ``retry_after`` by default, as Telegram's flood control does)."""
        if status == 429 and retry_after is None:
            retry_after = 1
        text = description or {
            429: f"Too Many Requests: retry after {retry_after}",
            401: "Unauthorized",
            400: "Bad Request: can't parse entities: unsupported start tag",
            403: "Forbidden: bot was blocked by the user",
        }.get(status, "Internal Server Error")
        with self._lock:
            self._failures.setdefault(method, []).extend(
                _Failure(status, text, retry_after) for _ in range(count)
            )

    def clear_failures(self) -> None:
        """Forget the failures still scripted."""
        with self._lock:
            self._failures.clear()

    def hold(self, method: str, *, after: int = 0) -> threading.Event:
        """Past the next ``after`` calls of ``method``, leave its calls unanswered until the
        returned event is set; they are never taken (as if lost on the way): once released
        they get a 502, and later calls are served."""
        gate = threading.Event()
        with self._lock:
            self._held[method] = gate
            self._held_after[method] = after
        return gate

    # -- the API ------------------------------------------------------------------------------

    def _build_app(self) -> Quart:
        app = Quart("fake_telegram")

        @app.route("/bot<token>/<method>", methods=["GET", "POST"])
        async def api(token: str, method: str) -> Response:
            return await self._api(token, method)

        @app.get("/file/bot<token>/<path:path>")
        async def download(token: str, path: str) -> Response:
            with self._lock:
                known = token in self._bots
                found = next((d for p, d in self._files.values() if p == path), None)
            if not known or found is None:
                return Response("Not Found", status=404)
            return Response(found, content_type="application/octet-stream")

        return app

    async def _api(self, token: str, method: str) -> Response:
        form = dict((await request.form).items())
        files = {name: storage.read() for name, storage in (await request.files).items()}
        with self._lock:
            self.calls.append((token, method))
            self._lock.notify_all()
            bot = self._bots.get(token)
            gate = self._held.get(method)
            if gate is not None and self._held_after.get(method, 0) > 0:
                self._held_after[method] -= 1
                gate = None
        if bot is None:
            return _error(401, "Unauthorized")
        if gate is not None and not gate.is_set():
            await asyncio.to_thread(gate.wait)
            return _error(502, "Bad Gateway")  # lost on the way: never taken by Telegram
        with self._lock:
            queued = self._failures.get(method)
            failure = queued.pop(0) if queued else None
        if failure is not None:
            return _error(failure.status, failure.description, failure.retry_after)
        handler = getattr(self, f"_{method}", None)
        if handler is None:
            return _error(404, "Not Found: method not found")
        result: Response = await handler(bot, form, files)
        return result

    async def _getMe(self, bot: _Bot, form: dict[str, str], files: Any) -> Response:
        data = bot.user.to_json()
        data.update(can_join_groups=True, can_read_all_group_messages=False,
                    supports_inline_queries=False)  # fmt: skip
        return _ok(data)

    async def _getUpdates(self, bot: _Bot, form: dict[str, str], files: Any) -> Response:
        if bot.webhook is not None:
            return _error(409, "Conflict: can't use getUpdates method while webhook is active; "
                          "use deleteWebhook to delete the webhook first")  # fmt: skip
        offset = int(form.get("offset") or 0)
        timeout = float(form.get("timeout") or 0)
        deadline = time.monotonic() + timeout
        while True:
            with self._lock:
                if offset:
                    bot.updates = [u for u in bot.updates if u["update_id"] >= offset]
                    bot.confirmed = max(bot.confirmed, offset)
                    self._lock.notify_all()
                ready = list(bot.updates)
            remaining = deadline - time.monotonic()
            if ready or remaining <= 0:
                return _ok(ready)
            assert self._news is not None
            self._news.clear()
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(min(remaining, 1.0)):
                    await self._news.wait()

    async def _sendMessage(self, bot: _Bot, form: dict[str, str], files: Any) -> Response:
        text = form.get("text", "")
        parse_mode = form.get("parse_mode")
        if parse_mode == "HTML":
            problem = _html_problem(text)
            if problem:
                return _error(400, f"Bad Request: can't parse entities: {problem}")
            visible = _visible_text(text)
        else:
            visible = text
        if not visible.strip():
            return _error(400, "Bad Request: message text is empty")
        if len(visible) > MAX_TEXT:
            return _error(400, "Bad Request: message is too long")
        return self._record(bot, "sendMessage", form, text=text, parse_mode=parse_mode)

    async def _sendPhoto(self, bot: _Bot, form: dict[str, str], files: Any) -> Response:
        return self._record(
            bot, "sendPhoto", form, text=form.get("caption"), file=files.get("photo")
        )

    async def _sendDocument(self, bot: _Bot, form: dict[str, str], files: Any) -> Response:
        return self._record(
            bot, "sendDocument", form, text=form.get("caption"), file=files.get("document")
        )

    async def _sendChatAction(self, bot: _Bot, form: dict[str, str], files: Any) -> Response:
        with self._lock:
            self._sent.append(Sent("sendChatAction", form.get("chat_id", ""), None, None, None,
                                   None, 0, action=form.get("action")))  # fmt: skip
            self._lock.notify_all()
        return _ok(True)

    async def _getFile(self, bot: _Bot, form: dict[str, str], files: Any) -> Response:
        file_id = form.get("file_id", "")
        with self._lock:
            found = self._files.get(file_id)
        if found is None:
            return _error(400, "Bad Request: invalid file_id")
        path, data = found
        return _ok({"file_id": file_id, "file_unique_id": file_id, "file_size": len(data),
                    "file_path": path})  # fmt: skip

    async def _setWebhook(self, bot: _Bot, form: dict[str, str], files: Any) -> Response:
        with self._lock:
            bot.webhook = (form["url"], form.get("secret_token"))
        self._announce()
        return _ok(True)

    async def _deleteWebhook(self, bot: _Bot, form: dict[str, str], files: Any) -> Response:
        with self._lock:
            bot.webhook = None
        return _ok(True)

    def _record(
        self, bot: _Bot, method: str, form: dict[str, str], *, text: str | None,
        parse_mode: str | None = None, file: bytes | None = None,
    ) -> Response:  # fmt: skip
        reply = json.loads(form["reply_parameters"]) if form.get("reply_parameters") else None
        with self._lock:
            message_id = next(self._ids)
            self._sent.append(
                Sent(method, form.get("chat_id", ""), text, parse_mode,
                     reply.get("message_id") if reply else None, file, message_id)
            )  # fmt: skip
            self._lock.notify_all()
        chat_id = int(form.get("chat_id", "0"))
        return _ok({"message_id": message_id, "date": int(time.time()),
                    "chat": {"id": chat_id, "type": "private" if chat_id > 0 else "group"},
                    "from": bot.user.to_json(), "text": text or ""})  # fmt: skip

    async def _push_to_webhooks(self) -> None:
        """Telegram's side of webhooks: each update POSTed until the bot answers 200."""
        assert self._news is not None
        async with httpx.AsyncClient(timeout=30) as client:
            while True:
                with self._lock:
                    due = [
                        (bot, update)
                        for bot in self._bots.values()
                        if bot.webhook is not None
                        for update in bot.updates
                        if update["update_id"] > bot.delivered_to_webhook
                    ]
                for bot, update in due:
                    assert bot.webhook is not None
                    url, secret = bot.webhook
                    headers = {"X-Telegram-Bot-Api-Secret-Token": secret} if secret else {}
                    try:
                        answer = await client.post(url, json=update, headers=headers)
                    except httpx.HTTPError:
                        break
                    if answer.status_code != 200:
                        break
                    with self._lock:
                        bot.delivered_to_webhook = update["update_id"]
                        bot.updates.remove(update)
                        self._lock.notify_all()
                self._news.clear()
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(0.5):
                        await self._news.wait()


def _ok(result: Any) -> Response:
    return Response(json.dumps({"ok": True, "result": result}), content_type="application/json")


def _error(status: int, description: str, retry_after: int | None = None) -> Response:
    body: dict[str, Any] = {"ok": False, "error_code": status, "description": description}
    if retry_after is not None:
        body["parameters"] = {"retry_after": retry_after}
    return Response(json.dumps(body), status=status, content_type="application/json")


class _Checker(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.stack: list[str] = []
        self.problem: str | None = None
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag not in ALLOWED_TAGS:
            self.problem = self.problem or f'unsupported start tag "{tag}"'
        self.stack.append(tag)

    def handle_endtag(self, tag: str) -> None:
        if not self.stack or self.stack[-1] != tag:
            self.problem = self.problem or f'unexpected end tag "{tag}"'
        else:
            self.stack.pop()

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def _html_problem(text: str) -> str | None:
    checker = _Checker()
    checker.feed(text)
    checker.close()
    if checker.problem is None and checker.stack:
        return f'can\'t find end tag corresponding to start tag "{checker.stack[-1]}"'
    return checker.problem


def _visible_text(text: str) -> str:
    checker = _Checker()
    checker.feed(text)
    checker.close()
    return "".join(checker.text)
