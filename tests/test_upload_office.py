"""Office documents families send, uploaded over real HTTP and read in the bounded reading
process: an OpenDocument text's paragraphs, the sheets of Excel and OpenDocument spreadsheets
as Markdown tables (cut at a row and column cap), and a presentation's slides reach the model;
a zip bomb in each of these formats is refused from its declared sizes, and a file whose
content is another office type is refused as disguised."""

from __future__ import annotations

import io
import zipfile
import zlib
from collections.abc import AsyncIterator
from pathlib import Path

import openpyxl
import pytest
from odf.opendocument import OpenDocumentSpreadsheet, OpenDocumentText
from odf.table import Table, TableCell, TableRow
from odf.text import H, P
from pptx import Presentation
from pptx.util import Inches

from kinbot_core.office_text import MAX_COLUMNS, MAX_ROWS
from kinbot_core.upload_content import ReadLimits
from kinbot_core.uploads import read_isolated
from tests.support import server_fixtures
from tests.support.fakes import FakeOpenAI
from tests.support.kin_chat import make_kin, serve_with_openai
from tests.support.server import RunningServer
from tests.test_upload_bounds import (
    GIB,
    MIB,
    crc_of_zeros,
    deflated_zeros,
    refused,
    upload,
    zip_archive,
)
from tests.test_uploads import last_user_message, send_with, uploaded

# -- documents made with the libraries people's programs write alike ------------------------------


def saved(document: object) -> bytes:
    buffer = io.BytesIO()
    document.save(buffer)  # type: ignore[attr-defined]
    return buffer.getvalue()


def workbook(sheets: dict[str, list[list[object]]]) -> bytes:
    book = openpyxl.Workbook()
    book.remove(book.active)
    for title, rows in sheets.items():
        sheet = book.create_sheet(title)
        for row in rows:
            sheet.append(row)
    return saved(book)


def presentation() -> bytes:
    deck = Presentation()
    first = deck.slides.add_slide(deck.slide_layouts[1])
    first.shapes.title.text = "Summer holidays"
    first.placeholders[1].text = "Brittany, 12 to 26 July"
    first.notes_slide.notes_text_frame.text = "Ask grandma about the dog"
    second = deck.slides.add_slide(deck.slide_layouts[5])
    second.shapes.title.text = "Budget"
    table = second.shapes.add_table(2, 2, Inches(1), Inches(2), Inches(4), Inches(1)).table
    for (row, column), text in {(0, 0): "Train", (0, 1): "240 €", (1, 0): "Cottage"}.items():
        table.cell(row, column).text = text
    table.cell(1, 1).text = "900 €"
    return saved(deck)


def text_document() -> bytes:
    document = OpenDocumentText()
    document.text.addElement(H(outlinelevel=1, text="Leek soup"))
    document.text.addElement(P(text="Sweat the leeks for ten minutes."))
    document.text.addElement(P(text="Add the potatoes and cover with water."))
    return saved(document)


def spreadsheet(rows: list[list[str]], empty_rows: int = 0) -> bytes:
    """An OpenDocument spreadsheet; ``empty_rows`` repeated empty rows after the data, the
    way office suites store the rest of a sheet."""
    document = OpenDocumentSpreadsheet()
    table = Table(name="Menu")
    for values in rows:
        row = TableRow()
        for value in values:
            cell = TableCell(valuetype="string")
            cell.addElement(P(text=value))
            row.addElement(cell)
        table.addElement(row)
    if empty_rows:
        filler = TableRow(numberrowsrepeated=empty_rows)
        filler.addElement(TableCell(numbercolumnsrepeated=1024))
        table.addElement(filler)
    document.spreadsheet.addElement(table)
    return saved(document)


def deflated_members(archive_bytes: bytes) -> list[tuple[str, bytes, int, int]]:
    """The members of a real archive as ``zip_archive`` takes them (the ``mimetype`` of an
    OpenDocument first, as the format wants)."""
    members = []
    with zipfile.ZipFile(io.BytesIO(archive_bytes)) as archive:
        for name in archive.namelist():
            data = archive.read(name)
            compressor = zlib.compressobj(6, zlib.DEFLATED, -15)
            deflated = compressor.compress(data) + compressor.flush()
            members.append((name, deflated, len(data), zlib.crc32(data)))
    return members


FORMATS = {
    "notes.odt": text_document,
    "budget.xlsx": lambda: workbook({"Budget": [["Item", "Cost"], ["Milk", 1.5]]}),
    "menu.ods": lambda: spreadsheet([["Day", "Meal"], ["Monday", "Soup"]]),
    "holidays.pptx": presentation,
}


# -- a server ------------------------------------------------------------------------------------


# The fake OpenAI fixture, under the name pytest looks for.
fake_llm = server_fixtures.fake_llm


@pytest.fixture
async def server(data_dir: Path, fake_llm: FakeOpenAI) -> AsyncIterator[RunningServer]:
    async with serve_with_openai(
        data_dir,
        fake_llm,
        upload_read_timeout_seconds=10.0,
        upload_unpacked_max_bytes=100 * MIB,
        upload_zip_max_ratio=100,
    ) as server:
        yield server


