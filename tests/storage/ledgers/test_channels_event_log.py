"""A channel's events numbered and written, and the commands they move, as the channel ledger
keeps them inside a write transaction and in a write on the driver, on SQLite and PostgreSQL."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta
from typing import Any

import pytest
from sqlalchemy import update
from sqlalchemy.exc import NoResultFound
from sqlmodel import col, select

from romergo.services import Services
from storage.channels import DatabaseChannelLedger
from storage.channels.event_log import append_on_driver, append_one_on_driver, move_on_driver
from storage.channels.records import CommandRecord
from storage.core_tables import COMMANDS
from storage.tables import Channel, ChannelEvent, Command, Confirmation
from tests.storage.ledgers.channel_rows import NOW, Room, a_command, a_room


def shared(room: Room, command_id: str | None = None, channel_id: str | None = None) -> dict[str, Any]:
    return {
        "channel_id": channel_id or room.channel_id,
        "command_id": command_id,
        "actor_type": "agent",
        "actor_id": room.client_id,
        "actor_name": "Scribe",
        "at": NOW,
    }


def own(*kinds: str) -> list[dict[str, Any]]:
    return [{"kind": kind, "data": {"n": index}} for index, kind in enumerate(kinds)]


def moved(command_id: str, state: str, finished: Any = None) -> dict[str, Any]:
    return {
        "command_id": command_id,
        "to_state": state,
        "at": NOW + timedelta(minutes=1),
        "finished": finished,
    }


async def stored_events(services: Services, room: Room) -> list[tuple[int, str, dict[str, Any]]]:
    async with services.db.read() as session:
        events = await session.exec(
            select(ChannelEvent)
            .where(ChannelEvent.channel_id == room.channel_id)
            .order_by(col(ChannelEvent.seq))
        )
        return [(event.seq, event.kind, dict(event.data)) for event in events]


@pytest.mark.parametrize("count", [1, 2, 5])
async def test_runs_of_events_take_the_next_numbers_in_order_with_their_own_columns(
    services: Services, count: int
):
    ledger, room = DatabaseChannelLedger(services.db), await a_room(services.db)
    kinds = [f"kind-{index}" for index in range(count)]
    async with services.db.write() as session:
        log = ledger.events(session)
        first = await log.append(room.channel_id, shared(room), own(*kinds))
        second = await log.append(room.channel_id, shared(room), own("after"))

    assert first == list(range(1, count + 1)) and second == [count + 1]
    events = await stored_events(services, room)
    assert [(seq, kind) for seq, kind, _ in events] == [*zip(first, kinds, strict=True), (count + 1, "after")]
    assert [data for _, _, data in events[:count]] == [{"n": index} for index in range(count)]
    async with services.db.read() as session:
        channel = await session.get(Channel, room.channel_id)
    assert channel is not None and channel.last_seq == count + 1


async def test_numbers_taken_first_are_the_ones_the_events_are_written_under(services: Services):
    ledger, room = DatabaseChannelLedger(services.db), await a_room(services.db)
    async with services.db.write() as session:
        log = ledger.events(session)
        taken = await log.numbers(room.channel_id, 2)
        later = await log.append(room.channel_id, shared(room), own("later"))
        await log.write(taken, shared(room), own("first", "second"))

    assert taken == [1, 2] and later == [3]
    assert [(seq, kind) for seq, kind, _ in await stored_events(services, room)] == [
        (1, "first"),
        (2, "second"),
        (3, "later"),
    ]


async def test_events_in_a_room_that_is_not_there_fail_and_write_nothing(services: Services):
    ledger, room = DatabaseChannelLedger(services.db), await a_room(services.db)
    elsewhere = shared(room, channel_id="no-such-room")
    with pytest.raises(NoResultFound):
        async with services.db.write() as session:
            await ledger.events(session).append("no-such-room", elsewhere, own("lost"))
    with pytest.raises(NoResultFound):
        await services.db.write_rows(lambda rows: append_on_driver(rows, "no-such-room", elsewhere, own("x")))
    assert await stored_events(services, room) == []


async def test_a_command_moves_only_from_the_state_it_holds_and_a_row_the_session_holds_moves_too(
    services: Services,
):
    ledger, room = DatabaseChannelLedger(services.db), await a_room(services.db)
    ident = await a_command(services.db, room, 1)
    async with services.db.write() as session:
        log = ledger.events(session)
        held = await session.get_one(Command, ident)  # another read of the transaction loaded it
        assert await log.move_command(moved(ident, "claimed"))
        assert held.state == "claimed"
        assert not await log.move_command(moved(ident, "working", NOW), from_state="queued")
        now = await log.fresh_command(ident)
        assert now is not None and (now.state, now.finished_at) == ("claimed", None)  # nothing changed
        assert held.state == "claimed"
        assert not await log.move_command(moved("no-such-command", "done"), from_state="claimed")
        assert await log.move_command(moved(ident, "done", NOW), from_state="claimed")
        assert (held.state, held.finished_at) == ("done", NOW)

    async with services.db.read() as session:
        stored = await session.get(Command, ident)
    assert stored is not None and stored.state == "done" and stored.finished_at is not None


async def test_a_command_is_read_as_the_database_holds_it_now_as_a_record(services: Services):
    ledger, room = DatabaseChannelLedger(services.db), await a_room(services.db)
    ident = await a_command(services.db, room, 1)
    async with services.db.write() as session:
        log = ledger.events(session)
        before = await log.fresh_command(ident)
        await session.exec(update(COMMANDS).where(COMMANDS.c.id == ident).values(state="cancelled"))
        after = await log.fresh_command(ident)
        assert await log.fresh_command("no-such-command") is None

    assert isinstance(before, CommandRecord) and before.state == "queued"
    assert after == replace(before, state="cancelled")


async def test_only_pending_confirmations_are_counted(services: Services):
    ledger, room = DatabaseChannelLedger(services.db), await a_room(services.db)
    ident = await a_command(services.db, room, 1, "needs_confirmation")
    async with services.db.write() as session:
        for number, state in enumerate(("pending", "pending", "granted", "rejected")):
            session.add(
                Confirmation(
                    id=f"conf-{number}",
                    channel_id=room.channel_id,
                    command_id=ident,
                    client_id=room.client_id,
                    tool="edit_line",
                    fingerprint=f"f{number}",
                    action="edit",
                    state=state,
                    created_at=NOW,
                    expires_at=NOW + timedelta(minutes=5),
                )
            )
    async with services.db.write() as session:
        log = ledger.events(session)
        assert await log.pending_confirmations(ident) == 2
        assert await log.pending_confirmations("no-such-command") == 0


async def test_on_the_driver_one_event_is_numbered_or_written_under_its_taken_number(services: Services):
    room = await a_room(services.db)
    numbered = services.db.data_modifying_ctes

    def write(rows: Any) -> list[int]:
        first = append_one_on_driver(
            rows, room.channel_id, shared(room), own("a")[0], numbered_inserts=numbered
        )
        run = append_on_driver(rows, room.channel_id, shared(room), own("b", "c"))
        return [first, *run]

    assert await services.db.write_rows(write) == [1, 2, 3]
    async with services.db.write() as session:  # a number taken elsewhere, written under it
        [taken] = await DatabaseChannelLedger(services.db).events(session).numbers(room.channel_id, 1)
    await services.db.write_rows(
        lambda rows: append_one_on_driver(rows, room.channel_id, shared(room), own("d")[0], seq=taken)
    )
    assert [(seq, kind) for seq, kind, _ in await stored_events(services, room)] == [
        (1, "a"),
        (2, "b"),
        (3, "c"),
        (4, "d"),
    ]


async def test_on_the_driver_a_command_moves_only_from_the_state_it_holds(services: Services):
    room = await a_room(services.db)
    ident = await a_command(services.db, room, 1, "claimed")

    async def move(command_id: str, to_state: str, from_state: str) -> bool:
        return await services.db.write_rows(
            lambda rows: move_on_driver(rows, moved(command_id, to_state), from_state)
        )

    assert not await move(ident, "working", "queued")
    assert await move(ident, "working", "claimed")
    assert not await move("no-such-command", "done", "claimed")
    async with services.db.read() as session:
        stored = await session.get(Command, ident)
    assert stored is not None and stored.state == "working" and stored.finished_at is None


async def test_a_new_command_is_written_as_it_is_and_a_rooms_commands_come_by_state_oldest_first(
    services: Services,
):
    ledger, room = DatabaseChannelLedger(services.db), await a_room(services.db)
    await a_command(services.db, room, 3, "working")
    await a_command(services.db, room, 2, "done")
    posted = CommandRecord(
        id="cmd-posted",
        channel_id=room.channel_id,
        seq=1,
        text="Tidy the opening",
        context={"route": "/scenes"},
        state="queued",
        claimed_by=None,
        reserved_for=room.client_id,
        in_reply_to=None,
        retry_of="cmd-earlier",
        deliveries=0,
        created_at=NOW,
        claimed_at=None,
        last_activity_at=NOW,
        finished_at=None,
    )
    async with services.db.write() as session:
        log = ledger.events(session)
        await log.add_command(posted)
        open_ones = await log.commands_of_room(room.channel_id, ("queued", "working"))
        assert await log.commands_of_room("no-such-room", ("queued",)) == []
        await log.move_command(moved(f"cmd-{room.channel_id}-3", "done", NOW))
        still_open = await log.commands_of_room(room.channel_id, ("queued", "working"))

    assert [(command.id, command.state) for command in open_ones] == [
        ("cmd-posted", "queued"),
        (f"cmd-{room.channel_id}-3", "working"),
    ]
    assert open_ones[0] == posted and still_open == [posted]  # as the transaction left them
    async with services.db.read() as session:
        stored = await session.get(Command, "cmd-posted")
    assert stored is not None and stored.text == "Tidy the opening" and stored.seq == 1
