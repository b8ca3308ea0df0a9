"""The channel wire shapes: read from the core's views, times as ISO 8601 UTC with a `Z`."""

from __future__ import annotations

from datetime import UTC, datetime

from romergo.channels import wire
from romergo.channels.models import ChannelView, EventView, MemberView

AT = datetime(2026, 1, 2, 3, 4, 5, 123456, tzinfo=UTC)


def channel_view(code: str | None) -> ChannelView:
    member = MemberView("cli_1", "Night shift", AT, None, datetime(2026, 1, 2), True, None)
    return ChannelView("chn_1", "prj_1", {"read": True}, "none", "live", AT, 3, [member], code)


def test_a_channel_shows_its_code_only_when_there_is_one():
    shown = wire.channel(channel_view(None))
    assert "code" not in shown
    assert shown["expires_at"] == "2026-01-02T03:04:05.123Z"
    assert shown["members"][0]["left_at"] is None
    assert shown["members"][0]["last_seen_at"] == "2026-01-02T00:00:00.000Z"
    assert wire.channel(channel_view("rmg-abc"))["code"] == "rmg-abc"


def test_an_event_nests_its_actor():
    view = EventView(7, "reply", "cmd_1", AT, "agent", "cli_1", "Night shift", {"text": "done"})
    assert wire.event(view) == {
        "seq": 7,
        "kind": "reply",
        "command_id": "cmd_1",
        "at": "2026-01-02T03:04:05.123Z",
        "actor": {"type": "agent", "id": "cli_1", "name": "Night shift"},
        "data": {"text": "done"},
    }
