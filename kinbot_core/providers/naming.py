"""Providers' names (valid, default, taken) and the error of a failed connection test."""

from __future__ import annotations

import re

from kinbot_core.providers.errors import ProviderConfigError, ProviderError
from kinbot_core.providers.interfaces import ProviderType
from kinbot_core.providers.types import ConnectionReport

#: A letter or digit (of any script: "Modèles locaux"), then letters, digits, spaces, dots,
#: dashes or underscores; never "/", which separates a provider from its model.
_NAME = re.compile(r"^[^\W_][\w .-]{0,63}$")


def default_name(provider_type: ProviderType) -> str:
    """The name a provider of this type gets when the person gives none: the type's optional
    ``default_name``, else its label up to any parenthesis, kept to what a name may hold."""
    given = getattr(provider_type, "default_name", None)
    if isinstance(given, str) and _NAME.match(given.strip()):
        return given.strip()
    base = provider_type.label.split("(")[0]
    cleaned = " ".join(re.sub(r"[^\w .-]", " ", base).split())[:64].strip(" ._-")
    return cleaned if _NAME.match(cleaned) else "Provider"


def valid_name(name: str) -> str:
    """``name`` stripped, or ``ProviderConfigError`` (``provider_name_invalid``)."""
    name = name.strip()
    if not _NAME.match(name):
        raise ProviderConfigError(
            "A provider name is 1 to 64 letters, digits, spaces, dots, dashes or underscores "
            "(no '/': it separates the provider from the model).",
            code="provider_name_invalid",
        )
    return name


def test_failed(report: ConnectionReport) -> ProviderConfigError:
    """The error of a configuration whose connection test failed: why (the failure's code)
    and the provider's own words (``detail``), as the report has them."""
    return ProviderConfigError(
        report.message or "The connection test failed.",
        code="provider_test_failed",
        params={**report.params, "failure": report.code or ProviderError.code},
    )


def name_taken(name: str) -> ProviderConfigError:
    """The error of a name another provider has."""
    return ProviderConfigError(
        f"A provider is already named {name!r}.", code="provider_name_taken", params={"name": name}
    )
