"""The text of office documents as a model reads it: OpenDocument text (.odt) as its
paragraphs, spreadsheets (.xlsx, .ods) as a Markdown table per sheet, presentations (.pptx)
as the text of each slide.

Run inside the bounded reading process of ``kinbot_core.upload_content``, after the archive's
unpacked sizes were checked, so it imports nothing of KinBot: only the standard library,
openpyxl, odfpy and python-pptx. Each reader stops once it has more than ``max_chars``
characters; spreadsheets keep at most ``MAX_ROWS`` rows and ``MAX_COLUMNS`` columns per sheet
(a sheet may declare a million empty rows), and say where they were cut.
"""

from __future__ import annotations

import datetime
import io
from collections.abc import Iterable, Iterator
from itertools import islice
from typing import Any

#: Rows and columns of a sheet given to the model; the rest is cut, with a note.
MAX_ROWS = 200
MAX_COLUMNS = 30
#: Characters of one cell.
MAX_CELL_CHARS = 300

_TEXT_NS = "urn:oasis:names:tc:opendocument:xmlns:text:1.0"
_TABLE_NS = "urn:oasis:names:tc:opendocument:xmlns:table:1.0"


def _cell_text(value: object) -> str:
    if value is None:
        return ""
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    elif isinstance(value, datetime.datetime) and value.time() == datetime.time():
        value = value.date()
    text = " ".join(str(value).split())
    if len(text) > MAX_CELL_CHARS:
        text = text[:MAX_CELL_CHARS] + "…"
    return text.replace("|", "\\|")


def markdown_table(name: str, rows: Iterable[Iterable[object]]) -> str:
    """A sheet as a Markdown table under a ``## name`` heading, its first row as the header;
    rows past ``MAX_ROWS`` and columns past ``MAX_COLUMNS`` are cut, with a note; empty
    trailing rows and columns are left out."""
    grid: list[list[str]] = []
    more_rows = more_columns = False
    for number, row in enumerate(rows):
        if number == MAX_ROWS:  # a next row, if it holds something, says there were more
            more_rows = any(_cell_text(value) for value in islice(row, MAX_COLUMNS))
            break
        cells = [_cell_text(value) for value in islice(row, MAX_COLUMNS + 1)]
        if len(cells) > MAX_COLUMNS:
            more_columns = more_columns or any(cells[MAX_COLUMNS:])
            cells = cells[:MAX_COLUMNS]
        grid.append(cells)
    while grid and not any(grid[-1]):
        grid.pop()
    width = max((i + 1 for row in grid for i, cell in enumerate(row) if cell), default=0)
    lines = [f"## {name}", ""]
    if width == 0:
        lines.append("(empty sheet)")
    else:
        table = [row[:width] + [""] * (width - len(row)) for row in grid]
        lines.append("| " + " | ".join(table[0]) + " |")
        lines.append("|" + " --- |" * width)
        lines.extend("| " + " | ".join(row) + " |" for row in table[1:])
    if more_rows or more_columns:
        lines.append(f"[… cut: only the first {MAX_ROWS} rows and {MAX_COLUMNS} columns were read]")
    return "\n".join(lines)


def _joined(parts: Iterable[str], max_chars: int) -> str:
    """``parts`` separated by blank lines, taken until more than ``max_chars`` are there."""
    taken: list[str] = []
    total = 0
    for part in parts:
        taken.append(part)
        total += len(part) + 2
        if total > max_chars:
            break
    return "\n\n".join(taken).strip()


def xlsx_text(data: bytes, max_chars: int) -> str:
    """Each sheet of an Excel workbook as a Markdown table (the values last computed, not
    the formulas)."""
    import openpyxl

    workbook = openpyxl.load_workbook(io.BytesIO(data), read_only=True, data_only=True)
    try:
        sheets = (
            markdown_table(
                sheet.title,
                sheet.iter_rows(max_row=MAX_ROWS + 1, max_col=MAX_COLUMNS + 1, values_only=True),
            )
            for sheet in workbook.worksheets
        )
        return _joined(sheets, max_chars)
    finally:
        workbook.close()


