"""What the runtime and the API see of Kins and messages (views built from database rows),
and the errors of requests about them.

The turn's hot path reads rows with plain SQL (``KIN_COLUMNS``, ``MESSAGE_COLUMNS`` and
``from_row``): building a peewee query costs tens of times more CPU than running it.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from kinbot_core.db.models import KinRecord, MessageRecord

#: The columns ``KinView.from_row`` reads, in its order.
KIN_COLUMNS = (
    "id, name, role, avatar_path, character, expertise, model, tools, workspace, state, "
    "last_error, created_at, updated_at, memory_extraction_model, task_id, network_access, "
    "created_by_id, last_error_code, access, compacting_model"
)
#: The columns ``MessageView.from_row`` reads, in its order.
MESSAGE_COLUMNS = (
    "id, kin_id, role, source, sender_id, sender_name, content, tool_calls, tool_call_id, "
    "is_error, status, turn_of, created_at, kin_message_type, request_id, chain_depth, "
    "task_id, attachments, redaction_pending, meta, superseded"
)
#: A message's columns and its place in the conversation (``null``: not placed yet).
PLACED_COLUMNS = f"{MESSAGE_COLUMNS}, position"


class KinError(Exception):
    """A request about a Kin that cannot be done; the message says why in English, ``code``
    (the class's, unless a more specific one is given) and ``params`` for the interface."""

    code = "kin_invalid"
    #: The HTTP status the API answers it with.
    status = 400

    def __init__(
        self, message: str, *, code: str | None = None, params: dict[str, Any] | None = None
    ) -> None:
        super().__init__(message)
        self.message = message
        if code is not None:
            self.code = code
        self.params: dict[str, Any] = dict(params or {})


class KinNotFound(KinError):
    code = "not_found"
    status = 404


@dataclass(frozen=True)
class KinView:
    """A Kin as the API and the runtime see it."""

    id: str
    name: str
    role: str
    avatar: str | None
    character: str
    expertise: str
    model: str
    tools: tuple[str, ...]
    workspace: str
    state: str
    last_error: str | None
    created_at: float
    updated_at: float
    #: The model that extracts its memories (``None``: the platform's choice).
    memory_extraction_model: str | None = None
    #: For the hidden row an ephemeral sub-Kin runs as: its task (``None`` for a Kin).
    task_id: str | None = None
    #: Whether its own code may reach the network (through the egress proxy).
    network_access: bool = False
    #: The user who created it (``None`` once that account is deleted).
    created_by: str | None = None
    #: The code of ``last_error`` (``kinbot_core.kins.meta.ERROR_CODES``), for the UI.
    last_error_code: str | None = None
    #: Who may use it: ``everyone``, ``members`` or ``private`` (``kinbot_core.kins.access``).
    access: str = "everyone"
    #: The model that writes its compacting summaries (``None``: the platform's choice).
    compacting_model: str | None = None

    @classmethod
    def of(cls, row: KinRecord) -> KinView:
        return cls(
            id=row.id,
            name=row.name,
            role=row.role,
            avatar=row.avatar_path,
            character=row.character,
            expertise=row.expertise,
            model=row.model,
            tools=tuple(json.loads(row.tools)),
            workspace=row.workspace,
            state=row.state,
            last_error=row.last_error,
            created_at=row.created_at,
            updated_at=row.updated_at,
            memory_extraction_model=row.memory_extraction_model,
            task_id=row.task_id,
            network_access=bool(row.network_access),
            created_by=row.__data__.get("created_by"),
            last_error_code=row.__data__.get("last_error_code"),
            access=row.access,
            compacting_model=row.__data__.get("compacting_model"),
        )

    @classmethod
    def from_row(cls, row: Sequence[Any]) -> KinView:
        """From a row selected as ``KIN_COLUMNS`` (plain SQL, no model object built)."""
        (id_, name, role, avatar, character, expertise, model, tools, workspace, state,
         last_error, created_at, updated_at, extraction_model, task_id, network_access,
         created_by, last_error_code, access, compacting_model) = row  # fmt: skip
        return cls(
            id=id_,
            name=name,
            role=role,
            avatar=avatar,
            character=character,
            expertise=expertise,
            model=model,
            tools=tuple(json.loads(tools)),
            workspace=workspace,
            state=state,
            last_error=last_error,
            created_at=created_at,
            updated_at=updated_at,
            memory_extraction_model=extraction_model,
            task_id=task_id,
            network_access=bool(network_access),
            created_by=created_by,
            last_error_code=last_error_code,
            access=access,
            compacting_model=compacting_model,
        )

    def to_dict(self, queue_length: int = 0) -> dict[str, Any]:
        return {
            "id": self.id,
            "name": self.name,
            "role": self.role,
            "avatar_url": f"/api/kins/{self.id}/avatar" if self.avatar else None,
            "character": self.character,
            "expertise": self.expertise,
            "model": self.model,
            "memory_extraction_model": self.memory_extraction_model,
            "compacting_model": self.compacting_model,
            "tools": list(self.tools),
            "network_access": self.network_access,
            "access": self.access,
            "created_by": self.created_by,
            "workspace": self.workspace,
            "state": self.state,
            "last_error": self.last_error,
            "last_error_code": self.last_error_code,
            "queue_length": queue_length,
            "created_at": self.created_at,
            "updated_at": self.updated_at,
        }


@dataclass(frozen=True)
class MessageView:
    """A message of a Kin's session."""

    id: int
    kin_id: str
    role: str
    source: str
    sender_id: str | None
    sender_name: str | None
    content: str
    tool_calls: list[dict[str, Any]] | None
    tool_call_id: str | None
    is_error: bool
    status: str
    turn_of: int | None
    created_at: float
    #: For a message from another Kin: ``request``, ``inform`` or ``reply``.
    kin_message_type: str | None = None
    #: The request it opens or answers.
    request_id: str | None = None
    #: Inter-Kin exchanges that led to it.
    chain_depth: int | None = None
    #: The sub-Kin task it comes from or is about.
    task_id: str | None = None
    #: Files a user attached (``kinbot_core.uploads.UploadView.reference`` dicts), or ``None``.
    attachments: list[dict[str, Any]] | None = None
    #: Secrets detected in it are hidden (``[PENDING SECRET <n>]``), waiting for the Kin to
    #: store them in the Vault or a member to say they are not secrets.
    redaction_pending: bool = False
    #: Structured facts for the UI (``kinbot_core.kins.meta``): a task's result, a failed
    #: turn's error code, a stopped reply. The ``content`` stays what the model reads.
    meta: dict[str, Any] | None = None
    #: Replaced by a retry: still shown (dimmed), left out of the Kin's context.
    superseded: bool = False

    @classmethod
    def of(cls, row: MessageRecord) -> MessageView:
        return cls(
            id=row.id,
            kin_id=_kin_of(row),
            role=row.role,
            source=row.source,
            sender_id=row.sender_id,
            sender_name=row.sender_name,
            content=row.content,
            tool_calls=json.loads(row.tool_calls) if row.tool_calls else None,
            tool_call_id=row.tool_call_id,
            is_error=bool(row.is_error),
            status=row.status,
            turn_of=row.turn_of,
            created_at=row.created_at,
            kin_message_type=row.kin_message_type,
            request_id=row.request_id,
            chain_depth=row.chain_depth,
            task_id=row.task_id,
            attachments=json.loads(row.attachments) if row.attachments else None,
            redaction_pending=bool(row.redaction_pending),
            meta=json.loads(row.meta) if row.meta else None,
            superseded=bool(row.superseded),
        )

    @classmethod
    def from_row(cls, row: Sequence[Any]) -> MessageView:
        """From a row selected as ``MESSAGE_COLUMNS`` (plain SQL, no model object built)."""
        (id_, kin_id, role, source, sender_id, sender_name, content, tool_calls, tool_call_id,
         is_error, status, turn_of, created_at, kin_message_type, request_id, chain_depth,
         task_id, attachments, redaction_pending, meta, superseded) = row  # fmt: skip
        return cls(
            id=id_,
            kin_id=kin_id,
            role=role,
            source=source,
            sender_id=sender_id,
            sender_name=sender_name,
            content=content,
            tool_calls=json.loads(tool_calls) if tool_calls else None,
            tool_call_id=tool_call_id,
            is_error=bool(is_error),
            status=status,
            turn_of=turn_of,
            created_at=created_at,
            kin_message_type=kin_message_type,
            request_id=request_id,
            chain_depth=chain_depth,
            task_id=task_id,
            attachments=json.loads(attachments) if attachments else None,
            redaction_pending=bool(redaction_pending),
            meta=json.loads(meta) if meta else None,
            superseded=bool(superseded),
        )

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


def _kin_of(row: MessageRecord) -> str:
    """The Kin id a message row holds, without loading the Kin."""
    kin_id: str = row.__data__["kin"]
    return kin_id


@dataclass(frozen=True)
class TurnEnd:
    """How a turn ends: the status its starting message takes (done, failed or cancelled)
    and the Kin's state after it (``error``, ``error_code``: why it is in the error state)."""

    trigger_id: int
    status: str
    state: str
    error: str | None = None
    error_code: str | None = None
