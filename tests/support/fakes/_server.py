"""The machinery every fake shares: a tiny ASGI app served by hypercorn in a background thread.

A fake listens on 127.0.0.1 in a thread with its own event loop, so sync code, async tests
(whatever their loop) and benchmarks can all call it. Each request is recorded, checked for
an API key, answered with the next scripted ``Reply`` of its endpoint (or a default one) and
sent once the reply is no longer ``held`` (a stream may be held after its first events) and
after its ``delay``, streamed events (and the stream's end) ``chunk_delay`` apart. A client
that goes away (a timeout) interrupts the waits, so a long ``delay`` never holds the server up.
"""

from __future__ import annotations

import asyncio
import contextlib
import http
import http.client
import itertools
import json
import logging
import socket
import threading
import time
import urllib.parse
from collections import deque
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from types import TracebackType
from typing import Any, ClassVar, Self

from hypercorn.asyncio import serve
from hypercorn.config import Config
from hypercorn.typing import ASGIReceiveCallable, ASGISendCallable, HTTPScope, Scope

from tests.support.fakes._reply import Reply

logger = logging.getLogger("tests.support.fakes")

_INTERNAL_PREFIX = "/__fake__/"
#: The timing of an answer that is no scripted reply (a refusal, a fake's own route).
_AT_ONCE = Reply()

#: How long a fake keeps an idle connection open: longer than its clients keep one (aiohttp
#: 15 s, httpx 5 s), as a real provider's server does. At hypercorn's default of 5 s a client
#: may send a request just as the fake closes the connection under it, and on a busy machine
#: that request is lost (pgjones/hypercorn#235): the client waits out its whole timeout.
KEEP_ALIVE_SECONDS = 130.0


def loopback_config(sock: socket.socket, log: logging.Logger) -> Config:
    """A hypercorn configuration serving on ``sock`` (detached from it), quietly and with the
    keep-alive of a real server, for a fake that runs in a thread of the test process."""
    config = Config()
    config.bind = [f"fd://{sock.detach()}"]
    config.graceful_timeout = 1.0
    config.keep_alive_timeout = KEEP_ALIVE_SECONDS
    config.accesslog = None
    config.errorlog = log
    return config


@dataclass(frozen=True)
class RecordedRequest:
    """One request a fake received, as the client sent it.

    ``query`` keeps the first value of each parameter; ``headers`` has lower-case names;
    ``body`` is the parsed JSON body (``None`` when there is none or it is not JSON; a
    form-encoded body is parsed into ``form``); ``endpoint`` is the fake's endpoint name
    (``None`` for an unknown path); ``api_key`` is the key found where the provider expects
    it. ``client_port`` is the port of the client's end of the connection: two requests with
    the same port came on one kept-alive connection.
    """

    method: str
    path: str
    query: dict[str, str]
    headers: dict[str, str]
    body: Any
    raw_body: bytes
    endpoint: str | None
    api_key: str | None
    form: dict[str, str] = field(default_factory=dict)
    client_port: int | None = None

    @property
    def text(self) -> str:
        """The raw body as text: handy for asserting what never reached a provider."""
        return self.raw_body.decode("utf-8", "replace")


@dataclass
class Response:
    """What a handler answers: a status, a content type and the body, in chunks when
    ``stream`` is true (``chunk_delay`` apart, without a Content-Length)."""

    status: int = 200
    chunks: list[bytes] = field(default_factory=list)
    content_type: str = "application/json"
    headers: dict[str, str] = field(default_factory=dict)
    stream: bool = False

    @classmethod
    def json(cls, payload: Any, status: int = 200) -> Response:
        return cls(status=status, chunks=[json.dumps(payload).encode("utf-8")])

    @classmethod
    def broken_json(cls, start: str = '{"id": "broken", "data": [') -> Response:
        """A body that claims to be JSON but is cut off."""
        return cls(chunks=[start.encode("utf-8")])

    @classmethod
    def sse(cls, events: Iterable[bytes]) -> Response:
        return cls(chunks=list(events), content_type="text/event-stream", stream=True)


class BadRequest(Exception):
    """Raised by a handler for a request the real API would refuse with a 400."""


Handler = Callable[[RecordedRequest, Reply], Response]
Responder = Callable[[RecordedRequest], Reply | None]


def bearer_token(headers: Mapping[str, str]) -> str | None:
    """The token of an ``Authorization: Bearer ...`` header, if any."""
    value = headers.get("authorization", "")
    scheme, _, token = value.partition(" ")
    if scheme.lower() != "bearer":
        return None
    return token.strip() or None


