"""A Kin's Markdown as the HTML subset of Telegram's Bot API (``parse_mode="HTML"``).

Telegram's HTML knows bold, italic, underline, strike-through, spoilers, links, inline code,
code blocks and block quotes, and nothing else: headings become bold lines, list items get a
bullet or their number, tables become aligned lines in a code block, images their link, and
raw HTML is shown as text. Everything else is escaped (``&``, ``<``, ``>``), so the result
always parses; if Telegram still refuses it, the connection sends the plain text.
"""

from __future__ import annotations

from html import escape

from markdown_it import MarkdownIt
from markdown_it.token import Token

_PARSER = MarkdownIt("commonmark", {"html": False}).enable(["strikethrough", "table"])
#: Link schemes Telegram accepts in ``<a href>``.
_LINK_SCHEMES = ("http://", "https://", "tg://", "mailto:")
_INLINE_TAGS = {
    "strong_open": "<b>",
    "strong_close": "</b>",
    "em_open": "<i>",
    "em_close": "</i>",
    "s_open": "<s>",
    "s_close": "</s>",
}


def markdown_to_telegram_html(markdown: str) -> str:
    """``markdown`` as Telegram HTML."""
    renderer = _Renderer()
    renderer.blocks(_PARSER.parse(markdown))
    return renderer.result()


def _text(value: str) -> str:
    return escape(value, quote=False)


class _Renderer:
    def __init__(self) -> None:
        self._out: list[str] = []
        #: For each open list: its next number, or ``None`` for a bullet list.
        self._lists: list[int | None] = []

    def result(self) -> str:
        return "".join(self._out).strip()

    def _block_break(self) -> None:
        text = "".join(self._out)
        if text and not text.endswith(("\n\n", "<blockquote>")):
            self._out.append("\n" if text.endswith("\n") else "\n\n")

    def blocks(self, tokens: list[Token]) -> None:
        index = 0
        while index < len(tokens):
            token = tokens[index]
            kind = token.type
            if kind == "inline":
                self._out.append(self.inline(token.children or []))
            elif kind == "heading_open":
                self._block_break()
                self._out.append("<b>")
            elif kind == "heading_close":
                self._out.append("</b>")
                self._block_break()
            elif kind == "paragraph_open":
                if not (token.hidden or self._in_list_item_start()):
                    self._block_break()
            elif kind == "paragraph_close":
                if not token.hidden:
                    self._block_break()
                else:
                    self._out.append("\n")
            elif kind in ("bullet_list_open", "ordered_list_open"):
                if not self._lists:
                    self._block_break()
                start = token.attrGet("start")
                self._lists.append(
                    (int(start) if start else 1) if kind == "ordered_list_open" else None
                )
            elif kind in ("bullet_list_close", "ordered_list_close"):
                self._lists.pop()
                if not self._lists:
                    self._block_break()
            elif kind == "list_item_open":
                self._list_item()
            elif kind == "blockquote_open":
                self._block_break()
                self._out.append("<blockquote>")
            elif kind == "blockquote_close":
                self._trim_trailing_newlines()
                self._out.append("</blockquote>")
                self._block_break()
            elif kind in ("fence", "code_block"):
                self._block_break()
                self._code_block(token.content, token.info.strip().split(" ")[0])
                self._block_break()
            elif kind == "hr":
                self._block_break()
                self._out.append("———")
                self._block_break()
            elif kind == "table_open":
                end = _closing(tokens, index, "table_close")
                self._block_break()
                self._table(tokens[index:end])
                self._block_break()
                index = end
            elif kind == "html_block":
                self._block_break()
                self._out.append(_text(token.content))
            index += 1

    def _in_list_item_start(self) -> bool:
        return bool(self._out) and self._out[-1].endswith(("• ", ". "))

    def _list_item(self) -> None:
        text = "".join(self._out)
        if text and not text.endswith("\n"):
            self._out.append("\n")
        depth = len(self._lists) - 1
        marker = self._lists[-1]
        if marker is None:
            bullet = "• "
        else:
            bullet = f"{marker}. "
            self._lists[-1] = marker + 1
        self._out.append("   " * depth + bullet)

    def _trim_trailing_newlines(self) -> None:
        while self._out and self._out[-1].endswith("\n"):
            self._out[-1] = self._out[-1].rstrip("\n")
            if not self._out[-1]:
                self._out.pop()

    def _code_block(self, code: str, language: str) -> None:
        body = _text(code.rstrip("\n"))
        if language:
            self._out.append(f'<pre><code class="language-{escape(language)}">{body}</code></pre>')
        else:
            self._out.append(f"<pre>{body}</pre>")

    def _table(self, tokens: list[Token]) -> None:
        rows: list[list[str]] = []
        for token in tokens:
            if token.type == "tr_open":
                rows.append([])
            elif token.type == "inline" and rows:
                rows[-1].append(_plain(token.children or []))
        widths = [max(len(row[i]) for row in rows if i < len(row)) for i in range(len(rows[0]))]
        lines = [
            " | ".join(cell.ljust(widths[i]) for i, cell in enumerate(row)).rstrip() for row in rows
        ]
        if len(lines) > 1:
            lines.insert(1, "-+-".join("-" * width for width in widths))
        self._out.append(f"<pre>{_text(chr(10).join(lines))}</pre>")

    def inline(self, children: list[Token]) -> str:
        parts: list[str] = []
        links: list[bool] = []
        for child in children:
            kind = child.type
            if kind == "text":
                parts.append(_text(child.content))
            elif kind in _INLINE_TAGS:
                parts.append(_INLINE_TAGS[kind])
            elif kind == "code_inline":
                parts.append(f"<code>{_text(child.content)}</code>")
            elif kind in ("softbreak", "hardbreak"):
                parts.append("\n")
            elif kind == "link_open":
                href = str(child.attrGet("href") or "")
                usable = href.startswith(_LINK_SCHEMES)
                links.append(usable)
                if usable:
                    parts.append(f'<a href="{escape(href, quote=True)}">')
            elif kind == "link_close":
                if links and links.pop():
                    parts.append("</a>")
            elif kind == "image":
                src = str(child.attrGet("src") or "")
                label = _text(_plain(child.children or []) or src)
                if src.startswith(_LINK_SCHEMES):
                    parts.append(f'<a href="{escape(src, quote=True)}">{label}</a>')
                else:
                    parts.append(label)
            elif kind == "html_inline":
                parts.append(_text(child.content))
        return "".join(parts)


def _plain(children: list[Token]) -> str:
    parts: list[str] = []
    for child in children:
        if child.type in ("text", "code_inline"):
            parts.append(child.content)
        elif child.type in ("softbreak", "hardbreak"):
            parts.append(" ")
        elif child.children:
            parts.append(_plain(child.children))
    return "".join(parts)


def _closing(tokens: list[Token], start: int, kind: str) -> int:
    for index in range(start, len(tokens)):
        if tokens[index].type == kind:
            return index
    return len(tokens) - 1
