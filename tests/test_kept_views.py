"""A Kin's window of message views, and its own view, are kept between turns; a message or a
Kin that changed in any way (content, status, a flag) is seen changed at the next turn."""

from __future__ import annotations

from kinbot_core.db.models import KinRecord, MessageRecord
from kinbot_core.kins.kept_views import KeptViews
from kinbot_core.kins.views import MessageView
from kinbot_core.platform import Platform
from tests.test_contacts import add_kin


def row(message_id: int, content: str = "Bonjour", status: str = "done") -> tuple[object, ...]:
    """A ``MESSAGE_COLUMNS`` row."""
    return (message_id, "kin", "user", "chat", "u1", "Nicolas", content, None, None, 0, status,
            None, 1.0, None, None, 0, None, None, 0, '{"stopped": false}', 0)  # fmt: skip


def test_equal_rows_keep_their_views_and_a_changed_row_gets_a_new_one() -> None:
    kept = KeptViews()
    first = kept.views("kin", [row(1), row(2), row(3)])
    assert first == [MessageView.from_row(row(n)) for n in (1, 2, 3)]
    second = kept.views("kin", [row(2), row(3, status="processing"), row(4)])
    assert second[0] is first[1]
    assert second[1] is not first[2] and second[1].status == "processing"
    assert second[2] == MessageView.from_row(row(4))
    assert kept.views("other", [row(2)])[0] is not first[1]  # each Kin its own


def test_only_the_latest_kins_windows_are_kept() -> None:
    kept = KeptViews(limit=2)
    views = {kin: kept.views(kin, [row(1)])[0] for kin in ("a", "b", "c")}
    assert kept.views("c", [row(1)])[0] is views["c"]
    assert kept.views("a", [row(1)])[0] is not views["a"]  # forgotten when "c" came


async def test_the_session_read_at_each_turn_follows_every_change(platform: Platform) -> None:
    kin = await add_kin(platform, "Chef")
    for text in ("Une question", "Une autre"):
        await platform.kins.add_message(kin, role="user", source="user", content=text)
    before = (await platform.compacting.session(kin, 200)).messages
    assert [view.content for view in before] == ["Une question", "Une autre"]
    await platform.db.write(
        lambda: (
            MessageRecord.update(content="Corrigée", redaction_pending=True)
            .where(MessageRecord.id == before[0].id)
            .execute()
        )
    )
    after = (await platform.compacting.session(kin, 200)).messages
    assert [(view.content, view.redaction_pending) for view in after] == [
        ("Corrigée", True),
        ("Une autre", False),
    ]
    assert after[1] is before[1]


async def test_a_kin_read_again_is_the_same_view_until_its_row_changes(
    platform: Platform,
) -> None:
    kin = await add_kin(platform, "Chef")
    first = await platform.kins.get(kin)
    assert await platform.kins.get(kin) is first
    await platform.db.write(
        lambda: (
            KinRecord.update(tools='["recall"]', state="thinking")
            .where(KinRecord.id == kin)
            .execute()
        )
    )
    changed = await platform.kins.get(kin)
    assert (changed.tools, changed.state) == (("recall",), "thinking")
    assert (await platform.kins.get(kin)) is changed
