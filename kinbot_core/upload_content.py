"""What an uploaded file is, judged by its content, and the text in it, read within bounds.

PDFs and ZIP archives (Word, Excel, PowerPoint and OpenDocument files) are parsed by
pure-Python libraries that a hostile file can keep busy for minutes or make allocate
gigabytes, so ``kinbot_core.uploads`` has them read by this module run as a separate
process (``python -I upload_content.py``, the file name and :class:`ReadLimits` as a JSON
line then the file's bytes on stdin, the outcome as JSON on stdout), with a memory limit it
sets itself and a time limit after which it is killed. For that, this module imports
nothing of KinBot but its sibling ``office_text`` (by its path when run as a script): only
the standard library, Pillow, pypdf, python-docx, openpyxl, odfpy and python-pptx.
"""

from __future__ import annotations

import importlib
import io
import json
import math
import os
import re
import sys
import zipfile
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any

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
    ".xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
    ".pptx": "application/vnd.openxmlformats-officedocument.presentationml.presentation",
    ".odt": "application/vnd.oasis.opendocument.text",
    ".ods": "application/vnd.oasis.opendocument.spreadsheet",
    # Voice notes (a messaging channel's): kept as audio, not read.
    ".ogg": "audio/ogg",
    ".oga": "audio/ogg",
    ".mp3": "audio/mpeg",
}
IMAGE_TYPES = {"PNG": "image/png", "JPEG": "image/jpeg", "WEBP": "image/webp", "GIF": "image/gif"}
TEXT_TYPES = ("text/plain", "text/markdown", "text/csv")
DOCX = EXTENSIONS[".docx"]
XLSX = EXTENSIONS[".xlsx"]
PPTX = EXTENSIONS[".pptx"]
ODT = EXTENSIONS[".odt"]
ODS = EXTENSIONS[".ods"]
#: The member that tells each Office Open XML type.
_OOXML_PARTS = {"word/document.xml": DOCX, "xl/workbook.xml": XLSX, "ppt/presentation.xml": PPTX}
#: The ``office_text`` reader of each other office type.
_OFFICE_READERS = {XLSX: "xlsx_text", PPTX: "pptx_text", ODT: "odt_text", ODS: "ods_text"}
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
    XLSX: "a spreadsheet (.xlsx)",
    PPTX: "a presentation (.pptx)",
    ODT: "a text document (.odt)",
    ODS: "a spreadsheet (.ods)",
    "audio/ogg": "an audio recording",
    "audio/mpeg": "an audio recording",
    "executable": "a program",
    "archive": "a ZIP archive",
    "binary": "binary data",
}
ALLOWED = (
    "images (PNG, JPEG, WebP, GIF), PDFs, documents "
    "(.txt, .md, .csv, .docx, .odt, .xlsx, .ods, .pptx) and audio recordings (.ogg, .mp3)"
)
#: Contents parsed only in a separate process (PDFs, ZIP archives).
ISOLATED_MAGIC = (b"%PDF-", b"PK\x03\x04")
#: ZIP members unpacking to less than this are not held to the compression ratio limit.
RATIO_GRACE_BYTES = 1024 * 1024
_EXECUTABLE_MAGIC = (b"\x7fELF", b"MZ", b"\xfe\xed\xfa", b"\xcf\xfa\xed\xfe", b"\xca\xfe\xba\xbe")
_CONTROL = re.compile(r"[\x00-\x1f\x7f/\\]")
_CHUNK = 64 * 1024


class UploadError(Exception):
    """An upload or attachment that is refused: ``status`` and ``code`` for the API, and a
    message that says why."""

    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message


@dataclass(frozen=True)
class ReadLimits:
    """The bounds of reading an uploaded file (the ``upload_*`` settings)."""

    max_chars: int
    pdf_max_pages: int
    unpacked_max_bytes: int
    zip_max_ratio: float
    timeout_seconds: float
    max_memory_bytes: int


def clean_filename(name: str | None) -> str:
    """The file's own name, without folders or control characters."""
    base = (name or "").replace("\\", "/").rsplit("/", 1)[-1]
    base = _CONTROL.sub("", base).strip()
    if len(base) > 200:
        stem, dot, extension = base.rpartition(".")
        base = (stem[:190] + dot + extension) if dot else base[:200]
    return base or "file"


#: What ``sniff`` says of an image with more pixels than Pillow opens (a decompression bomb,
#: or a huge scan or panorama): refused as too large, not as something other than an image.
OVERSIZED_IMAGE = "image_too_large"


def _image_type(data: bytes) -> str:
    from PIL import Image

    try:
        with Image.open(io.BytesIO(data)) as image:
            image.verify()
            return IMAGE_TYPES.get(image.format or "", "binary")
    except Image.DecompressionBombError:
        return OVERSIZED_IMAGE
    except Exception:  # Pillow raises many kinds for a damaged or hostile image
        return "binary"


