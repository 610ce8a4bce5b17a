"""File uploads in chat over real HTTP: checked by content and size, stored under the data
directory, private to signed-in users, and given to the model (images to vision models as
image parts, the text of PDFs and documents as text)."""

from __future__ import annotations

import base64
import io
import os
import stat
import struct
import zlib
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import docx
import httpx
import pytest
from PIL import Image

from kinbot_core.config import load_settings
from kinbot_core.platform import Platform
from kinbot_core.plugins import PluginManager
from kinbot_core.providers import ChatMessage, ChatRequest, ImagePart, ProviderType
from tests.support.accounts import set_up_admin
from tests.support.fakes import FakeOpenAI, Reply
from tests.support.kin_chat import reply_to
from tests.support.provider_setups import LLM_SETUPS, Setup, add_openai_provider
from tests.support.server import RunningServer, running_server
from tests.support.sse import sse_stream

LIMIT = 50_000


def png(color: str = "red", size: tuple[int, int] = (8, 8)) -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", size, color).save(buffer, "PNG")
    return buffer.getvalue()


def pdf(text: str) -> bytes:
    """A one-page PDF showing ``text``, written by hand (no PDF writer needed)."""
    content = f"BT /F1 12 Tf 72 720 Td ({text}) Tj ET".encode()
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R "
        b"/Resources << /Font << /F1 5 0 R >> >> >>",
        b"<< /Length %d >>\nstream\n" % len(content) + content + b"\nendstream",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    out = b"%PDF-1.4\n"
    offsets = []
    for number, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1,
        xref,
    )
    return out


def word(*paragraphs: str) -> bytes:
    document = docx.Document()
    for paragraph in paragraphs:
        document.add_paragraph(paragraph)
    buffer = io.BytesIO()
    document.save(buffer)
    return buffer.getvalue()


@pytest.fixture
def fake_llm() -> Iterator[FakeOpenAI]:
    with FakeOpenAI() as fake:
        yield fake


@pytest.fixture
async def server(data_dir: Path, fake_llm: FakeOpenAI) -> AsyncIterator[RunningServer]:
    platform = Platform(load_settings(data_dir=data_dir, upload_max_bytes=LIMIT))
    async with running_server(platform) as server:
        await set_up_admin(server.client)
        await add_openai_provider(server.client, fake_llm)
        yield server


async def make_kin(client: httpx.AsyncClient, model: str = "gpt-4o") -> str:
    response = await client.post("/api/kins", json={"name": "Chef", "model": model})
    assert response.status_code == 201, response.text
    kin_id: str = response.json()["kin"]["id"]
    return kin_id


async def upload(
    client: httpx.AsyncClient, kin_id: str, name: str, data: bytes, content_type: str = ""
) -> httpx.Response:
    files = {"file": (name, data, content_type or "application/octet-stream")}
    return await client.post(f"/api/kins/{kin_id}/uploads", files=files)


async def uploaded(client: httpx.AsyncClient, kin_id: str, name: str, data: bytes) -> str:
    response = await upload(client, kin_id, name, data)
    assert response.status_code == 201, response.text
    upload_id: str = response.json()["upload"]["id"]
    return upload_id


async def send_with(
    server: RunningServer, kin_id: str, text: str, attachments: list[str]
) -> dict[str, Any]:
    """Send a message with attachments, wait for the reply; the message as the model got it."""
    async with sse_stream(server.client) as stream:
        sent = await server.client.post(
            f"/api/kins/{kin_id}/messages", json={"content": text, "attachments": attachments}
        )
        assert sent.status_code == 202, sent.text
        await stream.wait_for(reply_to(sent.json()["message"]["id"]))
    return sent.json()["message"]  # type: ignore[no-any-return]


def last_user_message(fake: FakeOpenAI) -> Any:
    request = fake.requests_to("chat")[-1]
    return [m for m in request.body["messages"] if m["role"] == "user"][-1]


