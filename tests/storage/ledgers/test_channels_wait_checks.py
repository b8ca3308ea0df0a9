"""A wait's check on the driver: the room with the caller's membership and the command next in
line, the claim, the presence, and on PostgreSQL the claim with its event in one statement, on
SQLite and PostgreSQL."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from sqlmodel import select

from romergo.services import Services
from storage.channels.wait_checks import (
    claim_at_once_on_driver,
    claim_on_driver,
    listening_on_driver,
    room_and_next_on_driver,
    wait_statements,
)
from storage.tables import ChannelEvent, ChannelMember, Command
from tests.storage.ledgers.channel_rows import NOW, Room, a_command, a_room

STATEMENTS = wait_statements("queued", "claimed", ("claimed", "working", "needs_confirmation"))


def params(room: Room, after: int = 0, who: str | None = None) -> dict[str, Any]:
    return {"channel": room.channel_id, "who": who or room.client_id, "after": after}


async def test_the_statements_are_built_once_for_the_same_states():
    again = wait_statements("queued", "claimed", ("claimed", "working", "needs_confirmation"))
    assert again is STATEMENTS
    assert wait_statements("waiting", "taken", ("taken",)) is not STATEMENTS


async def test_the_room_read_says_the_membership_what_is_held_and_what_comes_next(services: Services):
    room = await a_room(services.db)
    await a_command(services.db, room, 1, "done")
    reserved = await a_command(services.db, room, 2, reserved_for="someone-else")
    answer = await a_command(services.db, room, 3, in_reply_to="cmd-question")

    def read(rows: Any) -> Any:
        return (
            room_and_next_on_driver(rows, STATEMENTS, params(room)),
            room_and_next_on_driver(rows, STATEMENTS, params(room, who="a-stranger")),
            room_and_next_on_driver(rows, STATEMENTS, params(room, after=3)),
            room_and_next_on_driver(rows, STATEMENTS, {**params(room), "channel": "no-such-room"}),
        )

    mine, strangers, caught_up, missing = await services.db.write_rows(read)

    found, next_id, answers = mine
    assert found is not None and (found.user_id, found.member) == (room.owner_id, room.client_id)
    assert found.held is None
    assert (next_id, answers) == (answer, "cmd-question")  # the one reserved for another is skipped
    assert reserved != next_id
    assert strangers[0] is not None and strangers[0].member is None and strangers[1] == answer
    assert caught_up[0] is not None and caught_up[1:] == (None, None)
    assert missing == (None, None, None)


async def test_a_claim_takes_the_oldest_queued_once_and_the_room_then_shows_it_held(services: Services):
    room = await a_room(services.db)
    first = await a_command(services.db, room, 1)
    await a_command(services.db, room, 2)
    at = NOW + timedelta(minutes=1)

    def claim(rows: Any) -> Any:
        claimed = claim_on_driver(rows, STATEMENTS, params(room) | {"at": at})
        held = room_and_next_on_driver(rows, STATEMENTS, params(room))[0]
        return claimed, held

    claimed, held = await services.db.write_rows(claim)
    assert (claimed.id, claimed.state, claimed.deliveries) == (first, "claimed", 1)
    assert claimed.claimed_by == room.client_id
    assert held is not None and held.held == first
    nothing = await services.db.write_rows(
        lambda rows: claim_on_driver(rows, STATEMENTS, params(room, after=2) | {"at": at})
    )
    assert nothing is None


async def test_the_presence_is_kept_until_a_time_or_cleared(services: Services):
    room = await a_room(services.db)
    until = NOW + timedelta(seconds=90)
    await services.db.write_rows(lambda rows: listening_on_driver(rows, params(room), NOW, until))
    async with services.db.read() as session:
        member = await session.get(ChannelMember, (room.channel_id, room.client_id))
        assert member is not None and member.polling_until is not None
    await services.db.write_rows(lambda rows: listening_on_driver(rows, params(room), NOW, None))
    async with services.db.read() as session:
        member = await session.get(ChannelMember, (room.channel_id, room.client_id))
        assert member is not None and member.polling_until is None


@pytest.mark.parametrize(
    "database", ["postgresql"]
)  # SQLite has no data-modifying CTEs: its check claims with the statements above
async def test_on_postgresql_a_claim_at_once_writes_its_event_and_ends_the_listening(services: Services):
    room = await a_room(services.db)
    first = await a_command(services.db, room, 1)
    answer = await a_command(services.db, room, 2, in_reply_to="cmd-question")
    event = {
        "channel_id": room.channel_id,
        "command_id": None,
        "actor_type": "agent",
        "actor_id": room.client_id,
        "actor_name": "Scribe",
        "at": NOW,
        "kind": "claimed",
        "data": {"client_id": room.client_id},
    }

    async def at_once(after: int) -> Any:
        return await services.db.statements_alone(
            lambda rows: claim_at_once_on_driver(rows, STATEMENTS, params(room, after) | {"at": NOW}, event)
        )

    claimed = await at_once(0)
    assert (claimed.id, claimed.state, claimed.event_seq) == (first, "claimed", 1)
    assert await at_once(1) is None  # an answer to a question is not claimed here
    async with services.db.read() as session:
        member = await session.get(ChannelMember, (room.channel_id, room.client_id))
        written = (
            await session.exec(select(ChannelEvent).where(ChannelEvent.channel_id == room.channel_id))
        ).one()
        still_queued = await session.get(Command, answer)
    assert member is not None and member.polling_until is None
    assert (written.seq, written.kind, written.command_id) == (1, "claimed", first)
    assert still_queued is not None and still_queued.state == "queued"
