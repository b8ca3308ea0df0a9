"""An agent's report on the driver: the command read with its owner and the caller's membership,
the revisions recorded for it, and the scene a line lies in, on SQLite and PostgreSQL."""

from __future__ import annotations

from datetime import timedelta

from romergo.services import Services
from storage.channels.reports import (
    ReportedCommand,
    recorded_for_on_driver,
    reported_on_driver,
    scene_of,
    scene_of_on_driver,
)
from storage.driver import Rows
from storage.tables import ChannelMember, DialogueLine
from tests.storage.ledgers.channel_rows import NOW, a_command, a_revision, a_room, a_scene

PLACES = scene_of((("dialogue_line", "scene_id"),))


async def test_the_reported_command_comes_with_its_owner_and_the_callers_membership(services: Services):
    room = await a_room(services.db)
    ident = await a_command(services.db, room, 1, "working", claimed_by=room.client_id)
    async with services.db.write() as session:
        session.add(
            ChannelMember(
                channel_id=room.channel_id,
                client_id="gone",
                agent_name="Gone",
                joined_at=NOW,
                last_seen_at=NOW,
                left_at=NOW + timedelta(minutes=1),
                left_reason="left",
            )
        )

    def read(rows: Rows) -> tuple[ReportedCommand | None, ...]:
        return (
            reported_on_driver(rows, ident, room.client_id),
            reported_on_driver(rows, ident, "gone"),
            reported_on_driver(rows, ident, "a-stranger"),
            reported_on_driver(rows, "no-such-command", room.client_id),
        )

    member, left, stranger, missing = await services.db.read_rows(read)

    assert member is not None and (member.id, member.state) == (ident, "working")
    assert member.channel_id == room.channel_id
    assert (member.claimed_by, member.owner, member.member, member.left_at) == (
        room.client_id,
        room.owner_id,
        room.client_id,
        None,
    )
    assert left is not None and left.member == "gone" and left.left_at is not None
    assert stranger is not None and stranger.member is None and stranger.owner == room.owner_id
    assert missing is None


async def test_a_commands_revisions_come_oldest_first_and_only_its_own(services: Services):
    room = await a_room(services.db)
    ident = await a_command(services.db, room, 1)
    await a_revision(services.db, room, ("scene", "s1"), None, {"title": "First"}, ident, NOW)
    await a_revision(services.db, room, ("scene", "s1"), {"title": "First"}, {"title": "Then"}, ident, NOW)
    await a_revision(services.db, room, ("scene", "s2"), None, {"title": "Elsewhere"}, None, NOW)

    recorded = await services.db.read_rows(lambda rows: recorded_for_on_driver(rows, ident))
    nothing = await services.db.read_rows(lambda rows: recorded_for_on_driver(rows, "no-such-command"))

    assert [(row.entity_id, row.action, row.after) for row in recorded] == [
        ("s1", "create", {"title": "First"}),
        ("s1", "update", {"title": "Then"}),
    ]
    assert nothing == []


async def test_a_line_is_found_in_its_scene_and_a_gone_one_in_none(services: Services):
    room = await a_room(services.db)
    await a_scene(services.db, room, "scene-1", "early-writer")
    async with services.db.write() as session:
        session.add(
            DialogueLine(
                id="line-1",
                scene_id="scene-1",
                project_id=room.project_id,
                text="Hello",
                position=1,
                created_at=NOW,
                updated_at=NOW,
            )
        )

    async def scene_of_line(line_id: str) -> str | None:
        return await services.db.read_rows(
            lambda rows: scene_of_on_driver(rows, PLACES, "dialogue_line", line_id)
        )

    found, gone = await scene_of_line("line-1"), await scene_of_line("line-0")

    assert (found, gone) == ("scene-1", None)
    assert scene_of((("dialogue_line", "scene_id"),)) is PLACES  # built once