def sniff(data: bytes) -> str:
    """What ``data`` is, judging by its content: a MIME type of ``EXTENSIONS``, or
    ``executable``, ``archive``, ``binary`` or ``image_too_large`` (``OVERSIZED_IMAGE``)."""
    if data.startswith((b"\x89PNG\r\n\x1a\n", b"\xff\xd8\xff", b"GIF87a", b"GIF89a")) or (
        data[:4] == b"RIFF" and data[8:12] == b"WEBP"
    ):
        return _image_type(data)
    if data.startswith(b"%PDF-"):
        return "application/pdf"
    if data.startswith(b"OggS"):
        return "audio/ogg"
    if data.startswith(b"ID3") or (len(data) > 1 and data[0] == 0xFF and data[1] & 0xE0 == 0xE0):
        return "audio/mpeg"
    if data.startswith(b"PK\x03\x04"):
        try:
            return _archive_type(data)
        except (zipfile.BadZipFile, ValueError, EOFError, OSError):
            return "binary"
    if data.startswith(_EXECUTABLE_MAGIC):
        return "executable"
    if b"\x00" in data:
        return "binary"
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return "binary"
    return "executable" if data.startswith(b"#!") else "text/plain"


def _archive_type(data: bytes) -> str:
    """An office document's MIME type, from the parts of its ZIP archive (an OpenDocument
    names its type in its ``mimetype`` member), else ``archive``."""
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        names = set(archive.namelist())
        for part, mime_type in _OOXML_PARTS.items():
            if part in names:
                return mime_type
        if "mimetype" in names and "content.xml" in names:
            with archive.open("mimetype") as stream:
                declared = stream.read(100).decode("ascii", "replace").strip()
            if declared in (ODT, ODS):
                return declared
    return "archive"


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
    if found == OVERSIZED_IMAGE:
        from PIL import Image

        millions = 2 * (Image.MAX_IMAGE_PIXELS or 0) // 1_000_000
        raise UploadError(
            413,
            OVERSIZED_IMAGE,
            f"'{filename}' has too many pixels to be opened (about {millions} million at most): "
            "send a smaller copy of it.",
        )
    raise UploadError(
        415,
        "type_mismatch",
        f"'{filename}' is named as {TYPE_NAMES[expected]} but its content is "
        f"{TYPE_NAMES.get(found, 'something else')}: it was refused.",
    )


def inspect(filename: str, data: bytes, limits: ReadLimits) -> tuple[str, str | None]:
    """The checked MIME type of an upload and the text the model reads of it (``None`` for
    an image or an audio recording), cut at ``limits.max_chars``; ``UploadError`` for a
    file that is refused."""
    mime_type = checked_type(filename, data)
    if mime_type.startswith(("image/", "audio/")):
        return mime_type, None
    if mime_type == "application/pdf":
        text = _pdf_text(data, limits)
    elif mime_type == DOCX:
        check_unpacked_size(data, limits)
        text = _docx_text(data)
    elif mime_type in _OFFICE_READERS:
        check_unpacked_size(data, limits)
        text = _office(_OFFICE_READERS[mime_type])(data, limits.max_chars)
    else:
        text = data.decode("utf-8-sig")
    if len(text) > limits.max_chars:
        text = (
            text[: limits.max_chars]
            + f"\n[… cut: the file's text is longer than {limits.max_chars} characters]"
        )
    return mime_type, text


def _unpacked_too_large(message: str) -> UploadError:
    return UploadError(413, "unpacked_too_large", message)


def check_unpacked_size(data: bytes, limits: ReadLimits) -> None:
    """Refuse (413 ``unpacked_too_large``) a ZIP archive whose members declare more than
    ``limits.unpacked_max_bytes`` in all or a compression ratio above ``limits.zip_max_ratio``,
    then read every member under a hard cap, since declared sizes can lie."""
    cap = limits.unpacked_max_bytes
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        members = archive.infolist()
        if sum(member.file_size for member in members) > cap:
            raise _unpacked_too_large(f"This archive unpacks to more than {cap} bytes.")
        for member in members:
            ratio = member.file_size / max(member.compress_size, 1)
            if member.file_size > RATIO_GRACE_BYTES and ratio > limits.zip_max_ratio:
                raise _unpacked_too_large(
                    f"'{member.filename}' in this archive is compressed {ratio:.0f} times "
                    f"(at most {limits.zip_max_ratio:g} is accepted)."
                )
        total = 0
        for member in members:
            unpacked = 0
            with archive.open(member) as stream:
                while chunk := stream.read(_CHUNK):
                    unpacked += len(chunk)
                    total += len(chunk)
                    if unpacked > member.file_size or total > cap:
                        raise _unpacked_too_large(
                            f"'{member.filename}' in this archive unpacks to more than it declares."
                        )


