"""The owner's "Allow once" requests as the channel ledger keeps them, on SQLite and PostgreSQL."""

from __future__ import annotations

import dataclasses
from datetime import timedelta

import pytest

from romergo.services import Services
from storage.channels import ConfirmationRecord, DatabaseChannelLedger
from tests.storage.ledgers.channel_rows import NOW, Room, a_command, a_room


def a_request(room: Room, command_id: str, ident: str, **changes: object) -> ConfirmationRecord:
    request = ConfirmationRecord(
        id=ident,
        channel_id=room.channel_id,
        command_id=command_id,
        client_id=room.client_id,
        tool="romergo_delete_scene",
        arguments={"scene_id": "s1"},
        fingerprint="f1",
        action="Delete scene Dawn",
        state="pending",
        created_at=NOW,
        expires_at=NOW + timedelta(minutes=5),
    )
    return dataclasses.replace(request, **changes)


async def test_a_request_is_told_to_its_owner_only(services: Services):
    ledger = DatabaseChannelLedger(services.db)
    room, other = await a_room(services.db), await a_room(services.db, "rival")
    command = await a_command(services.db, room, 1)
    async with services.db.write() as session:
        await ledger.confirmations(session).add(a_request(room, command, "cnf-1"))

    async with services.db.read() as session:
        requests = ledger.confirmations(session)
        mine = await requests.owned(room.owner_id, "cnf-1")
        assert await requests.owned(other.owner_id, "cnf-1") is None
        assert await requests.owned(room.owner_id, "no-such-request") is None
        assert await requests.owned(room.owner_id, 42) is None

    assert mine == a_request(room, command, "cnf-1")
    with pytest.raises(dataclasses.FrozenInstanceError):
        mine.state = "granted"  # type: ignore[misc]


async def test_open_requests_are_found_by_call_newest_first_and_by_command(services: Services):
    ledger, room = DatabaseChannelLedger(services.db), await a_room(services.db)
    command, other_command = await a_command(services.db, room, 1), await a_command(services.db, room, 2)
    later = NOW + timedelta(seconds=1)
    async with services.db.write() as session:
        requests = ledger.confirmations(session)
        await requests.add(a_request(room, command, "cnf-old"))
        await requests.add(a_request(room, command, "cnf-new", created_at=later, state="granted"))
        await requests.add(a_request(room, command, "cnf-used", created_at=later, state="consumed"))
        await requests.add(a_request(room, command, "cnf-other-tool", tool="romergo_publish"))
        await requests.add(a_request(room, other_command, "cnf-other-command"))

    async with services.db.read() as session:
        requests = ledger.confirmations(session)
        newest = await requests.open_request(command, "romergo_delete_scene", "f1")
        assert await requests.open_request(command, "romergo_delete_scene", "other-arguments") is None
        of_command = {r.id for r in await requests.open_of_command(command)}
        pending = [r.id for r in await requests.pending_in_channel(room.channel_id)]

    assert newest is not None and newest.id == "cnf-new"
    assert of_command == {"cnf-old", "cnf-new", "cnf-other-tool"}
    assert pending[0] == "cnf-old" and set(pending) == {"cnf-old", "cnf-other-tool", "cnf-other-command"}


async def test_a_decision_is_written_at_once_and_the_request_is_no_longer_open(services: Services):
    ledger, room = DatabaseChannelLedger(services.db), await a_room(services.db)
    command = await a_command(services.db, room, 1)
    decided_at = NOW + timedelta(minutes=1)
    async with services.db.write() as session:
        requests = ledger.confirmations(session)
        await requests.add(a_request(room, command, "cnf-1"))
        assert [r.id for r in await requests.pending_in_channel(room.channel_id)] == ["cnf-1"]
        rejected = await requests.decided("cnf-1", "rejected", decided_at)
        assert await requests.pending_in_channel(room.channel_id) == []  # seen inside the same transaction

    async with services.db.read() as session:
        stored = await ledger.confirmations(session).current("cnf-1")

    assert rejected.state == "rejected" and stored is not None and stored.state == "rejected"
    assert stored.decided_at is not None
    assert stored.decided_at.replace(tzinfo=None) == decided_at.replace(tzinfo=None)


async def test_a_grant_is_consumed_once_and_a_pending_request_not_at_all(services: Services):
    ledger, room = DatabaseChannelLedger(services.db), await a_room(services.db)
    command = await a_command(services.db, room, 1)
    async with services.db.write() as session:
        requests = ledger.confirmations(session)
        await requests.add(a_request(room, command, "cnf-granted", state="granted"))
        await requests.add(a_request(room, command, "cnf-pending"))

    async with services.db.write() as session:
        requests = ledger.confirmations(session)
        assert await requests.consume_granted("cnf-granted")
        assert not await requests.consume_granted("cnf-granted")
        assert not await requests.consume_granted("cnf-pending")
        assert not await requests.consume_granted("no-such-request")
        used = await requests.current("cnf-granted")

    assert used is not None and used.state == "consumed"


async def test_requests_past_their_time_are_found_open_in_every_room(services: Services):
    ledger = DatabaseChannelLedger(services.db)
    room, other = await a_room(services.db), await a_room(services.db, "rival")
    mine, theirs = await a_command(services.db, room, 1), await a_command(services.db, other, 1)
    async with services.db.write() as session:
        requests = ledger.confirmations(session)
        await requests.add(a_request(room, mine, "cnf-due", expires_at=NOW))
        await requests.add(a_request(other, theirs, "cnf-due-too", expires_at=NOW, state="granted"))
        await requests.add(a_request(room, mine, "cnf-later"))
        await requests.add(a_request(room, mine, "cnf-decided", expires_at=NOW, state="rejected"))

    async with services.db.read() as session:
        due = {r.id for r in await ledger.confirmations(session).open_expired(NOW)}

    assert due == {"cnf-due", "cnf-due-too"}


async def test_the_current_request_is_read_afresh_not_from_what_the_transaction_read_before(
    services: Services,
):
    ledger, room = DatabaseChannelLedger(services.db), await a_room(services.db)
    command = await a_command(services.db, room, 1)
    async with services.db.write() as session:
        await ledger.confirmations(session).add(a_request(room, command, "cnf-1", state="granted"))

    async with services.db.write() as session:
        requests = ledger.confirmations(session)
        before = await requests.owned(room.owner_id, "cnf-1")
        assert await requests.consume_granted("cnf-1")  # one statement, past what was read
        after = await requests.current("cnf-1")

    assert before is not None and before.state == "granted"
    assert after is not None and after.state == "consumed"
