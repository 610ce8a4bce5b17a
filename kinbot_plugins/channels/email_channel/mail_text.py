"""Text conversions of the e-mail channel: a Kin's Markdown to a mail's plain-text and HTML
parts, and an HTML-only mail to readable text for the Kin.

Markdown is rendered by markdown-it-py (CommonMark) with raw HTML turned off, so nothing a
model writes becomes live markup in a family member's mail client; the plain text is that HTML
read back as text (lists, tables and links kept readable).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from bs4 import BeautifulSoup, Tag
from bs4.element import NavigableString
from markdown_it import MarkdownIt

_MARKDOWN = MarkdownIt("commonmark", {"html": False, "linkify": False}).enable("table")

_DROPPED = frozenset({"script", "style", "head", "title", "template", "noscript"})
_BLOCKS = frozenset(
    {
        "address", "article", "aside", "blockquote", "dd", "div", "dl", "dt", "figure", "footer",
        "form", "h1", "h2", "h3", "h4", "h5", "h6", "header", "hr", "li", "main", "nav", "ol",
        "p", "pre", "section", "table", "tr", "ul",
    }
)  # fmt: skip
#: Elements that begin or end a line: whitespace beside them is the source's indentation.
_LINE_TAGS = _BLOCKS | {"br", "tbody", "thead", "tfoot", "td", "th", "body", "html"}
_SPACES = re.compile(r"[ \t\r\n\f\v]+")
_BLANK_LINES = re.compile(r"\n{3,}")
_SPACE_AT_LINE_EDGE = re.compile(r"[ \t]*\n[ \t]*")
_PREFORMATTED = re.compile("\x00([0-9]+)\x00")


def markdown_to_html(markdown: str) -> str:
    """A small HTML document of ``markdown`` (for a mail's text/html part)."""
    body = _MARKDOWN.render(markdown)
    return (
        '<!DOCTYPE html>\n<html><head><meta charset="utf-8"></head>'
        '<body style="font-family: sans-serif; line-height: 1.5">\n'
        f"{body}</body></html>\n"
    )


def markdown_to_text(markdown: str) -> str:
    """``markdown`` as plain text (for a mail's text/plain part): emphasis marks gone, links as
    ``text (address)``, list items with a dash or their number, table cells separated by
    ``|``."""
    return html_to_text(_MARKDOWN.render(markdown))


def html_to_text(html: str) -> str:
    """The readable text of an HTML mail or fragment: scripts, styles and markup gone, line
    breaks where blocks and ``<br>`` were, link addresses after their text."""
    soup = BeautifulSoup(html, "html.parser")
    preformatted: list[str] = []
    text = "".join(_pieces(soup, preformatted))
    text = _SPACE_AT_LINE_EDGE.sub("\n", text)
    text = _BLANK_LINES.sub("\n\n", text).strip()
    # Preformatted text goes back in last, so its indentation is not tidied away.
    return _PREFORMATTED.sub(lambda found: preformatted[int(found.group(1))], text)


def _pieces(node: Tag, preformatted: list[str]) -> Iterator[str]:
    for child in node.children:
        if isinstance(child, NavigableString):
            if type(child) is NavigableString and not _layout_whitespace(child):
                yield _SPACES.sub(" ", str(child))
        elif isinstance(child, Tag) and child.name not in _DROPPED:
            yield from _element(child, preformatted)


def _layout_whitespace(text: NavigableString) -> bool:
    """Whitespace between blocks (indentation of the HTML source), not between words."""
    if text.strip():
        return False
    neighbours = (text.previous_sibling, text.next_sibling)
    return any(
        neighbour is None or (isinstance(neighbour, Tag) and neighbour.name in _LINE_TAGS)
        for neighbour in neighbours
    )


def _element(tag: Tag, preformatted: list[str]) -> Iterator[str]:
    name = tag.name
    inner = "".join(_pieces(tag, preformatted))
    if name == "br":
        yield "\n"
    elif name == "pre":
        preformatted.append(tag.get_text().strip("\n"))
        yield f"\n\n\x00{len(preformatted) - 1}\x00\n\n"
    elif name == "a":
        href = str(tag.get("href") or "")
        shown = href.removeprefix("mailto:")
        label = inner.strip()
        yield f"{label} ({shown})" if href and shown not in label else inner
    elif name == "img":
        alt = str(tag.get("alt") or "").strip()
        yield f"[{alt}]" if alt else ""
    elif name == "li":
        yield "\n" + _list_marker(tag) + inner.strip()
    elif name in {"td", "th"}:
        yield inner.strip() + " | "
    elif name == "tr":
        yield "\n| " + inner.rstrip()
    elif name == "hr":
        yield "\n\n---\n\n"
    elif name in {"ul", "ol", "table", "div"}:
        yield "\n" + inner.strip(" ") + "\n"
    elif name in _BLOCKS:
        yield "\n\n" + inner.strip(" ") + "\n\n"
    else:
        yield inner


def _list_marker(item: Tag) -> str:
    parent = item.parent
    if isinstance(parent, Tag) and parent.name == "ol":
        start = str(parent.get("start") or "1")
        first = int(start) if start.isdigit() else 1
        return f"{first + parent.find_all('li', recursive=False).index(item)}. "
    return "- "