# -- reaching the model --------------------------------------------------------------------------


async def test_the_text_of_office_documents_reaches_the_model(
    server: RunningServer, fake_llm: FakeOpenAI
) -> None:
    kin_id = await make_kin(server.client)
    files = {
        "soup.odt": text_document(),
        "shopping.xlsx": workbook(
            {
                "Groceries": [["Item", "Qty", "Price"], ["Rice | basmati", 2, 3.5], ["Leeks", 4]],
                "Chores": [["Who", "What"], ["Léo", "Dishes"]],
            }
        ),
        "menu.ods": spreadsheet([["Day", "Meal"], ["Monday", "Soup"]], empty_rows=1_048_000),
        "holidays.pptx": presentation(),
    }
    ids = [await uploaded(server.client, kin_id, name, data) for name, data in files.items()]
    await send_with(server, kin_id, "Read these.", ids)
    content = last_user_message(fake_llm)["content"]
    assert isinstance(content, str)
    assert (
        "[Attached file: soup.odt]\n## Leek soup\nSweat the leeks for ten minutes.\n"
        "Add the potatoes and cover with water.\n[End of soup.odt]"
    ) in content
    assert (
        "## Groceries\n\n| Item | Qty | Price |\n| --- | --- | --- |\n"
        "| Rice \\| basmati | 2 | 3.5 |\n| Leeks | 4 |  |\n\n"
        "## Chores\n\n| Who | What |\n| --- | --- |\n| Léo | Dishes |"
    ) in content
    # A million repeated empty rows are the sheet's end, not a million lines.
    assert "## Menu\n\n| Day | Meal |\n| --- | --- |\n| Monday | Soup |\n[End of menu.ods]" in (
        content
    )
    assert (
        "## Slide 1\nSummer holidays\nBrittany, 12 to 26 July\nNotes: Ask grandma about the dog"
        "\n\n## Slide 2\nBudget\nTrain | 240 €\nCottage | 900 €"
    ) in content


async def test_a_large_sheet_is_cut_at_its_row_and_column_caps() -> None:
    limits = ReadLimits(
        max_chars=1_000_000,
        pdf_max_pages=10,
        unpacked_max_bytes=100 * MIB,
        zip_max_ratio=100,
        timeout_seconds=60,
        max_memory_bytes=512 * MIB,
    )
    rows: list[list[object]] = [
        [f"r{row}c{column}" for column in range(MAX_COLUMNS + 10)] for row in range(300)
    ]
    mime_type, text = await read_isolated("big.xlsx", workbook({"Big": rows}), limits)
    assert mime_type.endswith("spreadsheetml.sheet") and text is not None
    last_kept = f"r{MAX_ROWS - 1}c{MAX_COLUMNS - 1} |"
    assert last_kept in text and f"r{MAX_ROWS}c0" not in text and f"c{MAX_COLUMNS} " not in text
    assert text.endswith(
        f"[… cut: only the first {MAX_ROWS} rows and {MAX_COLUMNS} columns were read]"
    )


# -- bounds --------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", list(FORMATS))
async def test_a_zip_bomb_in_each_office_format_is_refused(
    server: RunningServer, name: str
) -> None:
    kin_id = await make_kin(server.client)
    members = deflated_members(FORMATS[name]())
    honest = await upload(server, kin_id, name, zip_archive(members))
    assert honest.status_code == 201, honest.text
    bomb = ("media/zeros.bin", deflated_zeros(GIB), GIB, crc_of_zeros(GIB))
    data = zip_archive([*members, bomb])
    assert len(data) < 2 * MIB
    message = refused(await upload(server, kin_id, name, data), 413, "unpacked_too_large")
    assert "unpacks to more than 104857600 bytes" in message
    dense = ("media/zeros.bin", deflated_zeros(50 * MIB), 50 * MIB, crc_of_zeros(50 * MIB))
    data = zip_archive([*members, dense])
    message = refused(await upload(server, kin_id, name, data), 413, "unpacked_too_large")
    assert "'media/zeros.bin' in this archive is compressed" in message


@pytest.mark.parametrize(
    ("name", "content", "words"),
    [
        (
            "budget.xlsx",
            "holidays.pptx",
            "named as a spreadsheet (.xlsx) but its content is a presentation",
        ),
        (
            "menu.ods",
            "notes.odt",
            "named as a spreadsheet (.ods) but its content is a text document",
        ),
        (
            "holidays.pptx",
            "budget.xlsx",
            "named as a presentation (.pptx) but its content is a spreadsheet",
        ),
    ],
)
async def test_an_office_file_named_as_another_type_is_refused(
    server: RunningServer, name: str, content: str, words: str
) -> None:
    kin_id = await make_kin(server.client)
    message = refused(await upload(server, kin_id, name, FORMATS[content]()), 415, "type_mismatch")
    assert words in message