def _local(element: Any) -> tuple[str, str]:
    qname: tuple[str, str] = getattr(element, "qname", ("", ""))
    return qname


def _repeated(element: Any, attribute: str, cap: int) -> int:
    try:
        count = int(element.getAttribute(attribute) or 1)
    except ValueError:
        count = 1
    return max(1, min(count, cap))


def _odf_text(element: Any) -> str:
    from odf import teletype

    paragraphs = [
        teletype.extractText(child)
        for child in element.childNodes
        if _local(child) in ((_TEXT_NS, "p"), (_TEXT_NS, "h"))
    ]
    return " ".join(paragraphs) if paragraphs else str(teletype.extractText(element))


def _ods_rows(table: Any) -> Iterator[list[str]]:
    """A sheet's rows, with repeated rows and cells (how ODF stores empty stretches) written
    out no further than the caps."""
    from odf.table import TableRow

    for row in table.getElementsByType(TableRow):
        cells: list[str] = []
        for cell in row.childNodes:
            if _local(cell) not in ((_TABLE_NS, "table-cell"), (_TABLE_NS, "covered-table-cell")):
                continue
            text = _odf_text(cell)
            cells.extend(
                [text] * _repeated(cell, "numbercolumnsrepeated", MAX_COLUMNS + 1 - len(cells))
            )
            if len(cells) > MAX_COLUMNS:
                break
        for _ in range(_repeated(row, "numberrowsrepeated", MAX_ROWS + 1)):
            yield cells


def ods_text(data: bytes, max_chars: int) -> str:
    """Each sheet of an OpenDocument spreadsheet as a Markdown table."""
    from odf.opendocument import load
    from odf.table import Table

    document = load(io.BytesIO(data))
    sheets = (
        markdown_table(str(table.getAttribute("name") or "Sheet"), _ods_rows(table))
        for table in document.spreadsheet.getElementsByType(Table)
    )
    return _joined(sheets, max_chars)


def _odt_blocks(element: Any) -> Iterator[str]:
    from odf import teletype

    for child in element.childNodes:
        kind = _local(child)
        if kind == (_TEXT_NS, "h"):
            yield "## " + str(teletype.extractText(child))
        elif kind == (_TEXT_NS, "p"):
            yield str(teletype.extractText(child))
        elif getattr(child, "childNodes", None):
            yield from _odt_blocks(child)


def odt_text(data: bytes, max_chars: int) -> str:
    """The paragraphs and headings of an OpenDocument text, in order (table cells as
    paragraphs)."""
    from odf.opendocument import load

    document = load(io.BytesIO(data))
    lines: list[str] = []
    total = 0
    for block in _odt_blocks(document.text):
        lines.append(block)
        total += len(block) + 1
        if total > max_chars:
            break
    return "\n".join(lines).strip()


def _shape_lines(shapes: Iterable[Any]) -> Iterator[str]:
    from pptx.enum.shapes import MSO_SHAPE_TYPE

    for shape in shapes:
        if shape.shape_type == MSO_SHAPE_TYPE.GROUP:
            yield from _shape_lines(shape.shapes)
        elif getattr(shape, "has_text_frame", False) and shape.text_frame.text.strip():
            yield shape.text_frame.text.strip()
        elif getattr(shape, "has_table", False):
            for row in shape.table.rows:
                cells = [" ".join(cell.text.split()) for cell in row.cells]
                if any(cells):
                    yield " | ".join(cells)


def pptx_text(data: bytes, max_chars: int) -> str:
    """The text of each slide of a PowerPoint presentation (its text boxes and tables, then
    its speaker notes), under a ``## Slide n`` heading."""
    from pptx import Presentation

    presentation = Presentation(io.BytesIO(data))

    def slides() -> Iterator[str]:
        for number, slide in enumerate(presentation.slides, start=1):
            lines = [f"## Slide {number}", *_shape_lines(slide.shapes)]
            if slide.has_notes_slide and slide.notes_slide.notes_text_frame is not None:
                notes = slide.notes_slide.notes_text_frame.text.strip()
                if notes:
                    lines.append(f"Notes: {notes}")
            yield "\n".join(lines)

    return _joined(slides(), max_chars)
