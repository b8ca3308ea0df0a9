"""A wait's delivery inside the channel's write transaction: the wait's room, the presence, a
command handed over again or claimed, and where a joining agent's waits start, on SQLite and
PostgreSQL."""

from __future__ import annotations

from datetime import timedelta

from romergo.services import Services
from storage.channels import DatabaseChannelLedger
from storage.channels.wait_checks import wait_statements
from storage.tables import ChannelMember, Command
from tests.storage.ledgers.channel_rows import NOW, a_command, a_room

WAITS = wait_statements("queued", "claimed", ("claimed", "working", "needs_confirmation"))
FINISHED = ("done", "failed")


async def test_the_wait_room_says_what_the_caller_holds_and_strangers_are_no_members(services: Services):
    ledger, room = DatabaseChannelLedger(services.db), await a_room(services.db)
    held = await a_command(services.db, room, 1, "working", claimed_by=room.client_id)
    async with services.db.write() as session:
        deliveries = ledger.deliveries(session, WAITS)
        mine = await deliveries.wait_room(room.channel_id, room.client_id)
        stranger = await deliveries.wait_room(room.channel_id, "a-stranger")
        assert await deliveries.wait_room("no-such-room", room.client_id) is None

    assert mine is not None and (mine.member, mine.held) == (room.client_id, held)
    assert mine.user_id == room.owner_id
    assert stranger is not None and stranger.member is None and stranger.held is None


async def test_a_held_command_is_handed_again_and_counted_at_the_commit(services: Services):
    ledger, room = DatabaseChannelLedger(services.db), await a_room(services.db)
    held = await a_command(services.db, room, 1, "claimed", claimed_by=room.client_id, deliveries=1)
    async with services.db.write() as session:
        command = await ledger.deliveries(session, WAITS).hand_again(held)
        assert command.deliveries == 2 and await ledger.deliveries(session, WAITS).command(held) is command
        assert await ledger.deliveries(session, WAITS).command("no-such-command") is None

    async with services.db.read() as session:
        stored = await session.get(Command, held)
    assert stored is not None and stored.deliveries == 2


async def test_a_claim_takes_the_oldest_queued_for_the_caller_and_then_nothing(services: Services):
    ledger, room = DatabaseChannelLedger(services.db), await a_room(services.db)
    await a_command(services.db, room, 1, reserved_for="someone-else")
    mine = await a_command(services.db, room, 2)
    async with services.db.write() as session:
        deliveries = ledger.deliveries(session, WAITS)
        claimed = await deliveries.claim(room.channel_id, room.client_id, 0, NOW)
        again = await deliveries.claim(room.channel_id, room.client_id, 0, NOW)

    assert claimed is not None and (claimed.id, claimed.state) == (mine, "claimed")
    assert claimed.claimed_by == room.client_id
    assert again is None


async def test_a_joining_agent_starts_after_its_last_finished_else_before_the_next(services: Services):
    ledger, room = DatabaseChannelLedger(services.db), await a_room(services.db)
    await a_command(services.db, room, 3, "queued")
    async with services.db.write() as session:
        deliveries = ledger.deliveries(session, WAITS)
        assert await deliveries.last_finished(room.channel_id, room.client_id, FINISHED) is None
        assert await deliveries.oldest_queued(room.channel_id, room.client_id) == 3
        assert await deliveries.oldest_queued(room.channel_id, "a-stranger") == 3
    await a_command(services.db, room, 1, "done", claimed_by=room.client_id)
    await a_command(services.db, room, 2, "failed", claimed_by=room.client_id)
    async with services.db.write() as session:
        deliveries = ledger.deliveries(session, WAITS)
        assert await deliveries.last_finished(room.channel_id, room.client_id, FINISHED) == 2
        assert await deliveries.last_finished(room.channel_id, "a-stranger", FINISHED) is None


async def test_the_presence_and_the_membership_are_kept_and_read(services: Services):
    ledger, room = DatabaseChannelLedger(services.db), await a_room(services.db)
    async with services.db.write() as session:
        deliveries = ledger.deliveries(session, WAITS)
        await deliveries.listening(room.channel_id, room.client_id, NOW, None)
        channel, member = await deliveries.room_and_member(room.channel_id, room.client_id)
        _, no_member = await deliveries.room_and_member(room.channel_id, "a-stranger")
        assert await deliveries.room_and_member("no-such-room", room.client_id) == (None, None)
        assert await deliveries.member(room.channel_id, room.client_id) is member
        await deliveries.listening(room.channel_id, room.client_id, NOW, NOW + timedelta(seconds=30))

    assert channel is not None and channel.id == room.channel_id and no_member is None
    async with services.db.read() as session:
        stored = await session.get(ChannelMember, (room.channel_id, room.client_id))
    assert stored is not None and stored.polling_until is not None
