"""Fake provider servers on 127.0.0.1 that speak each provider's real HTTP wire protocol.

The official SDK clients are pointed at them (``base_url``) and run their real code paths,
streaming and tool calls included. Test support, not product code::

    with FakeAnthropic() as fake:            # or fake = FakeAnthropic().start(); fake.stop()
        fake.enqueue(Reply(text="Hi!", tool_calls=[("search", {"q": "x"})]))
        client = AsyncAnthropic(api_key="k", base_url=fake.base_url, max_retries=0)
        ...
        assert fake.requests[0].body["model"] == "claude-haiku-4-5"

Each fake runs hypercorn in a background thread with its own event loop, so it works from
sync code, any async test and benchmarks; browser tests running KinBot in another process
give it ``fake.base_url``. They keep idle connections open as long as a real server does
(``loopback_config``, also the Telegram fake's), longer than their clients do.

Base URLs, exactly as each SDK wants them:

- ``AsyncAnthropic(api_key=..., base_url=fake.base_url)``
- ``AsyncOpenAI(api_key=..., base_url=f"{fake.base_url}/v1")`` (and OpenAI-compatible ones)
- ``genai.Client(api_key=..., http_options=types.HttpOptions(base_url=fake.base_url))``;
  ``vertexai=True`` as well for ``generate_images``
- ``voyageai.AsyncClient(api_key=..., base_url=f"{fake.base_url}/v1")``
- Brave: ``GET {fake.base_url}/res/v1/web/search``; SearXNG: ``GET {fake.base_url}/search``

Scripting: ``fake.enqueue(reply, ..., endpoint=None)`` queues replies FIFO *per endpoint*
(``None`` is the fake's main endpoint: messages, chat, generate, embeddings or search), so
an embeddings call never eats a scripted chat reply. With nothing queued, ``fake.responder``
(a function of the ``RecordedRequest`` returning a ``Reply`` or ``None``) is asked, then
``fake.default_reply()`` (text ``"Hello from the fake <provider>."``) is used.
``fake.requests`` lists every ``RecordedRequest``; ``fake.pending()`` counts queued replies;
``fake.reset()`` clears queues, records and the responder. ``fake.valid_keys`` (``None``:
any non-empty key) decides which keys pass; another key gets a 401 in the provider's error
format. ``fake.models`` is the list the models endpoint returns.

Embedding vectors come from ``fake_embedding(text, dimension)``: deterministic, the same in
every fake, and closer for texts that share words.
"""

from tests.support.fakes._data import (
    PNG_SIGNATURE,
    default_search_results,
    fake_embedding,
    png_image,
)
from tests.support.fakes._reply import Reply, SearchResult
from tests.support.fakes._server import FakeServer, RecordedRequest, loopback_config
from tests.support.fakes.anthropic_fake import FakeAnthropic
from tests.support.fakes.gemini_fake import FakeGemini
from tests.support.fakes.openai_fake import FakeOpenAI
from tests.support.fakes.search_fakes import FakeBrave, FakeSearxng
from tests.support.fakes.voyage_fake import FakeVoyage

__all__ = [
    "PNG_SIGNATURE",
    "FakeAnthropic",
    "FakeBrave",
    "FakeGemini",
    "FakeOpenAI",
    "FakeSearxng",
    "FakeServer",
    "FakeVoyage",
    "RecordedRequest",
    "Reply",
    "SearchResult",
    "default_search_results",
    "fake_embedding",
    "loopback_config",
    "png_image",
]
