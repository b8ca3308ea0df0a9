"""Where a joining agent's waits start, and the caller's membership, inside the channel's write
transaction; and a held command handed over again in a wait's write on the driver; on SQLite and
PostgreSQL."""

from __future__ import annotations

from romergo.services import Services
from storage.channels import DatabaseChannelLedger
from storage.channels.wait_checks import hand_again_on_driver
from storage.tables import Command
from tests.storage.ledgers.channel_rows import a_command, a_room

FINISHED = ("done", "failed")


async def test_a_held_command_is_handed_again_and_counted_delivered_once_more(services: Services):
    room = await a_room(services.db)
    held = await a_command(services.db, room, 1, "claimed", claimed_by=room.client_id, deliveries=1)

    handed = await services.db.write_rows(lambda rows: hand_again_on_driver(rows, held))

    assert (handed.id, handed.state, handed.deliveries) == (held, "claimed", 2)
    async with services.db.read() as session:
        stored = await session.get(Command, held)
    assert stored is not None and stored.deliveries == 2


async def test_a_joining_agent_starts_after_its_last_finished_else_before_the_next(services: Services):
    ledger, room = DatabaseChannelLedger(services.db), await a_room(services.db)
    await a_command(services.db, room, 3, "queued")
    await a_command(services.db, room, 4, "queued", reserved_for="someone-else")
    async with services.db.write() as session:
        deliveries = ledger.deliveries(session)
        assert await deliveries.last_finished(room.channel_id, room.client_id, FINISHED) is None
        assert await deliveries.oldest_queued(room.channel_id, room.client_id, "queued") == 3
        assert await deliveries.oldest_queued(room.channel_id, "a-stranger", "queued") == 3
        assert await deliveries.oldest_queued(room.channel_id, room.client_id, "waiting") is None
    await a_command(services.db, room, 1, "done", claimed_by=room.client_id)
    await a_command(services.db, room, 2, "failed", claimed_by=room.client_id)
    async with services.db.write() as session:
        deliveries = ledger.deliveries(session)
        assert await deliveries.last_finished(room.channel_id, room.client_id, FINISHED) == 2
        assert await deliveries.last_finished(room.channel_id, "a-stranger", FINISHED) is None


async def test_the_room_and_the_membership_are_read(services: Services):
    ledger, room = DatabaseChannelLedger(services.db), await a_room(services.db)
    async with services.db.write() as session:
        deliveries = ledger.deliveries(session)
        channel, member = await deliveries.room_and_member(room.channel_id, room.client_id)
        _, no_member = await deliveries.room_and_member(room.channel_id, "a-stranger")
        assert await deliveries.room_and_member("no-such-room", room.client_id) == (None, None)
        assert await deliveries.member(room.channel_id, room.client_id) == member
        assert await deliveries.member(room.channel_id, "a-stranger") is None

    assert channel is not None and channel.id == room.channel_id and no_member is None
    assert member is not None and (member.channel_id, member.client_id) == (room.channel_id, room.client_id)
