"""The Vault: secrets encrypted at rest, read by Kins through ``get_secret`` only, masked
wherever else they could appear (replies, stored tool results, logs)."""

from kinbot_core.vault.masking import LogScrubber, Masker, StreamMasker, placeholder
from kinbot_core.vault.redaction import Redacted, RedactionError
from kinbot_core.vault.service import VaultService
from kinbot_core.vault.views import (
    SecretKeyTaken,
    SecretNotFound,
    SecretUnreadable,
    SecretView,
    VaultError,
)

__all__ = [
    "LogScrubber",
    "Masker",
    "Redacted",
    "RedactionError",
    "SecretKeyTaken",
    "SecretNotFound",
    "SecretUnreadable",
    "SecretView",
    "StreamMasker",
    "VaultError",
    "VaultService",
    "placeholder",
]
