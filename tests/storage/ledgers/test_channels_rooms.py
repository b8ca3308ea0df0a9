"""Rooms, members and commands as the channel ledger keeps them inside a transaction (the sweeper,
a revocation, a removal), on SQLite and PostgreSQL."""

from __future__ import annotations

from datetime import timedelta

from romergo.services import Services
from storage.channels import DatabaseChannelLedger
from storage.tables import Channel, ChannelEvent, ChannelMember
from tests.storage.ledgers.channel_rows import NOW, a_command, a_room

HELD = ("claimed", "working", "needs_confirmation")


async def test_a_member_is_found_left_or_not_and_a_stranger_is_not(services: Services):
    ledger, room = DatabaseChannelLedger(services.db), await a_room(services.db)
    async with services.db.write() as session:
        rooms = ledger.rooms(session)
        member = await rooms.member(room.channel_id, room.client_id)
        await rooms.end_membership(room.channel_id, room.client_id, NOW, "left")
        left = await rooms.member(room.channel_id, room.client_id)
        assert await rooms.member(room.channel_id, "a-stranger") is None
        assert await rooms.member("no-such-room", room.client_id) is None

    assert member is not None and member.agent_name == "Scribe" and member.left_at is None
    assert left is not None and left.left_reason == "left"


async def test_an_ended_membership_is_written_at_once_and_no_longer_listens(services: Services):
    ledger, room = DatabaseChannelLedger(services.db), await a_room(services.db)
    out_at = NOW + timedelta(minutes=1)
    async with services.db.write() as session:
        rooms = ledger.rooms(session)
        await rooms.end_membership(room.channel_id, room.client_id, out_at, "revoked")
        assert await rooms.present_in_owners_rooms(room.owner_id, room.client_id) == []

    async with services.db.read() as session:
        stored = await session.get(ChannelMember, (room.channel_id, room.client_id))
    assert stored is not None and stored.left_reason == "revoked" and stored.polling_until is None
    assert stored.left_at is not None and stored.left_at.replace(tzinfo=None) == out_at.replace(tzinfo=None)


async def test_a_clients_memberships_are_listed_in_this_owners_rooms_ended_or_not(services: Services):
    ledger = DatabaseChannelLedger(services.db)
    room, other = await a_room(services.db), await a_room(services.db, "rival")
    async with services.db.write() as session:
        ended = await session.get(Channel, room.channel_id)
        assert ended is not None
        ended.ended_at, ended.end_reason = NOW, "ended"
        session.add(ended)

    async with services.db.read() as session:
        rooms = ledger.rooms(session)
        mine = await rooms.present_in_owners_rooms(room.owner_id, room.client_id)
        theirs_in_my_rooms = await rooms.present_in_owners_rooms(room.owner_id, other.client_id)

    [(member, channel)] = mine
    assert (member.client_id, channel.id, channel.end_reason) == (room.client_id, room.channel_id, "ended")
    assert channel.permissions == {"read": True} and channel.project_id == room.project_id
    assert theirs_in_my_rooms == []


async def test_the_commands_a_client_holds_are_its_own_in_the_given_states(services: Services):
    ledger, room = DatabaseChannelLedger(services.db), await a_room(services.db)
    held = await a_command(services.db, room, 1, "working", claimed_by=room.client_id)
    await a_command(services.db, room, 2, "replied", claimed_by=room.client_id)
    await a_command(services.db, room, 3, "claimed", claimed_by="another-agent")
    await a_command(services.db, room, 4, "queued")

    async with services.db.read() as session:
        found = await ledger.rooms(session).commands_held(room.channel_id, room.client_id, HELD)

    assert [(c.id, c.state, c.claimed_by) for c in found] == [(held, "working", room.client_id)]


async def test_silent_commands_are_those_quiet_since_the_moment_in_every_room(services: Services):
    ledger = DatabaseChannelLedger(services.db)
    room, other = await a_room(services.db), await a_room(services.db, "rival")
    quiet_since = NOW + timedelta(minutes=5)
    silent = await a_command(services.db, room, 1, "claimed", last_activity_at=NOW)
    silent_elsewhere = await a_command(services.db, other, 1, "working", last_activity_at=NOW)
    await a_command(services.db, room, 2, "working", last_activity_at=quiet_since)  # not before it
    await a_command(services.db, room, 3, "needs_confirmation", last_activity_at=NOW)
    await a_command(services.db, room, 4, "claimed")  # no activity recorded at all

    async with services.db.read() as session:
        found = await ledger.rooms(session).silent_commands(("claimed", "working"), quiet_since)

    assert {c.id for c in found} == {silent, silent_elsewhere}


async def test_rooms_run_out_are_those_not_ended_whose_time_is_up(services: Services):
    ledger = DatabaseChannelLedger(services.db)
    room, ended = await a_room(services.db), await a_room(services.db, "rival")
    await a_room(services.db, "later")
    async with services.db.write() as session:
        ended_room = await session.get(Channel, ended.channel_id)
        assert ended_room is not None
        ended_room.ended_at, ended_room.end_reason = NOW, "ended"
        session.add(ended_room)

    async with services.db.read() as session:
        rooms = ledger.rooms(session)
        at_expiry = await rooms.rooms_run_out(NOW + timedelta(days=1))
        before = await rooms.rooms_run_out(NOW)

    assert {r.id for r in at_expiry} == {room.channel_id, "ch-later"}
    assert before == []


async def test_an_actors_events_of_a_kind_are_counted_from_a_moment_on(services: Services):
    ledger, room = DatabaseChannelLedger(services.db), await a_room(services.db)
    since = NOW + timedelta(minutes=1)
    async with services.db.write() as session:
        for seq, (kind, actor, at) in enumerate(
            [
                ("tool_blocked", room.client_id, NOW),  # before
                ("tool_blocked", room.client_id, since),  # from `since` on: counted
                ("tool_blocked", room.client_id, since + timedelta(seconds=1)),
                ("tool_blocked", "another-agent", since),
                ("tool_finished", room.client_id, since),
            ],
            start=1,
        ):
            session.add(
                ChannelEvent(
                    channel_id=room.channel_id,
                    seq=seq,
                    kind=kind,
                    actor_type="agent",
                    actor_id=actor,
                    actor_name="Scribe",
                    at=at,
                )
            )

    async with services.db.read() as session:
        rooms = ledger.rooms(session)
        counted = await rooms.events_by_since(room.channel_id, "tool_blocked", room.client_id, since)
        elsewhere = await rooms.events_by_since("no-such-room", "tool_blocked", room.client_id, since)

    assert (counted, elsewhere) == (2, 0)
