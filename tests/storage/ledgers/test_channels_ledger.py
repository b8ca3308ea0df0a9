"""The channel ledger's presence, command numbers and owner's reads, on SQLite and PostgreSQL."""

from __future__ import annotations

from datetime import timedelta

from romergo.services import Services
from storage.channels import DatabaseChannelLedger
from storage.tables import ChannelMember
from tests.storage.ledgers.channel_rows import NOW, Room, a_command, a_room


async def test_a_cleared_presence_is_no_longer_listening_and_was_last_seen_then(services: Services):
    ledger, room = DatabaseChannelLedger(services.db), await a_room(services.db)
    seen = NOW + timedelta(seconds=3)

    assert await ledger.clear_presence(room.channel_id, room.client_id, seen)

    member = await _member(services, room)
    assert member.polling_until is None
    assert member.last_seen_at.replace(tzinfo=None) == seen.replace(tzinfo=None)


async def test_a_late_clear_keeps_the_presence_of_a_later_wait(services: Services):
    ledger, room = DatabaseChannelLedger(services.db), await a_room(services.db)
    # The member listens until NOW + 30 s: a wait that ran out at NOW + 10 s is not the newest.
    ran_out = NOW + timedelta(seconds=10)

    assert not await ledger.clear_presence(room.channel_id, room.client_id, ran_out, ran_out)
    assert (await _member(services, room)).polling_until is not None

    assert await ledger.clear_presence(room.channel_id, room.client_id, ran_out, NOW + timedelta(seconds=30))
    assert (await _member(services, room)).polling_until is None


async def test_clearing_the_presence_of_an_agent_not_in_the_room_clears_nothing(services: Services):
    ledger, room = DatabaseChannelLedger(services.db), await a_room(services.db)

    assert not await ledger.clear_presence(room.channel_id, "a-stranger", NOW)
    assert not await ledger.clear_presence("no-such-room", room.client_id, NOW)
    assert (await _member(services, room)).polling_until is not None


async def test_a_command_is_numbered_among_its_own_rooms_commands_only(services: Services):
    ledger = DatabaseChannelLedger(services.db)
    room, other = await a_room(services.db), await a_room(services.db, "rival")
    for seq in (2, 5, 9):  # event numbers: commands are interleaved with other events
        await a_command(services.db, room, seq)
    await a_command(services.db, other, 1)

    assert [await ledger.command_number(room.channel_id, seq) for seq in (2, 5, 9)] == [1, 2, 3]
    assert await ledger.command_number(other.channel_id, 1) == 1
    assert await ledger.command_number(room.channel_id, 1) == 0


async def test_the_state_of_a_command_is_told_to_its_owner_only(services: Services):
    ledger = DatabaseChannelLedger(services.db)
    room, other = await a_room(services.db), await a_room(services.db, "rival")
    command = await a_command(services.db, room, 1, state="claimed")

    assert await ledger.owned_command_state(room.owner_id, command) == "claimed"
    assert await ledger.owned_command_state(other.owner_id, command) is None
    assert await ledger.owned_command_state(room.owner_id, "no-such-command") is None
    assert await ledger.owned_command_state(room.owner_id, "") is None


async def _member(services: Services, room: Room) -> ChannelMember:
    async with services.db.read() as session:
        member = await session.get(ChannelMember, (room.channel_id, room.client_id))
    assert member is not None
    return member
