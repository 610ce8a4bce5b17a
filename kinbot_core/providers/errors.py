"""Typed provider errors with messages a user can read. SDK exceptions are translated here.

Each error has a stable ``code`` the web interface words in the user's language (its class's,
or a more specific one given where it is raised) and the ``params`` of that sentence.
"""

from __future__ import annotations


class ProviderError(Exception):
    """Base of every provider failure. ``message`` is an English sentence for API clients and
    logs; ``code`` (the class's, unless a more specific one is given) and ``params`` are what
    the interface words."""

    code = "provider_error"
    #: Whether trying again later may work.
    transient = False

    def __init__(
        self,
        message: str,
        *,
        provider: str | None = None,
        detail: str | None = None,
        status: int | None = None,
        code: str | None = None,
        params: dict[str, str | int] | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        if code is not None:
            self.code = code
        #: The values the code's sentence names (a provider's name, a model).
        self.params: dict[str, str | int] = dict(params or {})
        self.provider = provider
        #: The provider's own words about the failure (its error body's message), if it
        #: sent any: unlike ``message``, it never names KinBot's configuration (a base URL).
        self.detail = detail or None
        #: The HTTP status the provider answered with, when it answered with an error.
        self.status = status


class RateLimited(ProviderError):
    code = "provider_rate_limited"
    transient = True

    def __init__(
        self,
        message: str,
        *,
        retry_after: float | None = None,
        provider: str | None = None,
        detail: str | None = None,
        status: int | None = None,
    ) -> None:
        super().__init__(message, provider=provider, detail=detail, status=status)
        self.retry_after = retry_after


class ProviderTimeout(ProviderError):
    code = "provider_timeout"
    transient = True


class ProviderUnavailable(ProviderError):
    code = "provider_unavailable"
    transient = True


class AuthenticationFailed(ProviderError):
    code = "provider_authentication_failed"


class MalformedResponse(ProviderError):
    code = "provider_malformed_response"


class BadRequest(ProviderError):
    code = "provider_bad_request"


class ProviderConfigError(ProviderError):
    """The configuration given for a provider is incomplete or invalid (a specific ``code``
    says how: ``provider_name_taken``, ``provider_field_required``…)."""

    code = "provider_config_invalid"


class ModelResolutionError(ProviderError):
    """A model string names no configured provider's model, or more than one."""

    code = "model_unresolved"


class ContextOverflowError(BadRequest):
    """The prompt does not fit the model's context window: the server refused it as too long
    (a 400 naming the context length), or ended the answer before its first word (a stream
    cut short, or stopped for length). ``window`` and ``needed`` (tokens) are what the server
    said, when it said; ``params`` carries them for the sentence the interface words.
    ``prompt_tokens`` is the server's count of the prompt alone, when its words tell it apart
    from the answer's room it adds in ``needed`` (llama.cpp's ``n_prompt_tokens``): what
    the model's tokenizer made of the prompt (``token_ratios`` learns from it)."""

    code = "context_overflow"

    def __init__(
        self,
        message: str,
        *,
        window: int | None = None,
        needed: int | None = None,
        provider: str | None = None,
        detail: str | None = None,
        status: int | None = None,
        prompt_tokens: int | None = None,
    ) -> None:
        params: dict[str, str | int] = {}
        if window:
            params["window"] = window
        if needed:
            params["needed"] = needed
        super().__init__(message, provider=provider, detail=detail, status=status, params=params)
        self.window = window or None
        self.needed = needed or None
        self.prompt_tokens = prompt_tokens or None


class ModelNotLoaded(BadRequest):
    """The server does not have the model ready: not pulled (Ollama), not loaded (LM Studio,
    a llama.cpp router)."""

    code = "model_not_loaded"


class ServerStarting(ProviderUnavailable):
    """The server is up but still loading its model (llama.cpp's 503 "Loading model"):
    retried as any transient failure."""

    code = "provider_starting"
