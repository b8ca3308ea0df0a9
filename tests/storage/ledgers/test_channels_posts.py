"""A command posted on the driver: the room's number taken or read, the command and its event
written under it, and on PostgreSQL all of it in one statement that refuses a room no longer live,
on SQLite and PostgreSQL."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from sqlmodel import col, select

from romergo.services import Services
from storage.channels.posts import (
    numbered_room_on_driver,
    post_at_once_on_driver,
    posting_room_on_driver,
    write_post_on_driver,
)
from storage.tables import Channel, ChannelEvent, Command
from tests.storage.ledgers.channel_rows import NOW, Room, a_room


def command_row(room: Room, seq: int) -> dict[str, Any]:
    return Command(
        id=f"cmd-{seq}",
        channel_id=room.channel_id,
        seq=seq,
        text="Tidy the opening",
        context={"page": "scene"},
        state="queued",
        created_at=NOW,
        last_activity_at=NOW,
    ).model_dump()


def event_columns(room: Room, command_id: str) -> tuple[dict[str, Any], dict[str, Any]]:
    shared = {
        "channel_id": room.channel_id,
        "command_id": command_id,
        "actor_type": "user",
        "actor_id": room.owner_id,
        "actor_name": "writer",
        "at": NOW,
    }
    return shared, {"kind": "command", "data": {"text": "Tidy the opening"}}


async def written(services: Services, room: Room) -> tuple[list[tuple[str, int]], list[tuple[int, str]]]:
    async with services.db.read() as session:
        commands = await session.exec(select(Command).where(Command.channel_id == room.channel_id))
        events = await session.exec(
            select(ChannelEvent)
            .where(ChannelEvent.channel_id == room.channel_id)
            .order_by(col(ChannelEvent.seq))
        )
        return [(c.id, c.seq) for c in commands], [(e.seq, e.kind) for e in events]


async def test_a_post_takes_the_rooms_next_number_and_writes_the_command_and_its_event(
    services: Services,
):
    room, other = await a_room(services.db), await a_room(services.db, "rival")

    def post(rows: Any) -> tuple[Any, Any, Any]:
        read = posting_room_on_driver(rows, room.owner_id, room.channel_id)
        numbered = numbered_room_on_driver(rows, room.owner_id, room.channel_id)
        assert numbered is not None
        shared, own = event_columns(room, "cmd-1")
        write_post_on_driver(rows, command_row(room, numbered.seq), shared, own)
        stranger = numbered_room_on_driver(rows, other.owner_id, room.channel_id)
        return read, numbered, stranger

    read, numbered, stranger = await services.db.write_rows(post)

    assert read is not None and read.seq == 0 and read.owner_name == "writer"
    assert numbered.seq == 1 and numbered.id == room.channel_id and numbered.expires_at > NOW
    assert stranger is None
    assert await written(services, room) == ([("cmd-1", 1)], [(1, "command")])
    unknown = await services.db.read_rows(lambda rows: posting_room_on_driver(rows, room.owner_id, "no-room"))
    assert unknown is None


@pytest.mark.parametrize(
    "database", ["postgresql"]
)  # SQLite has no data-modifying CTEs: its post takes the statements above
async def test_on_postgresql_a_post_at_once_writes_under_the_next_number_or_not_at_all(services: Services):
    room = await a_room(services.db)
    shared, own = event_columns(room, "cmd-1")

    async def at_once(seq: int, user_id: str = room.owner_id, now: Any = NOW) -> int | None:
        command = command_row(room, seq) | {"id": f"cmd-{seq}"}
        event = shared | own | {"command_id": f"cmd-{seq}"}
        return await services.db.statements_alone(
            lambda rows: post_at_once_on_driver(rows, user_id, now, command, event, None)
        )

    assert await at_once(1) == 1
    assert await at_once(2, user_id="a-stranger") is None
    assert await at_once(3, now=NOW + timedelta(days=2)) is None  # the room ran out by then
    async with services.db.write() as session:
        channel = await session.get(Channel, room.channel_id)
        assert channel is not None
        channel.ended_at, channel.end_reason = NOW, "ended"
        session.add(channel)
    assert await at_once(4) is None
    assert await written(services, room) == ([("cmd-1", 1)], [(1, "command")])