class FakeServer:
    """Base class of the fake provider servers (see the package docstring for the API).

    Subclasses set ``provider``, ``endpoints`` (the first is where ``enqueue`` puts replies
    by default) and ``default_models``, and implement ``_route``, ``_api_key`` and
    ``_error_payload``.
    """

    provider: ClassVar[str] = "provider"
    endpoints: ClassVar[tuple[str, ...]] = ("default",)
    default_models: ClassVar[tuple[str, ...]] = ()
    requires_key: ClassVar[bool] = True

    def __init__(
        self,
        *,
        valid_keys: Iterable[str] | None = None,
        models: Iterable[str] | None = None,
        port: int = 0,
    ) -> None:
        self.valid_keys: set[str] | None = set(valid_keys) if valid_keys is not None else None
        """Keys accepted; ``None`` accepts any non-empty key."""
        self.models: list[str] = list(models if models is not None else self.default_models)
        """The model ids the models endpoint lists."""
        self.responder: Responder | None = None
        """Called for a request whose endpoint has no queued reply; ``None`` from it (or no
        responder) means the default reply."""
        self._port = port
        self._lock = threading.Lock()
        self._queues: dict[str, deque[Reply]] = {name: deque() for name in self.endpoints}
        self._requests: list[RecordedRequest] = []
        self._files: dict[str, tuple[str, bytes]] = {}
        self._ids = itertools.count(1)
        self._url: str | None = None
        self._thread: threading.Thread | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._shutdown: asyncio.Event | None = None
        self._interrupts: set[asyncio.Event] = set()

    # -- lifecycle ----------------------------------------------------------------------

    def start(self) -> Self:
        """Listen on a free loopback port (or the ``port`` given) and serve in a thread."""
        if self._thread is not None:
            raise RuntimeError(f"the fake {self.provider} is already running")
        sock = socket.create_server(("127.0.0.1", self._port), backlog=128)
        self._url = f"http://127.0.0.1:{sock.getsockname()[1]}"
        config = loopback_config(sock, logger)
        ready = threading.Event()
        self._thread = threading.Thread(
            target=self._run, args=(config, ready), name=f"fake-{self.provider}", daemon=True
        )
        self._thread.start()
        ready.wait(timeout=10)
        self._wait_until_up()
        return self

    def stop(self) -> None:
        """Stop serving and join the thread (in-flight delays are cut short)."""
        thread, loop = self._thread, self._loop
        if thread is None:
            return
        if loop is not None:
            with contextlib.suppress(RuntimeError):  # the loop already closed
                loop.call_soon_threadsafe(self._begin_shutdown)
        thread.join(timeout=10)
        self._thread = None
        self._loop = None

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    @property
    def base_url(self) -> str:
        """``http://127.0.0.1:PORT``, without a trailing slash or API prefix."""
        if self._url is None:
            raise RuntimeError(f"the fake {self.provider} is not started")
        return self._url

    def _run(self, config: Config, ready: threading.Event) -> None:
        loop = asyncio.new_event_loop()
        asyncio.set_event_loop(loop)
        shutdown = asyncio.Event()
        self._loop = loop
        self._shutdown = shutdown
        ready.set()
        try:
            loop.run_until_complete(serve(self._asgi, config, shutdown_trigger=shutdown.wait))
        except Exception:
            logger.exception("the fake %s stopped on an error", self.provider)
        finally:
            loop.run_until_complete(loop.shutdown_asyncgens())
            loop.close()

    def _begin_shutdown(self) -> None:
        if self._shutdown is not None:
            self._shutdown.set()
        for interrupt in self._interrupts:
            interrupt.set()

    def _wait_until_up(self) -> None:
        host, port = self.base_url.removeprefix("http://").split(":")
        deadline = time.monotonic() + 10
        while True:
            connection = http.client.HTTPConnection(host, int(port), timeout=2)
            try:
                connection.request("GET", _INTERNAL_PREFIX + "health")
                if connection.getresponse().status == 200:
                    return
            except OSError:
                pass
            finally:
                connection.close()
            if self._thread is None or not self._thread.is_alive():
                raise RuntimeError(f"the fake {self.provider} did not start")
            if time.monotonic() > deadline:
                raise RuntimeError(f"the fake {self.provider} did not answer")
            time.sleep(0.01)

    # -- scripting and records ----------------------------------------------------------

    def enqueue(self, *replies: Reply, endpoint: str | None = None) -> None:
        """Queue replies (FIFO) for ``endpoint``, by default the fake's main one."""
        name = self._endpoint_name(endpoint)
        with self._lock:
            self._queues[name].extend(replies)

    def pending(self, endpoint: str | None = None) -> int:
        """How many replies are still queued for ``endpoint`` (all endpoints if ``None``)."""
        with self._lock:
            if endpoint is None:
                return sum(len(queue) for queue in self._queues.values())
            return len(self._queues[self._endpoint_name(endpoint)])

    def reset(self) -> None:
        """Forget queued replies, recorded requests and the responder."""
        with self._lock:
            for queue in self._queues.values():
                queue.clear()
            self._requests.clear()
            self.responder = None

    @property
    def requests(self) -> list[RecordedRequest]:
        """A copy of the requests received so far, oldest first."""
        with self._lock:
            return list(self._requests)

    def requests_to(self, endpoint: str) -> list[RecordedRequest]:
        """The requests received so far on ``endpoint`` ("chat", "embeddings"...), oldest first."""
        return [request for request in self.requests if request.endpoint == endpoint]

    def default_reply(self) -> Reply:
        """The reply used when nothing is queued and no responder answers."""
        return Reply(text=f"Hello from the fake {self.provider}.")

    def _endpoint_name(self, endpoint: str | None) -> str:
        name = endpoint or self.endpoints[0]
        if name not in self._queues:
            raise ValueError(
                f"the fake {self.provider} has no endpoint {name!r} (it has {self.endpoints})"
            )
        return name

    def _next_reply(self, endpoint: str, record: RecordedRequest) -> Reply:
        with self._lock:
            queue = self._queues[endpoint]
            if queue:
                return queue.popleft()
            responder = self.responder
        if responder is not None:
            reply = responder(record)
            if reply is not None:
                return reply
        return self.default_reply()

    def _next_id(self, prefix: str) -> str:
        return f"{prefix}{next(self._ids):06d}"

    def _publish_file(self, name: str, content_type: str, data: bytes) -> str:
        """Serve ``data`` at a URL of this fake (for image replies given by URL)."""
        with self._lock:
            self._files[name] = (content_type, data)
        return f"{self.base_url}{_INTERNAL_PREFIX}files/{name}"

    # -- provider hooks -----------------------------------------------------------------

    def _route(self, method: str, path: str, body: Any) -> tuple[str, Handler] | None:
        """The endpoint name and handler of a request, or ``None`` for a 404."""
        raise NotImplementedError

    def _api_key(
        self, headers: Mapping[str, str], query: Mapping[str, str]
    ) -> str | None:  # pragma: no cover - every fake overrides it
        return bearer_token(headers)

    def _error_payload(self, status: int, message: str, error_type: str | None) -> Any:
        """The provider's JSON error body."""
        raise NotImplementedError

    def _error_message(self, status: int) -> str:
        """The message of an error reply that has no ``error_message``."""
        if status == 401:
            return "Invalid API key (fake)."
        try:
            phrase = http.HTTPStatus(status).phrase
        except ValueError:
            phrase = "Error"
        return f"{phrase} (fake {self.provider})."

    def _error(
        self, status: int, message: str | None = None, error_type: str | None = None
    ) -> Response:
        payload = self._error_payload(status, message or self._error_message(status), error_type)
        return Response.json(payload, status=status)

    # -- ASGI ---------------------------------------------------------------------------

    async def _asgi(
        self, scope: Scope, receive: ASGIReceiveCallable, send: ASGISendCallable
    ) -> None:
        if scope["type"] == "lifespan":
            while True:
                message = await receive()
                if message["type"] == "lifespan.startup":
                    await send({"type": "lifespan.startup.complete"})
                elif message["type"] == "lifespan.shutdown":
                    await send({"type": "lifespan.shutdown.complete"})
                    return
        if scope["type"] == "http":
            await self._http(scope, receive, send)

    async def _http(
        self, scope: HTTPScope, receive: ASGIReceiveCallable, send: ASGISendCallable
    ) -> None:
        body = bytearray()
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            if message["type"] == "http.request":
                body += message.get("body", b"")
                if not message.get("more_body", False):
                    break
        interrupt = asyncio.Event()
        self._interrupts.add(interrupt)
        watcher = asyncio.create_task(self._watch_disconnect(receive, interrupt))
        try:
            timing, response = self._dispatch(scope, bytes(body))
            held = timing.held
            held_after = timing.held_after if response.stream else 0  # a body comes whole
            if held is not None and not held_after and await self._held(interrupt, held):
                return
            if timing.delay > 0 and await self._interrupted(interrupt, timing.delay):
                return
            chunk_delay = timing.chunk_delay
            headers = [(b"content-type", response.content_type.encode("latin-1"))]
            if response.stream:
                headers.append((b"cache-control", b"no-cache"))
            else:
                length = sum(len(chunk) for chunk in response.chunks)
                headers.append((b"content-length", str(length).encode("ascii")))
            headers += [
                (k.encode("latin-1"), v.encode("latin-1")) for k, v in response.headers.items()
            ]
            await send(
                {"type": "http.response.start", "status": response.status, "headers": headers}
            )
            if not response.stream:
                await send(
                    {
                        "type": "http.response.body",
                        "body": b"".join(response.chunks),
                        "more_body": False,
                    }
                )
                return
            for index, chunk in enumerate(response.chunks):
                if index and chunk_delay > 0 and await self._interrupted(interrupt, chunk_delay):
                    return
                if index and index == held_after and held and await self._held(interrupt, held):
                    return
                await send({"type": "http.response.body", "body": chunk, "more_body": True})
            if chunk_delay > 0 and await self._interrupted(interrupt, chunk_delay):
                return
            await send({"type": "http.response.body", "body": b"", "more_body": False})
        finally:
            self._interrupts.discard(interrupt)
            watcher.cancel()
            await asyncio.gather(watcher, return_exceptions=True)

    @staticmethod
    async def _watch_disconnect(receive: ASGIReceiveCallable, interrupt: asyncio.Event) -> None:
        while (await receive())["type"] != "http.disconnect":
            pass
        interrupt.set()

    @staticmethod
    async def _interrupted(interrupt: asyncio.Event, seconds: float) -> bool:
        """Wait ``seconds``; true when the client left (or the fake stops) meanwhile."""
        try:
            await asyncio.wait_for(interrupt.wait(), timeout=seconds)
        except TimeoutError:
            return False
        return True

    @classmethod
    async def _held(cls, interrupt: asyncio.Event, held: threading.Event) -> bool:
        """Wait until the test sets ``held``; true when the client left (or the fake stops)
        meanwhile."""
        while not held.is_set():
            if await cls._interrupted(interrupt, 0.02):
                return True
        return False

    def _dispatch(self, scope: HTTPScope, raw_body: bytes) -> tuple[Reply, Response]:
        """The request recorded, and the reply it takes (for its timing) with its response."""
        method = scope["method"].upper()
        path = scope["path"]
        if path.startswith(_INTERNAL_PREFIX):
            return _AT_ONCE, self._internal(path)
        query_string = scope["query_string"].decode("latin-1")
        query = dict(urllib.parse.parse_qsl(query_string, keep_blank_values=True)[::-1])
        headers: dict[str, str] = {}
        for name, value in scope["headers"]:
            key, text = name.decode("latin-1").lower(), value.decode("latin-1")
            headers[key] = f"{headers[key]}, {text}" if key in headers else text
        body: Any = None
        form: dict[str, str] = {}
        invalid_json = False
        content_type = headers.get("content-type", "")
        if raw_body and "application/x-www-form-urlencoded" in content_type:
            form = dict(urllib.parse.parse_qsl(raw_body.decode("utf-8", "replace"))[::-1])
        elif raw_body:
            try:
                body = json.loads(raw_body)
            except ValueError:
                invalid_json = True
        route = self._route(method, path, body)
        record = RecordedRequest(
            method=method,
            path=path,
            query=query,
            headers=headers,
            body=body,
            raw_body=raw_body,
            endpoint=route[0] if route else None,
            api_key=self._api_key(headers, query),
            form=form,
            client_port=client[1] if (client := scope.get("client")) else None,
        )
        with self._lock:
            self._requests.append(record)
        if route is None:
            return _AT_ONCE, self._error(
                404, f"No route for {method} {path} (fake {self.provider})."
            )
        endpoint, handler = route
        if self.requires_key and not (
            record.api_key and (self.valid_keys is None or record.api_key in self.valid_keys)
        ):
            return _AT_ONCE, self._error(401)
        if invalid_json:
            return _AT_ONCE, self._error(400, "The request body is not valid JSON.")
        reply = self._next_reply(endpoint, record)
        if reply.status >= 400:
            response = self._error(reply.status, reply.error_message, reply.error_type)
        else:
            try:
                response = handler(record, reply)
            except BadRequest as error:
                response = self._error(400, str(error))
            except Exception as error:
                logger.exception("the fake %s failed on %s %s", self.provider, method, path)
                response = self._error(500, f"The fake {self.provider} failed: {error!r}")
            if reply.status != 200:
                response.status = reply.status
        response.headers.update(reply.headers)
        return reply, response

    def _internal(self, path: str) -> Response:
        name = path.removeprefix(_INTERNAL_PREFIX)
        if name == "health":
            return Response.json({"ok": True, "provider": self.provider})
        if name.startswith("files/"):
            with self._lock:
                found = self._files.get(name.removeprefix("files/"))
            if found is not None:
                return Response(chunks=[found[1]], content_type=found[0])
        return Response.json({"error": "not found"}, status=404)