# -- reaching the model --------------------------------------------------------------------------


async def test_an_uploaded_image_reaches_a_vision_model_as_an_image(
    server: RunningServer, fake_llm: FakeOpenAI
) -> None:
    kin_id = await make_kin(server.client)
    image = png("blue")
    response = await upload(server.client, kin_id, "fridge.png", image, "image/png")
    assert response.status_code == 201, response.text
    stored = response.json()["upload"]
    assert {k: stored[k] for k in ("filename", "mime_type", "kind", "size")} == {
        "filename": "fridge.png",
        "mime_type": "image/png",
        "kind": "image",
        "size": len(image),
    }
    fake_llm.enqueue(Reply(text="I see a blue square."))
    message = await send_with(server, kin_id, "What is in my fridge?", [stored["id"]])
    assert message["attachments"] == [
        {
            "id": stored["id"],
            "filename": "fridge.png",
            "mime_type": "image/png",
            "kind": "image",
            "size": len(image),
            "url": f"/api/uploads/{stored['id']}",
        }
    ]
    content = last_user_message(fake_llm)["content"]
    assert content[0]["type"] == "text" and "What is in my fridge?" in content[0]["text"]
    assert content[1] == {
        "type": "image_url",
        "image_url": {"url": "data:image/png;base64," + base64.b64encode(image).decode()},
    }
    history = (await server.client.get(f"/api/kins/{kin_id}/messages")).json()["messages"]
    assert history[0]["attachments"][0]["id"] == stored["id"]


async def test_a_model_without_vision_is_told_of_the_image_instead(
    server: RunningServer, fake_llm: FakeOpenAI
) -> None:
    kin_id = await make_kin(server.client, "OpenAI/gpt-3.5-turbo")
    upload_id = await uploaded(server.client, kin_id, "cat.png", png())
    await send_with(server, kin_id, "Look", [upload_id])
    content = last_user_message(fake_llm)["content"]
    assert isinstance(content, str)
    assert "[Attached image cat.png: this model cannot see images]" in content


async def test_the_text_of_a_pdf_and_of_documents_reaches_the_model(
    server: RunningServer, fake_llm: FakeOpenAI
) -> None:
    kin_id = await make_kin(server.client)
    ids = [
        await uploaded(server.client, kin_id, "boiler.pdf", pdf("The boiler code is 4417")),
        await uploaded(server.client, kin_id, "recipe.docx", word("Risotto", "Add saffron last")),
        await uploaded(server.client, kin_id, "shopping.csv", b"item,qty\nrice,2\n"),
        await uploaded(server.client, kin_id, "notes.md", "# Notes\nCafé at 8\n".encode()),
    ]
    await send_with(server, kin_id, "Read these.", ids)
    content = last_user_message(fake_llm)["content"]
    assert isinstance(content, str) and content.startswith("[Nico] Read these.")
    assert "[Attached file: boiler.pdf]\nThe boiler code is 4417\n[End of boiler.pdf]" in content
    assert "Risotto\nAdd saffron last" in content
    assert "item,qty\nrice,2" in content and "Café at 8" in content


