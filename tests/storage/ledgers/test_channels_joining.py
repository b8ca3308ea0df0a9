"""What a join, a leave and a report read and change through the channel ledger, on SQLite and
PostgreSQL: the room by its code, the project's title, the latest events, a membership admitted
or left, a command with its room and the reporter's membership."""

from __future__ import annotations

from datetime import timedelta

from romergo.services import Services
from storage.channels import DatabaseChannelLedger
from storage.tables import ChannelEvent, ChannelMember
from tests.storage.ledgers.channel_rows import NOW, Room, a_room


async def test_a_room_is_found_by_its_id_and_by_its_codes_hash_only(services: Services):
    ledger, room = DatabaseChannelLedger(services.db), await a_room(services.db)
    async with services.db.read() as session:
        rooms = ledger.rooms(session)
        by_id, by_code = await rooms.room(room.channel_id), await rooms.room_by_code("hash-writer")
        assert await rooms.room("no-such-room") is None
        assert await rooms.room_by_code("hash-of-another-code") is None
        assert await rooms.project_title(room.project_id) == "Tides"
        assert await rooms.project_title("no-such-project") is None

    assert by_id == by_code and by_id is not None
    assert (by_id.user_id, by_id.project_id, by_id.confirmation_mode) == (
        room.owner_id,
        room.project_id,
        "never",
    )
    assert by_id.code_issued_at.replace(tzinfo=None) == NOW.replace(tzinfo=None)


async def test_the_latest_events_come_newest_first_and_no_more_than_asked(services: Services):
    ledger, room = DatabaseChannelLedger(services.db), await a_room(services.db)
    async with services.db.write() as session:
        for seq in range(1, 5):
            session.add(
                ChannelEvent(
                    channel_id=room.channel_id,
                    seq=seq,
                    kind="status",
                    actor_type="agent",
                    actor_id=room.client_id,
                    actor_name="Scribe",
                    data={"text": f"step {seq}"},
                    at=NOW + timedelta(seconds=seq),
                )
            )

    async with services.db.read() as session:
        rooms = ledger.rooms(session)
        latest = await rooms.latest_events(room.channel_id, 3)
        assert await rooms.latest_events("no-such-room", 3) == []

    assert [(e.seq, e.data["text"]) for e in latest] == [(4, "step 4"), (3, "step 3"), (2, "step 2")]


async def test_a_new_agent_is_admitted_and_one_that_left_comes_back(services: Services):
    ledger, room = DatabaseChannelLedger(services.db), await a_room(services.db)
    later = NOW + timedelta(hours=1)
    async with services.db.write() as session:
        rooms = ledger.rooms(session)
        await rooms.admit(room.channel_id, "newcomer", "Muse", later, joined_before=False)
        await rooms.member_left(room.channel_id, room.client_id, later)
        left = await rooms.member(room.channel_id, room.client_id)

    assert (
        left is not None and left.left_reason == "left" and left.polling_until is not None
    )  # still ran out by itself
    async with services.db.write() as session:
        rooms = ledger.rooms(session)
        assert await rooms.member(room.channel_id, room.client_id) is not None
        await rooms.admit(room.channel_id, room.client_id, "Scribe II", later, joined_before=True)

    newcomer, back = await _member(services, room, "newcomer"), await _member(services, room, room.client_id)
    assert (newcomer.agent_name, newcomer.left_at) == ("Muse", None)
    assert newcomer.joined_at.replace(tzinfo=None) == later.replace(tzinfo=None)
    assert (back.agent_name, back.left_at, back.left_reason) == ("Scribe II", None, None)
    assert back.joined_at.replace(tzinfo=None) == NOW.replace(tzinfo=None)  # a return keeps its first join
    assert back.last_seen_at.replace(tzinfo=None) == later.replace(tzinfo=None)


async def _member(services: Services, room: Room, client_id: str) -> ChannelMember:
    async with services.db.read() as session:
        member = await session.get(ChannelMember, (room.channel_id, client_id))
    assert member is not None
    return member
