"""The owner's changes to a room as the channel ledger writes them inside a transaction (a room
opened, its settings, a new join code, its end), on SQLite and PostgreSQL."""

from __future__ import annotations

from dataclasses import asdict, replace
from datetime import datetime, timedelta
from typing import Any

from romergo.services import Services
from storage.channels import DatabaseChannelLedger, RoomRecord
from tests.storage.ledgers.channel_rows import NOW, a_room

LATER = NOW + timedelta(minutes=5)


def a_new_room(owner_id: str, project_id: str) -> RoomRecord:
    return RoomRecord(
        id="ch-new",
        user_id=owner_id,
        project_id=project_id,
        permissions={"read": True, "edit": False},
        confirmation_mode="every_change",
        scope={"chapter_ids": ["early-writer"]},
        last_seq=0,
        code_issued_at=NOW,
        created_at=NOW,
        expires_at=NOW + timedelta(hours=8),
        ended_at=None,
        end_reason=None,
    )


def naive(moment: datetime | None) -> datetime | None:
    """A moment as both databases give it back (SQLite keeps no time zone)."""
    return None if moment is None else moment.replace(tzinfo=None)


def plain(room: RoomRecord) -> dict[str, Any]:
    """The room's fields, its moments as both databases give them back."""
    fields = asdict(room).items()
    return {name: naive(value) if isinstance(value, datetime) else value for name, value in fields}


async def test_an_opened_room_is_written_at_once_and_found_by_its_code(services: Services):
    ledger, room = DatabaseChannelLedger(services.db), await a_room(services.db)
    opened = a_new_room(room.owner_id, room.project_id)
    async with services.db.write() as session:
        await ledger.room_changes(session).open_room(opened, "hash-new")
        first = await ledger.events(session).numbers(opened.id, 1)

    async with services.db.read() as session:
        rooms = ledger.rooms(session)
        stored, by_code = await rooms.room(opened.id), await rooms.room_by_code("hash-new")

    assert first == [1]
    assert stored is not None and by_code == stored
    assert plain(stored) == plain(replace(opened, last_seq=1))


async def test_changed_settings_come_back_and_stay_the_rest_of_the_room_as_it_was(services: Services):
    ledger, room = DatabaseChannelLedger(services.db), await a_room(services.db)
    reach = {"chapter_ids": ["late-writer"]}
    async with services.db.write() as session:
        before = await ledger.owned(session).room(room.channel_id)
        changed = await ledger.room_changes(session).change_settings(
            room.channel_id, {"read": True, "delete": True}, "publish_and_delete", reach
        )

    async with services.db.read() as session:
        stored = await ledger.rooms(session).room(room.channel_id)
        by_old_code = await ledger.rooms(session).room_by_code("hash-writer")

    assert before is not None and changed is not None and stored is not None
    settings = {"permissions": {"read": True, "delete": True}, "confirmation_mode": "publish_and_delete"}
    assert changed == replace(before, **settings, scope=reach)
    assert (stored.permissions, stored.confirmation_mode, stored.scope) == (
        changed.permissions,
        changed.confirmation_mode,
        changed.scope,
    )
    assert by_old_code is not None and by_old_code.id == room.channel_id
    assert stored.ended_at is None and naive(stored.expires_at) == naive(before.expires_at)


async def test_a_change_keeps_the_event_numbers_taken_before_it(services: Services):
    """A room read, then events numbered on it, then changed: the change leaves the room's number."""
    ledger, room = DatabaseChannelLedger(services.db), await a_room(services.db)
    async with services.db.write() as session:
        await ledger.owned(session).room(room.channel_id)
        await ledger.events(session).numbers(room.channel_id, 2)
        changes = ledger.room_changes(session)
        await changes.change_settings(room.channel_id, {"read": False}, "none", None)
        await changes.new_code(room.channel_id, "hash-again", LATER)
        await changes.end_room(room.channel_id, LATER, "ended")

    async with services.db.read() as session:
        assert await ledger.owned(session).latest_seq(room.channel_id) == 2


async def test_a_new_code_replaces_the_old_one_from_the_moment_it_was_made(services: Services):
    ledger, room = DatabaseChannelLedger(services.db), await a_room(services.db)
    async with services.db.write() as session:
        changed = await ledger.room_changes(session).new_code(room.channel_id, "hash-rotated", LATER)

    async with services.db.read() as session:
        rooms = ledger.rooms(session)
        by_new_code = await rooms.room_by_code("hash-rotated")
        assert await rooms.room_by_code("hash-writer") is None

    assert changed is not None and naive(changed.code_issued_at) == naive(LATER)
    assert by_new_code is not None and by_new_code.id == room.channel_id
    assert naive(by_new_code.code_issued_at) == naive(LATER) and by_new_code.permissions == {"read": True}


async def test_an_ended_room_keeps_when_and_why_and_no_longer_runs_out(services: Services):
    ledger = DatabaseChannelLedger(services.db)
    room, other = await a_room(services.db), await a_room(services.db, "rival")
    after_both = NOW + timedelta(days=2)
    async with services.db.write() as session:
        changed = await ledger.room_changes(session).end_room(room.channel_id, LATER, "expired")

    async with services.db.read() as session:
        rooms = ledger.rooms(session)
        stored = await rooms.room(room.channel_id)
        run_out = [found.id for found in await rooms.rooms_run_out(after_both)]

    assert changed is not None and (naive(changed.ended_at), changed.end_reason) == (naive(LATER), "expired")
    assert stored is not None and (naive(stored.ended_at), stored.end_reason) == (naive(LATER), "expired")
    assert run_out == [other.channel_id]


async def test_a_change_to_a_room_that_is_not_there_answers_none_and_writes_nothing(services: Services):
    ledger, room = DatabaseChannelLedger(services.db), await a_room(services.db)
    async with services.db.write() as session:
        changes = ledger.room_changes(session)
        assert await changes.change_settings("no-such-room", {"read": True}, "none", None) is None
        assert await changes.new_code("no-such-room", "hash-nowhere", LATER) is None
        assert await changes.end_room("no-such-room", LATER, "ended") is None

    async with services.db.read() as session:
        rooms = ledger.rooms(session)
        assert await rooms.room_by_code("hash-nowhere") is None
        assert await rooms.room("no-such-room") is None
        untouched = await rooms.room(room.channel_id)
    assert untouched is not None and untouched.ended_at is None and untouched.confirmation_mode == "never"
