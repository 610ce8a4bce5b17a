"""Files users upload into a Kin's chat: checked by their content, stored under
``data_dir/uploads``, attached to a message, and given to the model (images as images,
PDFs and documents as their text).

What a file is and its text come from ``kinbot_core.upload_content``: in a thread for images
and plain text, in a separate process for PDFs and ZIP archives (killed past
``upload_read_timeout_seconds``), so that no upload can stall the server or exhaust its
memory.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import sys
import time
import uuid
import weakref
from collections.abc import AsyncIterator, Iterable, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kinbot_core import upload_content
from kinbot_core.config import Settings
from kinbot_core.db import Database
from kinbot_core.db.models import KinRecord, UploadRecord
from kinbot_core.providers.types import ImagePart
from kinbot_core.upload_content import ReadLimits, UploadError, clean_filename

logger = logging.getLogger(__name__)

#: Files one message may carry.
MAX_ATTACHMENTS = 10
#: Files read in separate processes at once (each may use ``upload_read_max_memory_bytes``);
#: more uploads wait their turn.
READERS_AT_ONCE = 2
#: The environment of a reading process: nothing of the server's (secrets included).
_READER_ENV = {"PATH": os.defpath, "LANG": "C.UTF-8"}
_gates: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Semaphore] = (
    weakref.WeakKeyDictionary()
)


def read_limits(settings: Settings) -> ReadLimits:
    """The bounds of reading an upload, from the settings."""
    return ReadLimits(
        max_chars=settings.upload_text_max_chars,
        pdf_max_pages=settings.upload_pdf_max_pages,
        unpacked_max_bytes=settings.upload_unpacked_max_bytes,
        zip_max_ratio=settings.upload_zip_max_ratio,
        timeout_seconds=settings.upload_read_timeout_seconds,
        max_memory_bytes=settings.upload_read_max_memory_bytes,
    )


@asynccontextmanager
async def _reader_turn() -> AsyncIterator[None]:
    loop = asyncio.get_running_loop()
    gate = _gates.get(loop)
    if gate is None:
        gate = _gates[loop] = asyncio.Semaphore(READERS_AT_ONCE)
    async with gate:
        yield


async def read_isolated(filename: str, data: bytes, limits: ReadLimits) -> tuple[str, str | None]:
    """``upload_content.inspect`` run in a separate Python process (isolated mode, an empty
    environment, its own memory limit), killed past ``limits.timeout_seconds``: the checked
    MIME type and the text, or ``UploadError``."""
    async with _reader_turn():
        process = await asyncio.create_subprocess_exec(
            sys.executable,
            "-I",
            upload_content.__file__,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            env=_READER_ENV,
        )
        try:
            async with asyncio.timeout(limits.timeout_seconds):
                out, err = await process.communicate(
                    upload_content.child_input(filename, data, limits)
                )
        except TimeoutError:
            raise UploadError(
                422,
                "too_slow",
                f"Reading '{filename}' takes longer than {limits.timeout_seconds:g} seconds: "
                "it was refused.",
            ) from None
        finally:
            if process.returncode is None:
                process.kill()
                await process.wait()
    try:
        outcome = json.loads(out)
    except ValueError:
        logger.warning(
            "reading an upload failed (exit status %s): %s",
            process.returncode,
            err[-2000:].decode(errors="replace"),
        )
        raise UploadError(
            413, "too_complex", f"'{filename}' cannot be read within this server's limits."
        ) from None
    if "error" in outcome:
        error = outcome["error"]
        raise UploadError(int(error["status"]), str(error["code"]), str(error["message"]))
    return str(outcome["mime_type"]), outcome["text"]


async def inspect_upload(filename: str, data: bytes, limits: ReadLimits) -> tuple[str, str | None]:
    """The checked MIME type of an upload and its text for the model (``None`` for an
    image); ``UploadError`` for a file that is refused."""
    if data.startswith(upload_content.ISOLATED_MAGIC):
        return await read_isolated(filename, data, limits)
    return await asyncio.to_thread(upload_content.inspect, filename, data, limits)


def upload_kind(mime_type: str) -> str:
    """What an upload of ``mime_type`` is: ``image``, ``audio``, ``pdf`` or ``document``."""
    if mime_type.startswith("image/"):
        return "image"
    if mime_type.startswith("audio/"):
        return "audio"
    return "pdf" if mime_type == "application/pdf" else "document"


#: What a missing upload is answered (and one of a Kin its asker may not use).
NO_SUCH_UPLOAD = "No such upload."


@dataclass(frozen=True)
class UploadView:
    """An uploaded file as the API shows it."""

    id: str
    kin_id: str
    filename: str
    mime_type: str
    kind: str
    size: int
    created_at: float

    @classmethod
    def of(cls, row: UploadRecord) -> UploadView:
        return cls(
            id=row.id,
            kin_id=row.__data__["kin"],
            filename=row.filename,
            mime_type=row.mime_type,
            kind=row.kind,
            size=row.size,
            created_at=row.created_at,
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "kin_id": self.kin_id,
            "filename": self.filename,
            "mime_type": self.mime_type,
            "kind": self.kind,
            "size": self.size,
            "url": f"/api/uploads/{self.id}",
            "created_at": self.created_at,
        }

    def reference(self) -> dict[str, Any]:
        """What a message keeps of its attachment."""
        return {
            key: value
            for key, value in self.to_dict().items()
            if key in ("id", "filename", "mime_type", "kind", "size", "url")
        }


@dataclass(frozen=True)
class ModelAttachment:
    """An attachment as the model gets it: the image's bytes, or the document's text."""

    filename: str
    kind: str
    mime_type: str
    text: str | None = None
    image: bytes | None = None


def model_text(
    content: str,
    attachments: Iterable[Mapping[str, Any]],
    loaded: Mapping[str, ModelAttachment],
    *,
    vision: bool,
) -> tuple[str, list[ModelAttachment]]:
    """A user message's text with its documents' text appended, and the images to show
    (none when the model cannot see: a note says so instead)."""
    parts = [content]
    images: list[ModelAttachment] = []
    for reference in attachments:
        attachment = loaded.get(str(reference.get("id")))
        name = str(reference.get("filename", "file"))
        if attachment is None:
            parts.append(f"[Attached file {name}: no longer available]")
        elif attachment.kind == "audio":
            parts.append(f"[Attached audio recording {name}: it cannot be listened to here]")
        elif attachment.image is not None:
            if vision:
                parts.append(f"[Attached image: {name}]")
                images.append(attachment)
            else:
                parts.append(f"[Attached image {name}: this model cannot see images]")
        else:
            parts.append(f"[Attached file: {name}]\n{attachment.text or ''}\n[End of {name}]")
    return "\n\n".join(part for part in parts if part), images


class UploadStore:
    """Uploaded files: their bytes in ``data_dir/uploads``, their description and text in
    the database."""

    def __init__(self, db: Database, settings: Settings) -> None:
        self._db = db
        self._settings = settings
        self.directory = settings.data_dir / "uploads"

    def path(self, upload_id: str) -> Path:
        """Where the upload's bytes are."""
        return self.directory / upload_id

    async def save(
        self, kin_id: str, user_id: str | None, filename: str | None, data: bytes
    ) -> UploadView:
        """Check and store a file uploaded into the Kin's chat."""
        limit = self._settings.upload_max_bytes
        if len(data) > limit:
            raise UploadError(
                413,
                "upload_too_large",
                f"The file is larger than the upload limit of {limit} bytes.",
            )
        if not data:
            raise UploadError(400, "invalid_request", "The file is empty.")
        name = clean_filename(filename)
        mime_type, text = await inspect_upload(name, data, read_limits(self._settings))
        kind = upload_kind(mime_type)
        upload_id = uuid.uuid4().hex
        await asyncio.to_thread(self._write, upload_id, data)

        def insert() -> UploadRecord:
            if not KinRecord.select().where(KinRecord.id == kin_id).exists():
                raise UploadError(404, "not_found", "No such Kin.")
            return UploadRecord.create(
                id=upload_id,
                kin=kin_id,
                uploaded_by=user_id,
                filename=name,
                mime_type=mime_type,
                kind=kind,
                size=len(data),
                text=text,
                created_at=time.time(),
            )

        try:
            row = await self._db.write(insert)
        except BaseException:
            self.path(upload_id).unlink(missing_ok=True)
            raise
        return UploadView.of(row)

    async def ids_of(self, kin_id: str) -> list[str]:
        """The ids of the files uploaded into a Kin's chat."""
        return await self._db.read(
            lambda: [
                row.id
                for row in UploadRecord.select(UploadRecord.id).where(UploadRecord.kin == kin_id)
            ]
        )

    async def remove_files(self, upload_ids: Iterable[str]) -> None:
        """Delete the bytes of uploads whose rows are gone (their Kin was deleted)."""

        def unlink() -> None:
            for upload_id in upload_ids:
                self.path(upload_id).unlink(missing_ok=True)

        await asyncio.to_thread(unlink)

    def _write(self, upload_id: str, data: bytes) -> None:
        self.directory.mkdir(mode=0o700, parents=True, exist_ok=True)
        fd = os.open(self.path(upload_id), os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "wb") as file:
            file.write(data)

    async def get(self, upload_id: str) -> UploadView:
        """One upload, or ``UploadError`` (404)."""
        row = await self._db.read(lambda: UploadRecord.get_or_none(UploadRecord.id == upload_id))
        if row is None:
            raise UploadError(404, "not_found", NO_SUCH_UPLOAD)
        return UploadView.of(row)

    async def references(self, kin_id: str, upload_ids: list[str]) -> list[dict[str, Any]]:
        """The attachments of a message to the Kin: each id must be an upload into this
        Kin's chat. ``UploadError`` (400) otherwise."""
        if len(upload_ids) > MAX_ATTACHMENTS:
            raise UploadError(
                400, "invalid_request", f"A message carries {MAX_ATTACHMENTS} files at most."
            )
        unique = list(dict.fromkeys(upload_ids))
        rows = await self._db.read(
            lambda: {
                row.id: row
                for row in UploadRecord.select().where(
                    UploadRecord.id.in_(unique) & (UploadRecord.kin == kin_id)
                )
            }
        )
        missing = [upload_id for upload_id in unique if upload_id not in rows]
        if missing:
            raise UploadError(
                400, "invalid_attachment", f"No upload {missing[0]!r} was made in this Kin's chat."
            )
        return [UploadView.of(rows[upload_id]).reference() for upload_id in unique]

    async def for_model(self, upload_ids: Iterable[str]) -> dict[str, ModelAttachment]:
        """The attachments as the model gets them, by id (missing ones left out)."""
        wanted = list(dict.fromkeys(upload_ids))
        if not wanted:
            return {}
        rows = await self._db.read(
            lambda: list(UploadRecord.select().where(UploadRecord.id.in_(wanted)))
        )

        def load(row: UploadRecord) -> ModelAttachment | None:
            if row.kind != "image":
                return ModelAttachment(row.filename, row.kind, row.mime_type, text=row.text or "")
            try:
                image = self.path(row.id).read_bytes()
            except OSError:
                return None
            return ModelAttachment(row.filename, row.kind, row.mime_type, image=image)

        loaded = await asyncio.to_thread(lambda: {row.id: load(row) for row in rows})
        return {key: value for key, value in loaded.items() if value is not None}


def attachment_ids(attachments: Any) -> list[str]:
    """The upload ids a message's ``attachments`` (JSON text or list) refers to."""
    if isinstance(attachments, str):
        attachments = json.loads(attachments)
    return [
        str(item["id"]) for item in attachments or () if isinstance(item, dict) and "id" in item
    ]


def with_attachments(
    entry: dict[str, Any],
    references: Iterable[Mapping[str, Any]],
    loaded: Mapping[str, ModelAttachment],
    *,
    vision: bool,
) -> dict[str, Any]:
    """A provider-neutral user message dict with its attachments: the documents' text
    appended to ``content``, the images under ``images`` (``ImagePart``s) when the model
    can see them."""
    content, images = model_text(str(entry.get("content") or ""), references, loaded, vision=vision)
    attached = {**entry, "content": content}
    if images:
        attached["images"] = [ImagePart(image.image or b"", image.mime_type) for image in images]
    return attached
