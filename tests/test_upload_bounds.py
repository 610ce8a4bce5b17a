"""Uploaded documents are read within bounds, in a separate process: a docx zip bomb is refused
from its declared sizes, a member lying about its size is read no further than it declares, a
document needing more memory than the reading process has is refused, a PDF beyond pypdf's
limits is refused, a long PDF is cut, and a PDF that would keep the reader busy for minutes is
killed at the time limit while the server goes on answering."""

from __future__ import annotations

import asyncio
import io
import os
import struct
import zipfile
import zlib
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import docx
import httpx
import pytest

from kinbot_core.db.models import UploadRecord
from kinbot_core.upload_content import ReadLimits, UploadError
from kinbot_core.uploads import read_isolated
from tests.support import server_fixtures
from tests.support.fakes import FakeOpenAI
from tests.support.kin_chat import make_kin, serve_with_openai
from tests.support.server import RunningServer

GIB = 1024**3
MIB = 1024**2
READ_TIMEOUT = 10.0


# -- building hostile files ----------------------------------------------------------------------


def deflated_zeros(size: int) -> bytes:
    """A raw deflate stream of ``size`` zero bytes (a multiple of 1 MiB), made in milliseconds:
    after a full flush the compressor starts afresh, so every MiB compresses to the same
    bytes."""
    assert size % MIB == 0
    compressor = zlib.compressobj(9, zlib.DEFLATED, -15)
    one_mib = compressor.compress(bytes(MIB)) + compressor.flush(zlib.Z_FULL_FLUSH)
    return one_mib * (size // MIB) + zlib.compressobj(9, zlib.DEFLATED, -15).flush()


def crc_of_zeros(size: int) -> int:
    crc = 0
    chunk = bytes(MIB)
    for _ in range(size // MIB):
        crc = zlib.crc32(chunk, crc)
    return crc


def zip_archive(members: list[tuple[str, bytes, int, int]]) -> bytes:
    """A ZIP archive written by hand, each member ``(name, raw deflate data, declared size,
    CRC-32)`` exactly as given (so a size can lie)."""
    body = b""
    directory = b""
    for name, data, size, crc in members:
        encoded = name.encode()
        fields = struct.pack("<HHHHHIII", 20, 0, 8, 0, 0x21, crc, len(data), size)
        directory += (
            b"PK\x01\x02"
            + struct.pack("<H", 20)
            + fields
            + struct.pack("<HHHHHII", len(encoded), 0, 0, 0, 0, 0, len(body))
            + encoded
        )
        body += b"PK\x03\x04" + fields + struct.pack("<HH", len(encoded), 0) + encoded + data
    end = struct.pack("<HHHHIIH", 0, 0, len(members), len(members), len(directory), len(body), 0)
    return body + directory + b"PK\x05\x06" + end


def word_members(*paragraphs: str) -> list[tuple[str, bytes, int, int]]:
    """The members of a real Word document (python-docx's), deflated."""
    document = docx.Document()
    for paragraph in paragraphs:
        document.add_paragraph(paragraph)
    buffer = io.BytesIO()
    document.save(buffer)
    members = []
    with zipfile.ZipFile(buffer) as archive:
        for name in archive.namelist():
            data = archive.read(name)
            compressor = zlib.compressobj(6, zlib.DEFLATED, -15)
            deflated = compressor.compress(data) + compressor.flush()
            members.append((name, deflated, len(data), zlib.crc32(data)))
    return members


def long_word_document(paragraphs: int) -> bytes:
    """A Word document of ``paragraphs`` numbered lines (honestly compressed)."""
    members = []
    for name, data, size, crc in word_members("Dear Marie,"):
        if name == "word/document.xml":
            lines = "".join(
                f"<w:p><w:r><w:t>Line {n} of the soup recipe</w:t></w:r></w:p>"
                for n in range(paragraphs)
            )
            xml = zlib.decompress(data, -15).replace(b"<w:body>", b"<w:body>" + lines.encode())
            compressor = zlib.compressobj(1, zlib.DEFLATED, -15)
            data = compressor.compress(xml) + compressor.flush()
            size, crc = len(xml), zlib.crc32(xml)
        members.append((name, data, size, crc))
    return zip_archive(members)


def pdf_file(objects: list[bytes]) -> bytes:
    """A PDF of ``objects`` (numbered from 1, the first the catalog), written by hand."""
    out = b"%PDF-1.4\n"
    offsets = []
    for number, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    trailer = b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n"
    return out + trailer % (len(objects) + 1, xref)


def pdf_pages(contents: list[bytes]) -> bytes:
    """A PDF whose pages show ``contents`` (content streams)."""
    first_page = 4 + len(contents)
    kids = b" ".join(b"%d 0 R" % (first_page + i) for i in range(len(contents)))
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [" + kids + b"] /Count %d >>" % len(contents),
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    for content in contents:
        objects.append(b"<< /Length %d >>\nstream\n" % len(content) + content + b"\nendstream")
    for number in range(len(contents)):
        objects.append(
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents %d 0 R "
            b"/Resources << /Font << /F1 3 0 R >> >> >>" % (4 + number)
        )
    return pdf_file(objects)


def showing(text: str) -> bytes:
    return f"BT /F1 12 Tf 72 720 Td ({text}) Tj ET".encode()


def slow_pdf() -> bytes:
    """A few kilobytes that keep pypdf busy for many minutes: one page draws a form 4000
    times (pypdf allows 5000), the form holding 300 000 text-positioning operators that pypdf
    parses again at each use (some 0.1 s per 100 000 on this 2-core machine), none of them
    showing text that would cut the reading short."""
    form = zlib.compress(b"0 0 Td " * 300_000, 9)
    content = zlib.compress(b"BT /F1 12 Tf " + b"/Fm1 Do " * 4000 + b"ET", 9)

    def stream(dictionary: bytes, data: bytes) -> bytes:
        return (
            b"<< %s /Length %d /Filter /FlateDecode >>\nstream\n"
            % (
                dictionary,
                len(data),
            )
            + data
            + b"\nendstream"
        )

    return pdf_file(
        [
            b"<< /Type /Catalog /Pages 2 0 R >>",
            b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R "
            b"/Resources << /Font << /F1 5 0 R >> /XObject << /Fm1 6 0 R >> >> >>",
            stream(b"", content),
            b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
            stream(b"/Type /XObject /Subtype /Form /BBox [0 0 612 792] /Resources 7 0 R", form),
            b"<< /Font << /F1 5 0 R >> >>",
        ]
    )


def page_tree_too_deep() -> bytes:
    """Pages nested 150 levels deep: beyond pypdf's page tree depth limit (100)."""
    objects = [b"<< /Type /Catalog /Pages 2 0 R >>"]
    for level in range(150):
        objects.append(b"<< /Type /Pages /Kids [%d 0 R] /Count 1 >>" % (level + 3))
    objects.append(b"<< /Type /Page /MediaBox [0 0 612 792] >>")
    return pdf_file(objects)


# -- the server ----------------------------------------------------------------------------------


# The fake OpenAI fixture, under the name pytest looks for.
fake_llm = server_fixtures.fake_llm


@pytest.fixture
async def server(data_dir: Path, fake_llm: FakeOpenAI) -> AsyncIterator[RunningServer]:
    async with serve_with_openai(
        data_dir,
        fake_llm,
        upload_read_timeout_seconds=READ_TIMEOUT,
        upload_unpacked_max_bytes=100 * MIB,
        upload_zip_max_ratio=100,
        upload_pdf_max_pages=3,
    ) as server:
        yield server


async def upload(server: RunningServer, kin_id: str, name: str, data: bytes) -> httpx.Response:
    files = {"file": (name, data, "application/octet-stream")}
    # Past the reading time limit, whatever the load: the server answers, not the client.
    timeout = READ_TIMEOUT * 6
    return await server.client.post(f"/api/kins/{kin_id}/uploads", files=files, timeout=timeout)


def refused(response: httpx.Response, status: int, code: str) -> str:
    assert response.status_code == status, response.text
    error: dict[str, Any] = response.json()["error"]
    assert error["code"] == code, error
    message: str = error["message"]
    return message


def readers_running() -> list[int]:
    """The ids of this process's children reading an upload (the server runs in this
    process)."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            status = Path(f"/proc/{entry}/status").read_text()
            command = Path(f"/proc/{entry}/cmdline").read_bytes()
        except OSError:
            continue
        parent = next(line for line in status.splitlines() if line.startswith("PPid:"))
        if int(parent.split()[1]) == os.getpid() and b"upload_content.py" in command:
            found.append(int(entry))
    return found


# -- Word documents ------------------------------------------------------------------------------


async def test_a_docx_zip_bomb_is_refused_from_its_declared_sizes(server: RunningServer) -> None:
    kin_id = await make_kin(server.client)
    bomb = ("word/media/zeros.bin", deflated_zeros(GIB), GIB, crc_of_zeros(GIB))
    data = zip_archive([*word_members("Dear Marie,"), bomb])
    assert len(data) < 2 * MIB
    message = refused(await upload(server, kin_id, "letter.docx", data), 413, "unpacked_too_large")
    assert "unpacks to more than 104857600 bytes" in message
    # Under the total, a member compressed 1000 times is refused by its ratio.
    dense = ("word/media/zeros.bin", deflated_zeros(50 * MIB), 50 * MIB, crc_of_zeros(50 * MIB))
    data = zip_archive([*word_members("Dear Marie,"), dense])
    message = refused(await upload(server, kin_id, "letter.docx", data), 413, "unpacked_too_large")
    assert "'word/media/zeros.bin' in this archive is compressed" in message
    assert not list((server.platform.settings.data_dir / "uploads").glob("*"))


async def test_a_docx_member_lying_about_its_size_is_read_no_further(
    server: RunningServer,
) -> None:
    kin_id = await make_kin(server.client)
    # Declares 2 MiB (a ratio of 2, under every limit) but inflates to 1 GiB.
    liar = ("word/media/zeros.bin", deflated_zeros(GIB), 2 * MIB, crc_of_zeros(GIB))
    data = zip_archive([*word_members("Dear Marie,"), liar])
    message = refused(await upload(server, kin_id, "letter.docx", data), 415, "unreadable")
    # Reading stopped at the declared 2 MiB, whose checksum is not the archive's.
    assert "Bad CRC-32 for file 'word/media/zeros.bin'" in message
    honest = zip_archive(word_members("Dear Marie,", "The recipe is attached."))
    accepted = await upload(server, kin_id, "letter.docx", honest)
    assert accepted.status_code == 201, accepted.text


async def test_the_reading_process_is_held_to_its_memory_limit() -> None:
    limits = ReadLimits(
        max_chars=100_000,
        pdf_max_pages=500,
        unpacked_max_bytes=GIB,
        zip_max_ratio=100,
        timeout_seconds=60,
        max_memory_bytes=256 * MIB,
    )
    # 400 000 paragraphs (22 MB of XML, 1 MB zipped): lxml runs out of memory under 256 MiB
    # (under 1 GiB the document is read, in some 16 s on this machine).
    with pytest.raises(UploadError) as refused:
        await read_isolated("long.docx", long_word_document(400_000), limits)
    assert (refused.value.status, refused.value.code) == (413, "too_complex")
    assert refused.value.message == "Reading this file needs more than 256 MiB of memory."
    mime_type, text = await read_isolated("short.docx", long_word_document(1000), limits)
    assert mime_type.endswith("wordprocessingml.document")
    assert text is not None and "Line 999 of the soup recipe" in text


# -- PDFs ----------------------------------------------------------------------------------------


async def test_a_pdf_beyond_pypdfs_limits_is_refused_with_413(server: RunningServer) -> None:
    kin_id = await make_kin(server.client)
    response = await upload(server, kin_id, "deep.pdf", page_tree_too_deep())
    message = refused(response, 413, "too_complex")
    assert "Maximum page tree depth reached" in message


async def test_only_the_first_pages_of_a_long_pdf_are_read(server: RunningServer) -> None:
    kin_id = await make_kin(server.client)
    data = pdf_pages([showing(f"Page {number} of the recipe") for number in range(1, 6)])
    response = await upload(server, kin_id, "recipe.pdf", data)
    assert response.status_code == 201, response.text
    upload_id = response.json()["upload"]["id"]
    text = await server.platform.db.read(lambda: UploadRecord.get_by_id(upload_id).text)
    assert text is not None
    assert "Page 3 of the recipe" in text and "Page 4" not in text
    assert text.endswith("[… cut: only the first 3 pages were read]")


async def test_a_slow_pdf_is_killed_at_the_time_limit_while_the_server_answers(
    server: RunningServer,
) -> None:
    kin_id = await make_kin(server.client)
    sending = asyncio.create_task(upload(server, kin_id, "slow.pdf", slow_pdf()))
    while not readers_running():
        assert not sending.done(), sending.result().text
        await asyncio.sleep(0.02)
    (reader,) = readers_running()
    health = await server.client.get("/api/health")
    assert health.status_code == 200
    assert readers_running() == [reader], "the reader was still at work when health answered"
    assert not sending.done()
    message = refused(await sending, 422, "too_slow")
    assert f"longer than {READ_TIMEOUT:g} seconds" in message
    assert readers_running() == []
    assert not list((server.platform.settings.data_dir / "uploads").glob("*"))
