"""A wait's check on the database's driver: the room's verdict, the claim and the presence.

Every wait runs one when it starts and when it is woken, a thousand idle agents' re-polls included
(docs/performance.md), so it stays off the ORM (`Delivery.next_for` takes over where it cannot):

- on SQLite, one write transaction on the driver (`_check_in_one_write`): in-process, its
  statements cost no round trips;
- on PostgreSQL every statement, and a transaction's BEGIN and COMMIT, is a round trip (~150 µs
  here): that transaction took six for a claim and four for an idle check. There the room is read
  on its own, then one statement writes (`_check_at_once`): an idle check writes the presence, a
  claim takes the command, numbers and writes its `claimed` event and clears the presence with
  data-modifying CTEs (`storage.channels.wait_checks`). Two round trips either way, each
  statement atomic on its own, on one connection (`Database.statements_alone`).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from romergo.channels.events import Claimed, Payload
from romergo.channels.models import Caller, WaitResult
from romergo.channels.store import channel_state, command_view
from romergo.channels.tx import EventActor, NeedsOrmTransaction, event_rows, write_event
from romergo.channels.vocabulary import REMOVED_BY_OWNER, EventKind
from romergo.channels.wait_statements import STATEMENTS
from romergo.common.errors import RomergoError
from storage.channels.wait_checks import (
    WaitRoom,
    claim_at_once_on_driver,
    claim_on_driver,
    listening_on_driver,
    room_and_next_on_driver,
)
from storage.database import Database
from storage.driver import Writes

NOT_MEMBER = "You are not a member of this channel. Join it with its code first."

ROOM, ROOM_AND_NEXT, CLAIM = STATEMENTS.room, STATEMENTS.room_and_next, STATEMENTS.claim
queued_for = STATEMENTS.queued_for
Room = WaitRoom


async def check_on_driver(
    db: Database, caller: Caller, channel_id: object, cursor: int, until: datetime, now: datetime
) -> WaitResult | None:
    """The command to hand `caller` now, `channel_ended`, or None (nothing yet: the agent counts as
    listening until `until`). Raises `NeedsOrmTransaction`, having written nothing, where the ORM's
    transaction must check: the caller still holds a command (handed over again), or the command
    answers a question (it moves the question too)."""
    if db.data_modifying_ctes:
        return await _check_at_once(db, caller, channel_id, cursor, until, now)
    return await db.write_rows(
        lambda rows: _check_in_one_write(rows, caller, channel_id, cursor, until, now, False)
    )


def agent_actor(caller: Caller) -> EventActor:
    return EventActor("agent", caller.client_id, caller.client_name)


def _check_in_one_write(
    rows: Writes,
    caller: Caller,
    channel_id: object,
    cursor: int,
    until: datetime,
    now: datetime,
    numbered_inserts: bool,
) -> WaitResult | None:
    """A wait's check as one write on the database's driver: the room's verdict, then the oldest
    command queued for the caller claimed with its `claimed` event, and the presence. Raises
    `NeedsOrmTransaction` (the write rolls back) when the caller still holds a command (handed over
    again) or the command answers a question (it moves the question too)."""
    params = {"channel": channel_id, "who": caller.client_id, "after": cursor}
    ended, next_id = _room_read(rows, caller, params, now)
    if ended is not None:
        return ended
    claimed = None if next_id is None else claim_on_driver(rows, STATEMENTS, params | {"at": now})
    if claimed is not None and claimed.in_reply_to is not None:
        raise NeedsOrmTransaction  # another instance took the one looked at (PostgreSQL), and this answers
    listening_on_driver(rows, params, now, None if claimed else until)
    if claimed is None:
        return None
    assert isinstance(channel_id, str)
    claimed_event = claimed_payload(caller, False)
    actor = agent_actor(caller)
    write_event(
        rows,
        channel_id,
        actor,
        EventKind.CLAIMED,
        claimed_event,
        claimed.id,
        now,
        numbered_inserts=numbered_inserts,
    )
    return WaitResult("command", claimed.seq, command_view(claimed))


async def _check_at_once(
    db: Database, caller: Caller, channel_id: object, cursor: int, until: datetime, now: datetime
) -> WaitResult | None:
    """The check on PostgreSQL: the room read, then one statement, each on its own (see the
    module's docstring). A claim that takes nothing (another instance took the command first, or
    the one now oldest answers a question) leaves the decision to the one-write check."""
    checked = await db.statements_alone(
        lambda rows: _read_then_write(rows, caller, channel_id, cursor, until, now)
    )
    if not isinstance(checked, _ClaimedNothing):
        return checked
    return await db.write_rows(
        lambda rows: _check_in_one_write(rows, caller, channel_id, cursor, until, now, True)
    )


def _read_then_write(
    rows: Writes, caller: Caller, channel_id: object, cursor: int, until: datetime, now: datetime
) -> WaitResult | _ClaimedNothing | None:
    params = {"channel": channel_id, "who": caller.client_id, "after": cursor}
    ended, next_id = _room_read(rows, caller, params, now)
    if ended is not None:
        return ended
    if next_id is None:
        listening_on_driver(rows, params, now, until)
        return None
    assert isinstance(channel_id, str)
    happened: list[tuple[EventKind, Payload | None]] = [(EventKind.CLAIMED, claimed_payload(caller, False))]
    shared, [own] = event_rows(channel_id, agent_actor(caller), happened, None, now)
    claimed = claim_at_once_on_driver(rows, STATEMENTS, params | {"at": now}, shared | own)
    if claimed is None:
        return _CLAIMED_NOTHING
    return WaitResult("command", claimed.seq, command_view(claimed))


class _ClaimedNothing:
    """The command read as next was not there to claim when the claim ran."""


_CLAIMED_NOTHING = _ClaimedNothing()


def _room_read(
    rows: Writes, caller: Caller, params: dict[str, Any], now: datetime
) -> tuple[WaitResult | None, str | None]:
    """The room read with the command next in line: `channel_ended` if the wait ends so (else
    None), and that command's id. Raises `NeedsOrmTransaction` where the ORM must check (the caller
    still holds a command, or the next one answers a question)."""
    channel_id = params["channel"]
    found, next_id, answers = (
        room_and_next_on_driver(rows, STATEMENTS, params)
        if isinstance(channel_id, str)
        else (None, None, None)
    )
    room, ended = room_verdict(found, caller, now)
    if ended is not None:
        return ended, None
    if room.held is not None or answers is not None:
        raise NeedsOrmTransaction
    return None, next_id


def room_verdict(found: Any, caller: Caller, now: datetime) -> tuple[Room, WaitResult | None]:
    """The room of a wait's check, with `channel_ended` when it ended for everyone or for this
    agent (the owner removed or revoked it); `not_member` when the caller is not in it."""
    room = None if found is None else found if isinstance(found, WaitRoom) else WaitRoom._make(found)
    if room is None or room.user_id != caller.user_id:
        raise RomergoError("not_member", NOT_MEMBER)
    if channel_state(room, now) != "live" or room.left_reason in REMOVED_BY_OWNER:
        return room, WaitResult("channel_ended", room.last_seq)
    if room.member is None or room.left_at is not None:
        raise RomergoError("not_member", NOT_MEMBER)
    return room, None


def claimed_payload(caller: Caller, redelivered: bool) -> Claimed:
    return Claimed(client_id=caller.client_id, agent_name=caller.client_name, redelivered=redelivered)
