"""The JSON documents of a Kin file (format version 1) and their bounds.

Each document is checked with pydantic before anything is created: a wrong type, a missing
field, an over-long text or too many items refuse the whole file with the document's name.
Unknown fields are ignored, so that a later minor addition does not break older readers.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, ValidationError

from kinbot_core.kin_export.errors import KinArchiveError

MAX_MEMORIES = 20_000
MAX_CONTACTS = 2_000
MAX_CRONS = 200
MAX_CUSTOM_TOOLS = 100
MAX_LIST_ITEMS = 500

Text = Annotated[str, StringConstraints(max_length=20_000)]
Line = Annotated[str, StringConstraints(max_length=1_000)]
Timestamp = Annotated[float, Field(ge=0, le=1e11)]


class _Document(BaseModel):
    model_config = ConfigDict(extra="ignore", strict=False)


class KinDocument(_Document):
    """``kin.json``: who the Kin is."""

    name: Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=80)]
    role: Annotated[str, StringConstraints(max_length=200)] = ""
    character: Text = ""
    expertise: Text = ""
    model: Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=200)]
    memory_extraction_model: Annotated[str, StringConstraints(max_length=200)] | None = None
    compacting_model: Annotated[str, StringConstraints(max_length=200)] | None = None
    tools: list[Annotated[str, StringConstraints(pattern=r"^[A-Za-z0-9_-]{1,64}$")]] = Field(
        default_factory=list, max_length=200
    )
    #: Only some people could use it where it was exported.
    restricted: bool = False


class MemoryDocument(_Document):
    """One memory of ``memories.json``."""

    content: Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=2000)]
    category: Literal["fact", "preference", "decision", "knowledge"]
    subject: Annotated[str, StringConstraints(max_length=200)] = ""
    created_at: Timestamp | None = None
    updated_at: Timestamp | None = None


class ContactDocument(_Document):
    """One contact of ``contacts.json`` (without the user or Kin it was linked to there)."""

    name: Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=200)]
    type: Literal["human", "kin"]
    relation: Annotated[str, StringConstraints(max_length=500)] = ""
    notes: Annotated[str, StringConstraints(max_length=10_000)] = ""
    facts: list[Line] = Field(default_factory=list, max_length=MAX_LIST_ITEMS)
    preferences: list[Line] = Field(default_factory=list, max_length=MAX_LIST_ITEMS)
    created_at: Timestamp | None = None
    updated_at: Timestamp | None = None


class CronDocument(_Document):
    """One cron of ``crons.json`` (what it does and when; never its runs)."""

    name: Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=120)]
    schedule: Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=200)]
    timezone: Annotated[str, StringConstraints(max_length=100)] | None = None
    task_description: Annotated[
        str, StringConstraints(strip_whitespace=True, min_length=1, max_length=20_000)
    ]
    model: Annotated[str, StringConstraints(max_length=200)] | None = None
    #: Whether it was active where it was exported (it is imported paused anyway).
    active: bool = False


class CustomToolDocument(_Document):
    """One custom tool of ``custom_tools.json``; its script is the entry ``scripts/<script>``."""

    name: Annotated[str, StringConstraints(pattern=r"^[a-z][a-z0-9_]{1,62}$")]
    description: Annotated[
        str, StringConstraints(strip_whitespace=True, min_length=1, max_length=2000)
    ]
    parameters: dict[str, Any]
    #: Where the script lived in the workspace (where it is written again).
    path: Annotated[str, StringConstraints(min_length=1, max_length=500)]
    script: Annotated[int, Field(ge=0, le=999)]


class ManifestDocument(_Document):
    """``manifest.json``: what the file is and what it holds."""

    format: Literal["kinbot-kin"]
    version: int
    exported_at: Timestamp
    counts: dict[str, int] = Field(default_factory=dict)


M = TypeVar("M", bound=BaseModel)


def parse_one(model: type[M], entry: str, value: Any) -> M:
    """``value`` (the parsed JSON of ``entry``) as ``model``, or ``KinArchiveError``."""
    try:
        return model.model_validate(value)
    except ValidationError as exc:
        raise _content_invalid(entry, exc) from None


def parse_list(model: type[M], entry: str, value: Any, limit: int) -> list[M]:
    """``value`` (a JSON array of at most ``limit`` items, or absent) as ``model`` items."""
    if value is None:
        return []
    if not isinstance(value, list):
        raise KinArchiveError(
            f"The entry {entry!r} is not a list.",
            code="kin_archive_content_invalid",
            params={"entry": entry},
        )
    if len(value) > limit:
        raise KinArchiveError(
            f"The entry {entry!r} has more than {limit} items.",
            code="kin_archive_too_many",
            params={"entry": entry, "limit": limit},
        )
    return [parse_one(model, entry, item) for item in value]


def _content_invalid(entry: str, exc: ValidationError) -> KinArchiveError:
    first = exc.errors(include_url=False, include_input=False)[0]
    where = ".".join(str(part) for part in first["loc"])
    return KinArchiveError(
        f"The entry {entry!r} is not valid ({where}: {first['msg']}).",
        code="kin_archive_content_invalid",
        params={"entry": entry},
    )
