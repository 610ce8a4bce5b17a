"""Files users upload into a Kin's chat: checked by their content, stored under
``data_dir/uploads``, attached to a message, and given to the model (images as images,
PDFs and documents as their text)."""

from __future__ import annotations

import asyncio
import io
import json
import os
import re
import time
import uuid
import zipfile
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from PIL import Image, UnidentifiedImageError

from kinbot_core.config import Settings
from kinbot_core.db import Database
from kinbot_core.db.models import KinRecord, UploadRecord
from kinbot_core.providers.types import ImagePart

#: What may be uploaded, by file name extension: the MIME type its content must have.
EXTENSIONS = {
    ".png": "image/png",
    ".jpg": "image/jpeg",
    ".jpeg": "image/jpeg",
    ".webp": "image/webp",
    ".gif": "image/gif",
    ".pdf": "application/pdf",
    ".txt": "text/plain",
    ".md": "text/markdown",
    ".csv": "text/csv",
    ".docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
}
IMAGE_TYPES = {"PNG": "image/png", "JPEG": "image/jpeg", "WEBP": "image/webp", "GIF": "image/gif"}
TEXT_TYPES = ("text/plain", "text/markdown", "text/csv")
DOCX = EXTENSIONS[".docx"]
#: What people call each type, in error messages.
TYPE_NAMES = {
    "image/png": "a PNG image",
    "image/jpeg": "a JPEG image",
    "image/webp": "a WebP image",
    "image/gif": "a GIF image",
    "application/pdf": "a PDF",
    "text/plain": "text",
    "text/markdown": "text",
    "text/csv": "text",
    DOCX: "a Word document",
    "executable": "a program",
    "archive": "a ZIP archive",
    "binary": "binary data",
}
ALLOWED = "images (PNG, JPEG, WebP, GIF), PDFs and documents (.txt, .md, .csv, .docx)"
#: Files one message may carry.
MAX_ATTACHMENTS = 10
_EXECUTABLE_MAGIC = (b"\x7fELF", b"MZ", b"\xfe\xed\xfa", b"\xcf\xfa\xed\xfe", b"\xca\xfe\xba\xbe")
_CONTROL = re.compile(r"[\x00-\x1f\x7f/\\]")


class UploadError(Exception):
    """An upload or attachment that is refused: ``status`` and ``code`` for the API, and a
    message that says why."""

    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message


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


def clean_filename(name: str | None) -> str:
    """The file's own name, without folders or control characters."""
    base = (name or "").replace("\\", "/").rsplit("/", 1)[-1]
    base = _CONTROL.sub("", base).strip()
    if len(base) > 200:
        stem, dot, extension = base.rpartition(".")
        base = (stem[:190] + dot + extension) if dot else base[:200]
    return base or "file"


def sniff(data: bytes) -> str:
    """What ``data`` is, judging by its content: a MIME type of ``EXTENSIONS``, or
    ``executable``, ``archive`` or ``binary``."""
    if data.startswith((b"\x89PNG\r\n\x1a\n", b"\xff\xd8\xff", b"GIF87a", b"GIF89a")) or (
        data[:4] == b"RIFF" and data[8:12] == b"WEBP"
    ):
        try:
            with Image.open(io.BytesIO(data)) as image:
                image.verify()
                kind = IMAGE_TYPES.get(image.format or "")
        except (
            UnidentifiedImageError,
            OSError,
            SyntaxError,
            ValueError,
            Image.DecompressionBombError,
        ):
            return "binary"
        return kind or "binary"
    if data.startswith(b"%PDF-"):
        return "application/pdf"
    if data.startswith(b"PK\x03\x04"):
        try:
            with zipfile.ZipFile(io.BytesIO(data)) as archive:
                names = set(archive.namelist())
        except zipfile.BadZipFile:
            return "binary"
        return DOCX if "word/document.xml" in names else "archive"
    if data.startswith(_EXECUTABLE_MAGIC):
        return "executable"
    if b"\x00" in data:
        return "binary"
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return "binary"
    return "executable" if data.startswith(b"#!") else "text/plain"


def checked_type(filename: str, data: bytes) -> str:
    """The MIME type of an upload: its extension must be allowed and its content must be
    what the extension says. ``UploadError`` (415) otherwise."""
    extension = os.path.splitext(filename)[1].lower()
    expected = EXTENSIONS.get(extension)
    if expected is None:
        raise UploadError(
            415, "unsupported_type", f"'{filename}' cannot be uploaded: only {ALLOWED} can."
        )
    found = sniff(data)
    if found == expected or (expected in TEXT_TYPES and found == "text/plain"):
        return expected
    raise UploadError(
        415,
        "type_mismatch",
        f"'{filename}' is named as {TYPE_NAMES[expected]} but its content is "
        f"{TYPE_NAMES.get(found, 'something else')}: it was refused.",
    )


def extract_text(mime_type: str, data: bytes, max_chars: int) -> str | None:
    """The text the model reads for a PDF or a document (``None`` for an image), cut at
    ``max_chars``. ``UploadError`` (415) for a file that cannot be read."""
    if mime_type.startswith("image/"):
        return None
    if mime_type == "application/pdf":
        text = _pdf_text(data, max_chars)
    elif mime_type == DOCX:
        text = _docx_text(data)
    else:
        text = data.decode("utf-8-sig")
    if len(text) > max_chars:
        text = (
            text[:max_chars] + f"\n[… cut: the file's text is longer than {max_chars} characters]"
        )
    return text


def _pdf_text(data: bytes, max_chars: int) -> str:
    from pypdf import PdfReader
    from pypdf.errors import PdfReadError

    try:
        reader = PdfReader(io.BytesIO(data))
        if reader.is_encrypted and not reader.decrypt(""):
            raise UploadError(415, "unreadable", "This PDF is protected by a password.")
        pages: list[str] = []
        total = 0
        for page in reader.pages:
            pages.append(page.extract_text() or "")
            total += len(pages[-1])
            if total > max_chars:
                break
    except UploadError:
        raise
    except (PdfReadError, ValueError, KeyError, TypeError, OSError) as exc:
        raise UploadError(415, "unreadable", f"This PDF cannot be read ({exc}).") from None
    return "\n\n".join(page.strip() for page in pages).strip()


def _docx_text(data: bytes) -> str:
    import docx

    try:
        document = docx.Document(io.BytesIO(data))
    except Exception as exc:  # python-docx raises many kinds for a damaged file
        raise UploadError(
            415, "unreadable", f"This Word document cannot be read ({exc})."
        ) from None
    lines = [paragraph.text for paragraph in document.paragraphs]
    for table in document.tables:
        for row in table.rows:
            lines.append(" | ".join(cell.text for cell in row.cells))
    return "\n".join(lines).strip()


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
        mime_type = checked_type(name, data)
        text = await asyncio.to_thread(
            extract_text, mime_type, data, self._settings.upload_text_max_chars
        )
        kind = (
            "image"
            if mime_type.startswith("image/")
            else ("pdf" if mime_type == "application/pdf" else "document")
        )
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
            raise UploadError(404, "not_found", "No such upload.")
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
