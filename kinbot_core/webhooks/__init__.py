"""Inbound webhooks: secret URLs whose requests become messages in a Kin's queue
(docs/webhooks.md). The HTTP side is ``kinbot_web/blueprints/hooks.py`` (the requests) and
``kinbot_web/blueprints/webhooks.py`` (their administration)."""

from kinbot_core.webhooks.rendering import render_form, render_json, render_text
from kinbot_core.webhooks.service import (
    InboundWebhook,
    IssuedToken,
    WebhookError,
    WebhookGone,
    WebhookNotFound,
    WebhookService,
    WebhookView,
)
from kinbot_core.webhooks.signature import (
    SIGNATURE_HEADER,
    TIMESTAMP_HEADER,
    SignatureRefused,
    check_signature,
    signature_of,
)

__all__ = [
    "SIGNATURE_HEADER",
    "TIMESTAMP_HEADER",
    "InboundWebhook",
    "IssuedToken",
    "SignatureRefused",
    "WebhookError",
    "WebhookGone",
    "WebhookNotFound",
    "WebhookService",
    "WebhookView",
    "check_signature",
    "render_form",
    "render_json",
    "render_text",
    "signature_of",
]
