"""Reading server-sent events' data from a streamed answer's bytes, however they are cut."""

from __future__ import annotations

import pytest

from kinbot_plugins.providers.chat_stream import EventData

STREAM = (
    b": a comment the server sends to keep the line open\r\n"
    b'data: {"n": 1}\r\n\r\n'
    b"event: message\n"
    b"id: 7\n"
    b"data:first line\n"
    b"data: second line\n"
    b"data\n"
    b"retry: 100\n\n"
    b"event: ping\r\r"
    b"data: [DONE]\r"
    b"\r"
    b"data: never finished"
)
EVENTS = [b'{"n": 1}', b"first line\nsecond line\n", b"[DONE]"]


def read(pieces: list[bytes]) -> list[bytes]:
    events = EventData()
    return [data for piece in pieces for data in events.feed(piece)]


def test_reads_each_events_data_and_skips_the_rest() -> None:
    assert read([STREAM]) == EVENTS


@pytest.mark.parametrize("cut", range(1, len(STREAM)))
def test_gives_the_same_events_wherever_the_bytes_are_cut(cut: int) -> None:
    assert read([STREAM[:cut], STREAM[cut:]]) == EVENTS


def test_gives_the_same_events_byte_by_byte() -> None:
    assert read([STREAM[i : i + 1] for i in range(len(STREAM))]) == EVENTS


def test_a_cr_then_lf_in_the_next_piece_ends_one_line_not_two() -> None:
    assert read([b"data: a\r", b"\ndata: b\r", b"\n", b"\r\n"]) == [b"a\nb"]
    assert read([b"data: a\r", b"\n", b"\n"]) == [b"a"]
