"""What an OpenAI-compatible server says of a model's context window and tools, in its own API.

The OpenAI API has no field for a model's context window, so each server says it its own way
(field names checked against each project's documentation or source):

- vLLM: ``max_model_len`` on each entry of ``GET /v1/models`` (its ``ModelCard``).
- OpenRouter: ``context_length`` on each entry of its models list (``GET /api/v1/models``,
  the base URL's ``/models``): a cloud provider's metadata, so the source is ``"provider"``.
- llama.cpp's ``llama-server``: ``GET /props``, ``default_generation_settings.n_ctx``: the
  context of one slot (``-c`` shared among the ``--parallel`` slots), the window a request has.
- Ollama: ``POST /api/show`` with ``{"model": ...}``: ``parameters`` (text, one
  ``name value`` per line: ``num_ctx 8192`` when the model's Modelfile sets it),
  ``model_info["<general.architecture>.context_length"]`` (the most the model can take) and
  ``capabilities`` (``"tools"`` when the model can call tools). Without ``num_ctx``, Ollama
  runs the model with its server default (``OLLAMA_CONTEXT_LENGTH``; 4k tokens on machines
  under 24 GiB of VRAM, per its documentation), which its API does not report: KinBot then
  assumes ``OLLAMA_DEFAULT_WINDOW``, never more than the model's maximum.
- LM Studio: ``GET /api/v0/models/{model}``: ``loaded_context_length`` once the model is
  loaded, and ``max_context_length`` (the model's maximum). A model not loaded yet is loaded
  on the first request with LM Studio's default length, which the API does not report:
  KinBot assumes ``UNLOADED_WINDOW`` until then, never more than the model's maximum.
- llama-cpp-python's server says nothing: the window is set by hand (the provider's
  "context window" field).

llama.cpp's server also counts tokens as its model does: ``POST /tokenize`` with
``{"content": text}`` answers ``{"tokens": [...]}`` (``count_tokens``; other servers answer
404 or another shape: ``None``).

The endpoints are tried in that order, from the base URL (``.../v1``) and its root; a server
that answers one is asked there first next time. The first endpoint that cannot be reached
at all raises ``ProviderUnavailable`` (the platform falls back); a 404 or a body of another
shape only means "not this kind of server".
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from typing import Any

import httpx

from kinbot_core.providers import ContextWindow, ProviderTimeout, ProviderUnavailable

#: What Ollama runs a model with when nothing sets ``num_ctx`` (its documented default on
#: machines under 24 GiB of VRAM; bigger machines get more, which is then merely unused).
OLLAMA_DEFAULT_WINDOW = 4096
#: Time limit of one metadata request (seconds): generous, for a local server on small
#: hardware answers late while its CPU generates for another request (the chat calls' own
#: limits are longer still).
PROBE_TIMEOUT = 15.0
#: What KinBot assumes of an LM Studio model not loaded yet (a small length errs on the side
#: of requests that fit).
UNLOADED_WINDOW = 4096
_NUM_CTX = re.compile(r"^\s*num_ctx\s+(\d+)\s*$", re.MULTILINE)

Probe = Callable[[httpx.AsyncClient, str], Awaitable[ContextWindow | None]]


def _positive(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None


def _listed_window(entry: dict[str, Any]) -> ContextWindow | None:
    """The window of one models-list entry: vLLM's ``max_model_len``, OpenRouter's
    ``context_length``."""
    if (tokens := _positive(entry.get("max_model_len"))) is not None:
        return ContextWindow(tokens, "server")
    if (tokens := _positive(entry.get("context_length"))) is not None:
        return ContextWindow(tokens, "provider")
    return None


class ServerMetadata:
    """Asks one OpenAI-compatible server about its models (one per configured provider)."""

    def __init__(self, base_url: str, api_key: str | None, label: str) -> None:
        self._base = base_url.rstrip("/")
        self._root = self._base.removesuffix("/v1")
        # The same credentials as the chat calls (``make_client``'s placeholder without a key).
        self._headers = {"Authorization": f"Bearer {api_key or 'not-needed'}"}
        self._label = label
        #: Per model, whether the server says it can call tools (Ollama's capabilities).
        self._tools: dict[str, bool] = {}
        self._probes: list[Probe] = [
            self._from_models,
            self._from_llama_cpp,
            self._from_ollama,
            self._from_lm_studio,
        ]

    def supports_tools(self, model: str) -> bool:
        """False only when the server said ``model`` cannot call tools (Ollama lists a
        model's capabilities; known once its window or its capabilities were asked for)."""
        return self._tools.get(model, True)

    async def context_window(self, model: str) -> ContextWindow | None:
        """The window the server runs ``model`` with, or ``None`` when it does not say."""
        async with httpx.AsyncClient(timeout=PROBE_TIMEOUT, headers=self._headers) as http:
            for index, probe in enumerate(list(self._probes)):
                try:
                    found = await probe(http, model)
                except httpx.TimeoutException:
                    raise ProviderTimeout(f"{self._label} did not answer in time.") from None
                except httpx.TransportError:
                    raise ProviderUnavailable(f"{self._label} cannot be reached.") from None
                if found is not None:
                    if index:  # this server's way first next time
                        self._probes.insert(0, self._probes.pop(index))
                    return found
        return None

    async def learn_capabilities(self, model: str) -> None:
        """Ask what ``model`` can do (Ollama's ``capabilities``, for ``supports_tools``) when
        its window came from elsewhere (an administrator) and the server was not asked.
        Network failures raise as ``context_window``'s do; another server's 404 says nothing."""
        async with httpx.AsyncClient(timeout=PROBE_TIMEOUT, headers=self._headers) as http:
            try:
                await self._from_ollama(http, model)
            except httpx.TimeoutException:
                raise ProviderTimeout(f"{self._label} did not answer in time.") from None
            except httpx.TransportError:
                raise ProviderUnavailable(f"{self._label} cannot be reached.") from None

    async def count_tokens(self, model: str, text: str) -> int | None:
        """How many tokens the server's tokenizer makes of ``text`` (llama.cpp's
        ``/tokenize``; ``model`` routes the request on a server with several), or ``None``
        when it does not say. Network failures raise as ``context_window``'s do."""
        body = {"content": text, "model": model}
        try:
            async with httpx.AsyncClient(timeout=PROBE_TIMEOUT, headers=self._headers) as http:
                counted = await self._json(await http.post(f"{self._root}/tokenize", json=body))
        except httpx.TimeoutException:
            raise ProviderTimeout(f"{self._label} did not answer in time.") from None
        except httpx.TransportError:
            raise ProviderUnavailable(f"{self._label} cannot be reached.") from None
        tokens = counted.get("tokens") if isinstance(counted, dict) else None
        return len(tokens) if isinstance(tokens, list) else None

    async def listed_windows(self) -> dict[str, int]:
        """The windows the models list gives (vLLM's, OpenRouter's), by model; empty when
        it gives none or cannot be read."""
        try:
            async with httpx.AsyncClient(timeout=PROBE_TIMEOUT, headers=self._headers) as http:
                listed = await self._json(await http.get(f"{self._base}/models"))
        except httpx.HTTPError:
            return {}
        entries = listed.get("data") if isinstance(listed, dict) else None
        windows: dict[str, int] = {}
        for entry in entries if isinstance(entries, list) else ():
            window = _listed_window(entry) if isinstance(entry, dict) else None
            if window is not None and isinstance(entry.get("id"), str):
                windows[entry["id"]] = window.tokens
        return windows

    async def _json(self, response: httpx.Response) -> Any:
        if response.status_code != 200:
            return None
        try:
            return response.json()
        except ValueError:
            return None

    async def _from_models(self, http: httpx.AsyncClient, model: str) -> ContextWindow | None:
        listed = await self._json(await http.get(f"{self._base}/models"))
        entries = listed.get("data") if isinstance(listed, dict) else None
        for entry in entries if isinstance(entries, list) else ():
            if isinstance(entry, dict) and entry.get("id") == model:
                return _listed_window(entry)
        return None

    async def _from_llama_cpp(self, http: httpx.AsyncClient, model: str) -> ContextWindow | None:
        props = await self._json(await http.get(f"{self._root}/props"))
        settings = props.get("default_generation_settings") if isinstance(props, dict) else None
        if isinstance(settings, dict) and (tokens := _positive(settings.get("n_ctx"))):
            return ContextWindow(tokens, "server")
        return None

    async def _from_ollama(self, http: httpx.AsyncClient, model: str) -> ContextWindow | None:
        shown = await self._json(await http.post(f"{self._root}/api/show", json={"model": model}))
        if not isinstance(shown, dict) or not isinstance(shown.get("model_info"), dict):
            return None
        capabilities = shown.get("capabilities")
        if isinstance(capabilities, list):
            self._tools[model] = "tools" in capabilities
        info: dict[str, Any] = shown["model_info"]
        architecture = info.get("general.architecture")
        maximum = _positive(info.get(f"{architecture}.context_length"))
        parameters = shown.get("parameters")
        set_in_model = _NUM_CTX.search(parameters) if isinstance(parameters, str) else None
        if set_in_model is not None:
            return ContextWindow(int(set_in_model[1]), "server")
        return ContextWindow(min(OLLAMA_DEFAULT_WINDOW, maximum or OLLAMA_DEFAULT_WINDOW), "server")

    async def _from_lm_studio(self, http: httpx.AsyncClient, model: str) -> ContextWindow | None:
        found = await self._json(await http.get(f"{self._root}/api/v0/models/{model}"))
        if not isinstance(found, dict):
            return None
        loaded = _positive(found.get("loaded_context_length"))
        if loaded is not None:
            return ContextWindow(loaded, "server")
        maximum = _positive(found.get("max_context_length"))
        return ContextWindow(min(UNLOADED_WINDOW, maximum), "server") if maximum else None