async def test_uploads_are_stored_privately_under_the_data_directory(
    server: RunningServer, data_dir: Path
) -> None:
    kin_id = await make_kin(server.client)
    image = png()
    upload_id = await uploaded(server.client, kin_id, "../../etc/evil.png", image)
    stored = data_dir / "uploads" / upload_id
    assert stored.read_bytes() == image
    assert stat.S_IMODE(os.stat(stored).st_mode) == 0o600
    served = await server.client.get(f"/api/uploads/{upload_id}")
    assert served.status_code == 200 and served.content == image
    assert served.headers["content-type"] == "image/png"
    assert served.headers["x-content-type-options"] == "nosniff"
    listed = (await server.client.get(f"/api/uploads/{upload_id}")).headers
    assert "attachment" not in listed.get("content-disposition", "")
    document = await uploaded(server.client, kin_id, "a.txt", b"hello")
    download = await server.client.get(f"/api/uploads/{document}")
    assert download.headers["content-disposition"].startswith("attachment")
    # A name beyond ASCII: in ASCII for every client, and as it is in filename*.
    accented = await uploaded(server.client, kin_id, 'Notes d\u2019été "2026".txt', b"notes")
    disposition = (await server.client.get(f"/api/uploads/{accented}")).headers[
        "content-disposition"
    ]
    assert disposition == (
        'attachment; filename="Notes d\'ete _2026_.txt"; '
        "filename*=UTF-8''Notes%20d%E2%80%99%C3%A9t%C3%A9%20%222026%22.txt"
    )
    assert (await server.client.get("/api/uploads/nope")).status_code == 404

    # Deleting the Kin deletes the files uploaded into its chat; other Kins' files stay.
    other = await uploaded(server.client, await make_kin(server.client), "b.txt", b"keep")
    assert (await server.client.delete(f"/api/kins/{kin_id}")).status_code == 204
    assert not stored.exists() and not (data_dir / "uploads" / document).exists()
    assert (data_dir / "uploads" / other).read_bytes() == b"keep"
    assert (await server.client.get(f"/api/uploads/{upload_id}")).status_code == 404


# -- refusals ------------------------------------------------------------------------------------


async def test_a_stranger_cannot_upload_nor_download(server: RunningServer) -> None:
    kin_id = await make_kin(server.client)
    upload_id = await uploaded(server.client, kin_id, "cat.png", png())
    async with server.new_client() as stranger:
        refused = await upload(stranger, kin_id, "cat.png", png())
        assert refused.status_code == 401
        assert (await stranger.get(f"/api/uploads/{upload_id}")).status_code == 401


@pytest.mark.parametrize(
    ("name", "data", "code", "words"),
    [
        ("photo.png", b"just some text, not an image", "type_mismatch", "but its content is text"),
        ("photo.png", b"\x7fELF\x02\x01\x01" + b"\x00" * 64, "type_mismatch", "a program"),
        ("photo.jpg", png(), "type_mismatch", "named as a JPEG image but its content is a PNG"),
        ("report.pdf", png(), "type_mismatch", "named as a PDF but its content is a PNG image"),
        ("notes.txt", b"\x7fELF\x02\x01\x01" + b"\x00" * 64, "type_mismatch", "a program"),
        ("run.txt", b"#!/bin/sh\nrm -rf /\n", "type_mismatch", "a program"),
        ("broken.png", b"\x89PNG\r\n\x1a\n" + b"garbage" * 10, "type_mismatch", "binary data"),
        ("tool.exe", b"MZ\x90\x00", "unsupported_type", "cannot be uploaded: only images"),
        ("letter.docx", b"PK\x03\x04 not really a zip", "type_mismatch", "binary data"),
    ],
    ids=[
        "text-as-png",
        "elf-as-png",
        "png-as-jpeg",
        "png-as-pdf",
        "elf-as-txt",
        "script-as-txt",
        "broken-png",
        "exe",
        "fake-docx",
    ],
)
async def test_a_disguised_or_unsupported_file_is_refused(
    server: RunningServer, data_dir: Path, name: str, data: bytes, code: str, words: str
) -> None:
    kin_id = await make_kin(server.client)
    response = await upload(server.client, kin_id, name, data, "image/png")
    assert response.status_code == 415, response.text
    error = response.json()["error"]
    assert error["code"] == code and words in error["message"], error
    assert not list((data_dir / "uploads").glob("*"))


def huge_png(width: int = 20_000, height: int = 20_000) -> bytes:
    """A PNG whose header claims more pixels than Pillow opens (a decompression bomb, or a
    huge panorama): its pixels are never read."""

    def chunk(kind: bytes, body: bytes) -> bytes:
        checksum = struct.pack(">I", zlib.crc32(kind + body))
        return struct.pack(">I", len(body)) + kind + body + checksum

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(b""))
        + chunk(b"IEND", b"")
    )


