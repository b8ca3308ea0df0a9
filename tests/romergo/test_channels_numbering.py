"""A run of events takes the channel's next numbers, in order, whatever its length (on PostgreSQL
a run of up to `MAX_AT_ONCE` is numbered and written by one statement: `storage.channels.numbering`)."""

from __future__ import annotations

import pytest
from sqlalchemy.exc import NoResultFound

from romergo.channels.actors import EventActor
from romergo.channels.events import ToolBlocked
from romergo.channels.vocabulary import EventKind
from storage.channels.numbering import MAX_AT_ONCE
from tests.support.channels import open_room
from tests.support.statements import counting

HELPER = EventActor("agent", "client-helper", "Helper")


@pytest.mark.parametrize("length", [1, 2, MAX_AT_ONCE, MAX_AT_ONCE + 1])
async def test_a_run_of_events_takes_the_next_numbers_in_order(services, actor, length):
    room = await open_room(services, actor)
    before = await room.events()
    run = [(EventKind.TOOL_BLOCKED, ToolBlocked(tool=f"tool_{n}", reason="test")) for n in range(length)]
    with counting(services) as seen:
        async with services.channels.store.tx() as tx:
            numbers = await tx.events(room.channel.channel_id, HELPER, run)
    last = before[-1].seq
    assert numbers == list(range(last + 1, last + length + 1))
    written = (await room.events())[len(before) :]
    assert [(event.seq, event.data["tool"]) for event in written] == [
        (seq, f"tool_{n}") for n, seq in enumerate(numbers)
    ]
    assert {(event.actor_id, event.actor_name) for event in written} == {("client-helper", "Helper")}
    one_statement = not services.db.is_sqlite and length <= MAX_AT_ONCE
    assert seen.count == (1 if one_statement else 2), str(seen)


async def test_a_run_for_a_channel_that_is_not_there_writes_nothing(services, actor):
    room = await open_room(services, actor)
    before = await room.events()
    run = [(EventKind.TOOL_BLOCKED, ToolBlocked(tool="tool", reason="test"))]
    with pytest.raises(NoResultFound):
        async with services.channels.store.tx() as tx:
            await tx.events("chn_missing", HELPER, run)
    assert await room.events() == before
