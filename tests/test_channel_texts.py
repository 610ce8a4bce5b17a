"""How a reply is cut for a platform's length limit and written in Telegram's formatting,
and KinBot's own notices in the person's language."""

from __future__ import annotations

import pytest

from kinbot_core.channels.notices import failed_text, language_of, pairing_text
from kinbot_core.channels.splitting import split_message
from kinbot_plugins.channels.telegram.formatting import markdown_to_telegram_html


def test_a_short_text_is_one_part_and_a_blank_one_none() -> None:
    assert split_message("  Hello.  ", 100) == ["Hello."]
    assert split_message(" \n ", 100) == []


def test_parts_end_at_paragraphs_then_lines_then_sentences_then_words() -> None:
    paragraphs = "First paragraph here.\n\nSecond paragraph, longer than the first one."
    assert split_message(paragraphs, 50) == [
        "First paragraph here.",
        "Second paragraph, longer than the first one.",
    ]
    sentences = "One sentence is here. Another one follows it. And a third."
    assert split_message(sentences, 48) == [
        "One sentence is here. Another one follows it.",
        "And a third.",
    ]
    words = "alpha beta gamma delta epsilon"
    assert split_message(words, 12) == ["alpha beta", "gamma delta", "epsilon"]
    assert split_message("x" * 25, 10) == ["x" * 10, "x" * 10, "x" * 5]


def test_a_code_block_is_not_cut_at_its_blank_lines() -> None:
    code = "```python\ndef a():\n    pass\n\n\ndef b():\n    pass\n```"
    text = f"Intro.\n\n{code}\n\nOutro text that is long enough."
    parts = split_message(text, len("Intro.\n\n") + len(code) + 5)
    assert parts[0] == f"Intro.\n\n{code}"


@pytest.mark.parametrize("limit", [7, 50, 300, 4096])
def test_every_part_fits_and_nothing_is_lost(limit: int) -> None:
    text = ("Sentence number one. " * 40 + "\n\n") * 5 + "averyveryverylongwordwithoutspaces" * 5
    parts = split_message(text, limit)
    assert all(0 < len(part) <= limit for part in parts)
    assert "".join("".join(parts).split()) == "".join(text.split())


def test_markdown_becomes_telegram_html_with_everything_else_escaped() -> None:
    html = markdown_to_telegram_html(
        "# Menu\n\n**Soup** & *bread* <br> `a<b`\n\n- one\n- two\n\n"
        "[site](https://example.org) [local](/kins/1)\n\n```py\nx < 1\n```"
    )
    assert html == (
        "<b>Menu</b>\n\n<b>Soup</b> &amp; <i>bread</i> &lt;br&gt; <code>a&lt;b</code>\n\n"
        "• one\n• two\n\n"
        '<a href="https://example.org">site</a> local\n\n'
        '<pre><code class="language-py">x &lt; 1</code></pre>'
    )


def test_notices_speak_the_persons_language_or_both() -> None:
    assert language_of("fr-CA") == "fr"
    assert language_of("de") is None
    assert "Mon compte" in pairing_text("ABCD-2345", 3600, "fr")
    both = pairing_text("ABCD-2345", 3600, None)
    assert "My account" in both and "Mon compte" in both and "60 minutes" in both
    assert failed_text("Chef", "en") == "Sorry, Chef could not answer this time. Try again later."