async def test_an_image_with_too_many_pixels_is_refused_as_too_large(
    server: RunningServer, data_dir: Path
) -> None:
    kin_id = await make_kin(server.client)
    response = await upload(server.client, kin_id, "panorama.png", huge_png(), "image/png")
    assert response.status_code == 413, response.text
    error = response.json()["error"]
    assert error["code"] == "image_too_large", error
    assert "too many pixels" in error["message"]
    assert not list((data_dir / "uploads").glob("*"))


@pytest.mark.parametrize("size", [LIMIT + 1, LIMIT * 4])
async def test_a_file_over_the_limit_is_refused(
    server: RunningServer, data_dir: Path, size: int
) -> None:
    kin_id = await make_kin(server.client)
    response = await upload(server.client, kin_id, "big.txt", b"a" * size)
    assert response.status_code == 413
    assert response.json()["error"] == {
        "code": "upload_too_large",
        "message": f"The file is larger than the upload limit of {LIMIT} bytes.",
        "details": {"limit_bytes": LIMIT},  # the interface words the limit itself
    }
    at_limit = await upload(server.client, kin_id, "ok.txt", b"a" * LIMIT)
    assert at_limit.status_code == 201


async def test_bad_requests_and_foreign_attachments_are_refused(server: RunningServer) -> None:
    kin_id = await make_kin(server.client)
    other_kin = await make_kin(server.client)
    no_file = await server.client.post(f"/api/kins/{kin_id}/uploads", files={"x": ("a", b"b")})
    assert no_file.status_code == 400 and "'file'" in no_file.json()["error"]["message"]
    empty = await upload(server.client, kin_id, "empty.txt", b"")
    assert empty.status_code == 400 and "empty" in empty.json()["error"]["message"]
    assert (await upload(server.client, "nope", "a.txt", b"hi")).status_code == 404
    elsewhere = await uploaded(server.client, other_kin, "cat.png", png())
    sent = await server.client.post(
        f"/api/kins/{kin_id}/messages", json={"content": "look", "attachments": [elsewhere]}
    )
    assert sent.status_code == 400
    assert sent.json()["error"]["code"] == "invalid_attachment"
    unknown = await server.client.post(
        f"/api/kins/{kin_id}/messages", json={"content": "", "attachments": ["missing"]}
    )
    assert unknown.status_code == 400
    nothing = await server.client.post(f"/api/kins/{kin_id}/messages", json={"content": " "})
    assert nothing.status_code == 400


# -- every provider adapter sends image parts --------------------------------------------------


@pytest.fixture
def provider_types() -> dict[str, ProviderType]:
    manager = PluginManager()
    manager.load_entry_points()
    registered: list[ProviderType] = []
    manager.pluggy.hook.register_providers(register=registered.append)
    return {provider_type.name: provider_type for provider_type in registered}


@pytest.mark.parametrize("setup", LLM_SETUPS, ids=str)
async def test_each_llm_provider_sends_image_parts_to_vision_models(
    setup: Setup, provider_types: dict[str, ProviderType]
) -> None:
    image = png("green")
    request = ChatRequest(
        model=setup.model,
        messages=(ChatMessage("user", "What colour?", images=(ImagePart(image, "image/png"),)),),
    )
    with setup.fake_class() as fake:
        provider_type = provider_types[setup.type_name]
        provider = provider_type.create(
            provider_type.validate_config(setup.make_config(fake)), timeout=60
        )
        try:
            assert provider.llm is not None and provider.llm.supports_vision(setup.model)
            events = [event async for event in provider.llm.chat(request)]
        finally:
            await provider.aclose()
        sent = fake.requests[-1].raw_body.decode()
    encodings = (base64.b64encode(image), base64.urlsafe_b64encode(image))  # Gemini: URL-safe
    assert events and "image/png" in sent
    assert any(encoded.decode() in sent for encoded in encodings)
