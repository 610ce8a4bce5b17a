"""A fake Anthropic Messages API (``/v1/messages``, streaming and not, and ``/v1/models``)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from tests.support.fakes._reply import Reply, pieces
from tests.support.fakes._server import (
    BadRequest,
    FakeServer,
    Handler,
    RecordedRequest,
    Response,
    bearer_token,
)

_ERROR_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    402: "billing_error",
    403: "permission_error",
    404: "not_found_error",
    413: "request_too_large",
    429: "rate_limit_error",
    500: "api_error",
    504: "timeout_error",
    529: "overloaded_error",
}

_DISPLAY_NAMES = {
    "claude-opus-4-1-20250805": "Claude Opus 4.1",
    "claude-sonnet-4-5-20250929": "Claude Sonnet 4.5",
    "claude-sonnet-4-20250514": "Claude Sonnet 4",
    "claude-haiku-4-5": "Claude Haiku 4.5",
}


def _event(payload: dict[str, Any]) -> bytes:
    return f"event: {payload['type']}\ndata: {json.dumps(payload)}\n\n".encode()


class FakeAnthropic(FakeServer):
    """The Anthropic API on loopback.

    Point the SDK at it with ``AsyncAnthropic(api_key=..., base_url=fake.base_url)`` (no
    ``/v1``: the SDK adds it). Endpoints: ``"messages"`` (POST /v1/messages, the default),
    ``"count_tokens"`` (POST /v1/messages/count_tokens) and ``"models"`` (GET /v1/models and
    /v1/models/{id}). The key is read from ``x-api-key`` or ``Authorization: Bearer`` (the
    installed SDK sends the latter).
    """

    provider = "Anthropic"
    endpoints = ("messages", "count_tokens", "models")
    default_models = tuple(_DISPLAY_NAMES)

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        #: Per model, the ``max_input_tokens`` its Models API entry gives (none by default).
        self.max_input_tokens: dict[str, int] = {}

    def _route(self, method: str, path: str, body: Any) -> tuple[str, Handler] | None:
        if method == "POST" and path == "/v1/messages":
            return "messages", self._messages
        if method == "POST" and path == "/v1/messages/count_tokens":
            return "count_tokens", self._count_tokens
        if method == "GET" and path == "/v1/models":
            return "models", self._list_models
        if method == "GET" and path.startswith("/v1/models/"):
            return "models", self._get_model
        return None

    def _api_key(self, headers: Mapping[str, str], query: Mapping[str, str]) -> str | None:
        return headers.get("x-api-key") or bearer_token(headers)

    def _error_payload(self, status: int, message: str, error_type: str | None) -> Any:
        kind = error_type or _ERROR_TYPES.get(
            status, "api_error" if status >= 500 else "invalid_request_error"
        )
        return {
            "type": "error",
            "error": {"type": kind, "message": message},
            "request_id": self._next_id("req_fake_"),
        }

    def _error_message(self, status: int) -> str:
        if status == 401:
            return "invalid x-api-key"
        return super()._error_message(status)

    # -- handlers -----------------------------------------------------------------------

    def _messages(self, request: RecordedRequest, reply: Reply) -> Response:
        body = request.body
        if not isinstance(body, dict):
            raise BadRequest("The request body must be a JSON object.")
        for name in ("model", "messages", "max_tokens"):
            if name not in body:
                raise BadRequest(f"{name}: Field required")
        if not isinstance(body["messages"], list):
            raise BadRequest("messages: Input should be a valid list")
        model = str(body["model"])
        if body.get("stream"):
            return self._stream(model, reply)
        if reply.malformed:
            return Response.broken_json('{"id": "msg_broken", "type": "message", "content": [')
        return Response.json(self._message(model, reply))

    def _blocks(self, reply: Reply) -> list[dict[str, Any]]:
        blocks: list[dict[str, Any]] = []
        if reply.text or not reply.tool_calls:
            blocks.append({"type": "text", "text": reply.text, "citations": None})
        for name, arguments in reply.tool_calls:
            blocks.append(
                {
                    "type": "tool_use",
                    "id": self._next_id("toolu_fake_"),
                    "name": name,
                    "input": arguments,
                }
            )
        return blocks

    def _stop_reason(self, reply: Reply) -> str:
        return reply.stop_reason or ("tool_use" if reply.tool_calls else "end_turn")

    def _message(self, model: str, reply: Reply) -> dict[str, Any]:
        return {
            "id": self._next_id("msg_fake_"),
            "type": "message",
            "role": "assistant",
            "model": model,
            "content": self._blocks(reply),
            "stop_reason": self._stop_reason(reply),
            "stop_sequence": None,
            "usage": {"input_tokens": reply.usage[0], "output_tokens": reply.usage[1]},
        }

    def _stream(self, model: str, reply: Reply) -> Response:
        input_tokens, output_tokens = reply.usage
        start: dict[str, Any] = {
            "id": self._next_id("msg_fake_"),
            "type": "message",
            "role": "assistant",
            "model": model,
            "content": [],
            "stop_reason": None,
            "stop_sequence": None,
            "usage": {"input_tokens": input_tokens, "output_tokens": min(1, output_tokens)},
        }
        events = [_event({"type": "message_start", "message": start})]
        if reply.malformed:
            events.append(
                b'event: content_block_delta\ndata: {"type": "content_block_delta", "index": 0,\n\n'
            )
            return Response.sse(events)
        events.append(_event({"type": "ping"}))
        for index, block in enumerate(self._blocks(reply)):
            if block["type"] == "text":
                events.append(
                    _event(
                        {
                            "type": "content_block_start",
                            "index": index,
                            "content_block": {"type": "text", "text": "", "citations": None},
                        }
                    )
                )
                delta_kind, field, payload = "text_delta", "text", block["text"]
            else:
                opened = {"type": "tool_use", "id": block["id"], "name": block["name"], "input": {}}
                events.append(
                    _event({"type": "content_block_start", "index": index, "content_block": opened})
                )
                delta_kind, field, payload = (
                    "input_json_delta",
                    "partial_json",
                    json.dumps(block["input"]),
                )
            for piece in pieces(payload, reply.chunk_size):
                events.append(
                    _event(
                        {
                            "type": "content_block_delta",
                            "index": index,
                            "delta": {"type": delta_kind, field: piece},
                        }
                    )
                )
            events.append(_event({"type": "content_block_stop", "index": index}))
        events.append(
            _event(
                {
                    "type": "message_delta",
                    "delta": {"stop_reason": self._stop_reason(reply), "stop_sequence": None},
                    "usage": {"input_tokens": input_tokens, "output_tokens": output_tokens},
                }
            )
        )
        events.append(_event({"type": "message_stop"}))
        return Response.sse(events)

    def _count_tokens(self, request: RecordedRequest, reply: Reply) -> Response:
        if reply.malformed:
            return Response.broken_json('{"input_tokens": ')
        return Response.json({"input_tokens": reply.usage[0]})

    def _model_info(self, model_id: str) -> dict[str, Any]:
        info: dict[str, Any] = {
            "type": "model",
            "id": model_id,
            "display_name": _DISPLAY_NAMES.get(model_id, model_id),
            "created_at": "2025-05-14T00:00:00Z",
            "lifecycle": "active",
        }
        if model_id in self.max_input_tokens:
            info["max_input_tokens"] = self.max_input_tokens[model_id]
        return info

    def _list_models(self, request: RecordedRequest, reply: Reply) -> Response:
        if reply.malformed:
            return Response.broken_json('{"data": [')
        data = [self._model_info(model_id) for model_id in self.models]
        return Response.json(
            {
                "data": data,
                "has_more": False,
                "first_id": data[0]["id"] if data else None,
                "last_id": data[-1]["id"] if data else None,
            }
        )

    def _get_model(self, request: RecordedRequest, reply: Reply) -> Response:
        model_id = request.path.removeprefix("/v1/models/")
        if model_id not in self.models:
            return self._error(404, f"model: {model_id}")
        return Response.json(self._model_info(model_id))
