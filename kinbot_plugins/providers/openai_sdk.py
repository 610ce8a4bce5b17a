"""The ``openai`` SDK and its HTTP library, imported when first used: importing them costs
about half a second of CPU, which every start of ``kinbot`` would pay even where no
OpenAI-style provider is set up."""

from __future__ import annotations

from types import ModuleType


def sdk() -> ModuleType:
    """The ``openai`` module."""
    import openai

    return openai


def httpx2() -> ModuleType:
    """The SDK's HTTP library (imported with it)."""
    import httpx2

    return httpx2
