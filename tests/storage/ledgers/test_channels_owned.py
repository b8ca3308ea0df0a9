"""The owner's rooms and commands as the channel ledger finds them inside a transaction (a room, a
command with its room, the room's last number, what a room's view shows, its events after a
number), and a command with its room on the driver, on SQLite and PostgreSQL."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from romergo.services import Services
from storage.channels import DatabaseChannelLedger, RoomRecord
from storage.channels.owned import command_with_room_on_driver
from storage.channels.posts import numbered_room_on_driver
from storage.channels.records import CommandRecord
from storage.tables import Channel, ChannelEvent, ChannelMember, Project
from tests.storage.ledgers.channel_rows import NOW, a_command, a_room


async def test_a_room_comes_as_its_record_with_its_commands_and_strangers_are_none(
    services: Services,
):
    ledger, room = DatabaseChannelLedger(services.db), await a_room(services.db)
    ident = await a_command(services.db, room, 1)
    async with services.db.read() as session:
        owned = ledger.owned(session)
        channel = await owned.room(room.channel_id)
        found = await owned.command_with_room(ident)
        assert await owned.room("no-such-room") is None
        assert await owned.command_with_room("no-such-command") is None

    assert isinstance(channel, RoomRecord) and channel.user_id == room.owner_id
    assert channel.permissions == {"read": True} and channel.ended_at is None
    assert found is not None and found[0].id == ident and found[1] == channel
    assert isinstance(found[0], CommandRecord) and found[0].state == "queued"


async def test_the_latest_number_is_the_rooms_last_event_number(services: Services):
    ledger = DatabaseChannelLedger(services.db)
    room, other = await a_room(services.db), await a_room(services.db, "rival")

    def two_posts(rows: Any) -> None:
        numbered_room_on_driver(rows, room.owner_id, room.channel_id)
        numbered_room_on_driver(rows, room.owner_id, room.channel_id)

    await services.db.write_rows(two_posts)

    async with services.db.read() as session:
        assert await ledger.owned(session).latest_seq(room.channel_id) == 2
        assert await ledger.owned(session).latest_seq(other.channel_id) == 0


async def test_a_name_is_the_accounts_or_none(services: Services):
    ledger, room = DatabaseChannelLedger(services.db), await a_room(services.db)
    async with services.db.read() as session:
        assert await ledger.owned(session).username(room.owner_id) == "writer"
        assert await ledger.owned(session).username("no-such-user") is None


async def test_a_rooms_view_lists_its_members_as_they_joined_and_its_commands_in_the_states_asked(
    services: Services,
):
    ledger, room = DatabaseChannelLedger(services.db), await a_room(services.db)
    async with services.db.write() as session:
        session.add(
            ChannelMember(
                channel_id=room.channel_id,
                client_id="earlier",
                agent_name="Earlier",
                joined_at=NOW - timedelta(hours=1),
                last_seen_at=NOW,
                left_at=NOW,
                left_reason="left",
            )
        )
    held = await a_command(services.db, room, 1, "working", claimed_by=room.client_id)
    await a_command(services.db, room, 2, "queued")
    await a_command(services.db, room, 3, "done")
    async with services.db.read() as session:
        owned = ledger.owned(session)
        members = await owned.members(room.channel_id)
        commands = await owned.commands_in(room.channel_id, ("claimed", "working"))
        assert await owned.members("no-such-room") == []

    assert [(m.client_id, m.left_reason) for m in members] == [("earlier", "left"), (room.client_id, None)]
    assert [(c.id, c.claimed_by) for c in commands] == [(held, room.client_id)]


async def test_events_after_a_number_come_in_order_up_to_the_limit(services: Services):
    ledger, room = DatabaseChannelLedger(services.db), await a_room(services.db)
    async with services.db.write() as session:
        for seq in (3, 1, 2, 4):
            session.add(
                ChannelEvent(
                    channel_id=room.channel_id,
                    seq=seq,
                    kind="note",
                    actor_type="system",
                    actor_id="romergo",
                    actor_name="Romergo",
                    data={"seq": seq},
                    at=NOW,
                )
            )
    async with services.db.read() as session:
        owned = ledger.owned(session)
        page = await owned.events_after(room.channel_id, 1, 2)
        rest = await owned.events_after(room.channel_id, 3, 10)
        assert await owned.events_after(room.channel_id, 4, 10) == []

    assert [(event.seq, event.data) for event in page] == [(2, {"seq": 2}), (3, {"seq": 3})]
    assert [event.seq for event in rest] == [4]


async def test_on_the_driver_a_command_comes_with_its_room_in_one_read(services: Services):
    room = await a_room(services.db)
    ident = await a_command(services.db, room, 1)
    found = await services.db.read_rows(lambda rows: command_with_room_on_driver(rows, ident))
    missing = await services.db.read_rows(lambda rows: command_with_room_on_driver(rows, "no-such-command"))

    assert missing is None and found is not None
    command, channel = found
    assert (command.id, command.state, channel.id, channel.user_id) == (
        ident,
        "queued",
        room.channel_id,
        room.owner_id,
    )
    assert isinstance(channel, RoomRecord) and channel.permissions == {"read": True}
    assert isinstance(command, CommandRecord)


async def test_the_owners_rooms_on_a_project_come_newest_first(services: Services):
    ledger = DatabaseChannelLedger(services.db)
    room, other = await a_room(services.db), await a_room(services.db, "rival")
    async with services.db.write() as session:
        newer = await session.get(Channel, room.channel_id)
        assert newer is not None
        session.add(
            Channel(
                id="ch-older",
                user_id=room.owner_id,
                project_id=room.project_id,
                code_hash="hash-older",
                code_issued_at=NOW,
                permissions={},
                confirmation_mode="never",
                created_at=NOW - timedelta(days=1),
                expires_at=NOW,
            )
        )
    async with services.db.read() as session:
        owned = ledger.owned(session)
        mine = await owned.rooms_of_project(room.owner_id, room.project_id)
        assert await owned.rooms_of_project(other.owner_id, room.project_id) == []

    assert [channel.id for channel in mine] == [room.channel_id, "ch-older"]


async def test_a_project_is_the_owners_while_it_is_not_deleted(services: Services):
    ledger = DatabaseChannelLedger(services.db)
    room, other = await a_room(services.db), await a_room(services.db, "rival")
    async with services.db.read() as session:
        owned = ledger.owned(session)
        assert await owned.owns_project(room.owner_id, room.project_id) is True
        assert await owned.owns_project(other.owner_id, room.project_id) is False
        assert await owned.owns_project(room.owner_id, "no-such-project") is False
    async with services.db.write() as session:
        deleted = await session.get(Project, room.project_id)
        assert deleted is not None
        deleted.deleted_at = NOW
        session.add(deleted)

    async with services.db.read() as session:
        assert await ledger.owned(session).owns_project(room.owner_id, room.project_id) is False
