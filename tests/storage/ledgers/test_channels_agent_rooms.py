"""An agent's rooms as its tool calls read them on the driver: every room of an owner it joined,
the rooms a call's checks need, and the commands it holds in a room, on SQLite and PostgreSQL."""

from __future__ import annotations

from datetime import datetime, timedelta

from romergo.services import Services
from storage.channels import MembershipRecord, RoomRecord
from storage.channels.agent_rooms import (
    current_rooms_on_driver,
    held_on_driver,
    held_statement,
    joined_rooms_on_driver,
)
from storage.channels.records import CommandRecord
from storage.tables import Channel, ChannelMember
from tests.storage.ledgers.channel_rows import NOW, Room, a_command, a_room

HELD = held_statement(("claimed", "working"))


async def a_second_room(services: Services, room: Room, ident: str, created: int, ended: bool) -> None:
    """Another room of the same owner on the same project, the same agent in it."""
    async with services.db.write() as session:
        session.add(
            Channel(
                id=ident,
                user_id=room.owner_id,
                project_id=room.project_id,
                code_hash=f"hash-{ident}",
                code_issued_at=NOW,
                permissions={"read": True},
                confirmation_mode="never",
                created_at=NOW + timedelta(minutes=created),
                expires_at=NOW + timedelta(days=1),
                ended_at=NOW if ended else None,
                end_reason="ended" if ended else None,
            )
        )
        await session.flush()
        session.add(
            ChannelMember(
                channel_id=ident,
                client_id=room.client_id,
                agent_name="Scribe",
                joined_at=NOW,
                last_seen_at=NOW,
            )
        )


async def test_every_joined_room_comes_newest_first_and_only_this_owners(services: Services):
    room = await a_room(services.db)
    await a_second_room(services, room, "ch-later", 5, ended=True)
    joined = await services.db.read_rows(
        lambda rows: joined_rooms_on_driver(rows, room.owner_id, room.client_id)
    )
    strangers = await services.db.read_rows(
        lambda rows: joined_rooms_on_driver(rows, "u-other", room.client_id)
    )

    assert [(channel.id, member.client_id) for channel, member in joined] == [
        ("ch-later", room.client_id),
        (room.channel_id, room.client_id),
    ]
    assert strangers == []
    later, member = joined[0]
    assert isinstance(later, RoomRecord) and (later.ended_at, later.end_reason) == (NOW, "ended")
    assert later.permissions == {"read": True} and later.project_id == room.project_id
    assert member == MembershipRecord(
        channel_id="ch-later",
        client_id=room.client_id,
        agent_name="Scribe",
        joined_at=NOW,
        left_at=None,
        last_seen_at=NOW,
        polling_until=None,
        left_reason=None,
    )


async def test_the_current_rooms_are_the_live_ones_and_the_newest_on_the_project(services: Services):
    room = await a_room(services.db)
    await a_second_room(services, room, "ch-ended-newest", 10, ended=True)
    await a_second_room(services, room, "ch-ended-older", 5, ended=True)

    async def current(project_id: str, now: datetime) -> list[str]:
        found = await services.db.read_rows(
            lambda rows: current_rooms_on_driver(rows, room.owner_id, room.client_id, project_id, now)
        )
        return [channel.id for channel, _ in found]

    assert await current(room.project_id, NOW) == ["ch-ended-newest", room.channel_id]
    assert await current("p-elsewhere", NOW) == [room.channel_id]
    assert await current(room.project_id, NOW + timedelta(days=2)) == ["ch-ended-newest"]


async def test_the_commands_held_are_those_in_the_states_asked(services: Services):
    room = await a_room(services.db)
    working = await a_command(services.db, room, 1, "working", claimed_by=room.client_id)
    await a_command(services.db, room, 2, "done", claimed_by=room.client_id)
    await a_command(services.db, room, 3, "claimed", claimed_by="someone-else")

    held = await services.db.read_rows(
        lambda rows: held_on_driver(rows, HELD, room.channel_id, room.client_id)
    )

    assert [(command.id, command.state) for command in held] == [(working, "working")]
    assert all(isinstance(command, CommandRecord) for command in held)
    assert held_statement(("claimed", "working")) is HELD