def _pdf_text(data: bytes, limits: ReadLimits) -> str:
    from pypdf import PdfReader
    from pypdf.errors import LimitReachedError

    try:
        reader = PdfReader(io.BytesIO(data))
        if reader.is_encrypted and not reader.decrypt(""):
            raise UploadError(415, "unreadable", "This PDF is protected by a password.")
        pages: list[str] = []
        total = 0
        for number, page in enumerate(reader.pages):
            if number == limits.pdf_max_pages:
                pages.append(f"[… cut: only the first {number} pages were read]")
                break
            pages.append(page.extract_text() or "")
            total += len(pages[-1])
            if total > limits.max_chars:
                break
    except LimitReachedError as exc:
        raise UploadError(
            413, "too_complex", f"This PDF is beyond what can be read safely ({exc})."
        ) from None
    return "\n\n".join(page.strip() for page in pages).strip()


def _docx_text(data: bytes) -> str:
    import docx

    document = docx.Document(io.BytesIO(data))
    lines = [paragraph.text for paragraph in document.paragraphs]
    for table in document.tables:
        for row in table.rows:
            lines.append(" | ".join(cell.text for cell in row.cells))
    return "\n".join(lines).strip()


def _office(reader: str) -> Callable[[bytes, int], str]:
    """A reader of ``office_text``: the package's module, or the file next to this one when
    this module runs as a script (isolated mode: the package is not importable)."""
    if __name__ == "__main__":
        folder = os.path.dirname(os.path.abspath(__file__))
        if folder not in sys.path:
            sys.path.append(folder)  # last: it can shadow nothing installed
        module = importlib.import_module("office_text")
    else:
        module = importlib.import_module("kinbot_core.office_text")
    function: Callable[[bytes, int], str] = getattr(module, reader)
    return function


def _describe(exc: BaseException) -> str:
    text = " ".join(str(exc).split())[:300]
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def _out_of_memory(exc: BaseException) -> bool:
    """Whether ``exc`` says memory ran out: Python's ``MemoryError``, or libxml2's, which lxml
    (under python-docx) reports as a syntax error."""
    if isinstance(exc, MemoryError):
        return True
    etree: Any = sys.modules.get("lxml.etree")
    return (
        etree is not None
        and isinstance(exc, etree.XMLSyntaxError)
        and exc.code == etree.ErrorTypes.ERR_NO_MEMORY
    )


def read_outcome(filename: str, data: bytes, limits: ReadLimits) -> dict[str, Any]:
    """:func:`inspect` as a JSON-ready outcome: ``{"mime_type", "text"}`` or ``{"error":
    {"status", "code", "message"}}``. Any failure to parse the file is the file's fault
    (it is hostile or damaged), so every exception becomes a refusal."""
    try:
        mime_type, text = inspect(filename, data, limits)
    except UploadError as error:
        return {"error": {"status": error.status, "code": error.code, "message": error.message}}
    except Exception as exc:  # a parser's error on a damaged file, whatever its kind
        if _out_of_memory(exc):
            megabytes = limits.max_memory_bytes // (1024 * 1024)
            message = f"Reading this file needs more than {megabytes} MiB of memory."
            return {"error": {"status": 413, "code": "too_complex", "message": message}}
        kind = TYPE_NAMES.get(EXTENSIONS.get(os.path.splitext(filename)[1].lower(), ""), "file")
        message = (
            f"This {kind.removeprefix('a ').removeprefix('an ')} cannot be read ({_describe(exc)})."
        )
        return {"error": {"status": 415, "code": "unreadable", "message": message}}
    return {"mime_type": mime_type, "text": text}


def child_input(filename: str, data: bytes, limits: ReadLimits) -> bytes:
    """What the reading process is given on stdin."""
    header = json.dumps({"filename": filename, "limits": asdict(limits)})
    return header.encode() + b"\n" + data


def _confine(limits: ReadLimits) -> None:
    import resource

    sys.dont_write_bytecode = True
    cpu = math.ceil(limits.timeout_seconds) + 1  # the parent kills it first; this is a backstop
    for limit, value in (
        (resource.RLIMIT_AS, limits.max_memory_bytes),
        (resource.RLIMIT_CPU, cpu),
        (resource.RLIMIT_FSIZE, 0),
        (resource.RLIMIT_CORE, 0),
    ):
        hard = resource.getrlimit(limit)[1]
        if hard != resource.RLIM_INFINITY:
            value = min(value, hard)  # a limit set lower already (a container's) is kept
        resource.setrlimit(limit, (value, value))


def main() -> None:
    """The reading process: one file from stdin, its outcome on stdout."""
    header = json.loads(sys.stdin.buffer.readline())
    limits = ReadLimits(**header["limits"])
    _confine(limits)
    data = sys.stdin.buffer.read()
    outcome = read_outcome(str(header["filename"]), data, limits)
    sys.stdout.write(json.dumps(outcome))


if __name__ == "__main__":
    main()
