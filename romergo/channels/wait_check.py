"""A wait's check on the database's driver: the room's verdict, the claim and the presence.

Every wait runs one when it starts and when it is woken, a thousand idle agents' re-polls included
(docs/performance.md), so it stays off the ORM:

- on SQLite, one write transaction on the driver (`_check_in_one_write`): in-process, its
  statements cost no round trips;
- on PostgreSQL every statement, and a transaction's BEGIN and COMMIT, is a round trip (~150 µs
  here): that transaction took six for a claim and four for an idle check. There the room is read
  on its own, then one statement writes (`_check_at_once`): an idle check writes the presence, a
  claim takes the command, numbers and writes its `claimed` event and clears the presence with
  data-modifying CTEs (`storage.channels.wait_checks`). Two round trips either way, each
  statement atomic on its own, on one connection (`Database.statements_alone`).

What only some checks meet is the one write's, a statement or two more: a command the caller still
holds is handed over again (counted delivered once more, its `claimed` event marked redelivered),
and a claimed answer to a question moves the question on (`answered`). A command's calls' events
still pending (`channels.pending_tool_events`) are written first.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, NamedTuple

from romergo.channels.actors import EventActor
from romergo.channels.command_moves import moved_from_now
from romergo.channels.events import Claimed, Nothing, Payload
from romergo.channels.models import Caller, WaitResult
from romergo.channels.pending_tool_events import PendingToolEvents
from romergo.channels.pending_writes import write_pending
from romergo.channels.store import channel_state, command_view
from romergo.channels.tx import event_rows, write_event
from romergo.channels.vocabulary import REMOVED_BY_OWNER, CommandState, EventKind
from romergo.channels.wait_statements import STATEMENTS
from romergo.common.errors import RomergoError
from storage.channels.event_log import command_now_on_driver
from storage.channels.wait_checks import (
    WaitRoom,
    claim_at_once_on_driver,
    claim_on_driver,
    hand_again_on_driver,
    listening_on_driver,
    room_and_next_on_driver,
)
from storage.database import Database
from storage.driver import Writes

NOT_MEMBER = "You are not a member of this channel. Join it with its code first."

ROOM_AND_NEXT = STATEMENTS.room_and_next
Room = WaitRoom


class Check(NamedTuple):
    """One check of a wait: who waits where, from which event on, listening until when."""

    caller: Caller
    channel_id: object
    cursor: int
    until: datetime
    now: datetime
    pending: PendingToolEvents | None
    """Calls' events not written yet (SQLite), written first for the commands the check moves."""

    @property
    def params(self) -> dict[str, Any]:
        return {"channel": self.channel_id, "who": self.caller.client_id, "after": self.cursor}


async def check_on_driver(db: Database, check: Check) -> WaitResult | None:
    """The command to hand the caller now, `channel_ended`, or None (nothing yet: the agent counts
    as listening until `check.until`)."""
    if db.data_modifying_ctes:
        checked = await db.statements_alone(lambda rows: _read_then_write(rows, check))
        if not isinstance(checked, _OneWriteDecides):
            return checked
    return await db.write_rows(lambda rows: _check_in_one_write(rows, check, db.data_modifying_ctes))


def agent_actor(caller: Caller) -> EventActor:
    return EventActor("agent", caller.client_id, caller.client_name)


def _check_in_one_write(rows: Writes, check: Check, numbered_inserts: bool) -> WaitResult | None:
    """A wait's check as one write on the database's driver: the room's verdict, then the command
    the caller holds handed over again, or the oldest command queued for it claimed with its
    `claimed` event (and the question it answers moved on), and the presence."""
    params, now = check.params, check.now
    ended, room, next_id, _ = _room_read(rows, check)
    if ended is not None:
        return ended
    assert room is not None and isinstance(check.channel_id, str)
    if room.held is not None:
        handed = _hand_again(rows, check, room.held, numbered_inserts)
        listening_on_driver(rows, params, now, None)
        return handed
    claimed = None if next_id is None else claim_on_driver(rows, STATEMENTS, params | {"at": now})
    listening_on_driver(rows, params, now, None if claimed else check.until)
    if claimed is None:
        return None
    actor = agent_actor(check.caller)
    claimed_event = claimed_payload(check.caller, False)
    write_event(
        rows,
        check.channel_id,
        actor,
        EventKind.CLAIMED,
        claimed_event,
        claimed.id,
        now,
        numbered_inserts=numbered_inserts,
    )
    if claimed.in_reply_to is not None:
        _answered(rows, check, claimed.in_reply_to, numbered_inserts)
    return WaitResult("command", claimed.seq, command_view(claimed))


def _hand_again(rows: Writes, check: Check, held_id: str, numbered_inserts: bool) -> WaitResult:
    """The command the caller still holds, delivered once more, and its `claimed` event."""
    _write_pending(rows, check, held_id)
    held = hand_again_on_driver(rows, held_id)
    payload = claimed_payload(check.caller, True)
    moved = moved_from_now(rows, held, [(EventKind.CLAIMED, payload)], check.now, redelivered=True)
    actor = agent_actor(check.caller)
    write_event(
        rows,
        held.channel_id,
        actor,
        EventKind.CLAIMED,
        payload,
        held.id,
        check.now,
        numbered_inserts=numbered_inserts,
    )
    now_held = held._replace(
        state=moved["to_state"], last_activity_at=moved["at"], finished_at=moved["finished"]
    )
    return WaitResult("command", held.seq, command_view(now_held, redelivered=True))


def _answered(rows: Writes, check: Check, question_id: str, numbered_inserts: bool) -> None:
    """The question a claimed answer answers moves on, if it still waits for one."""
    _write_pending(rows, check, question_id)
    question = command_now_on_driver(rows, question_id)
    if question is None or question.state != CommandState.AWAITING_ANSWER:
        return
    moved_from_now(rows, question, [(EventKind.ANSWERED, Nothing())], check.now)
    actor = agent_actor(check.caller)
    channel_id = str(check.channel_id)
    write_event(
        rows,
        channel_id,
        actor,
        EventKind.ANSWERED,
        Nothing(),
        question_id,
        check.now,
        numbered_inserts=numbered_inserts,
    )


def _write_pending(rows: Writes, check: Check, command_id: str) -> None:
    if check.pending is not None and check.pending.waiting(command_id):  # in the write turn: order kept
        write_pending(rows, check.pending.take(command_id), check.now)


def _read_then_write(rows: Writes, check: Check) -> WaitResult | _OneWriteDecides | None:
    """The check on PostgreSQL: the room read, then one statement, each on its own (see the
    module's docstring). What that statement cannot do (hand a held command over again, claim an
    answer, which moves its question too), or a claim that took nothing (another instance took the
    command first), is left to the one-write check."""
    params, now = check.params, check.now
    ended, room, next_id, answers = _room_read(rows, check)
    if ended is not None:
        return ended
    assert room is not None and isinstance(check.channel_id, str)
    if room.held is not None or answers is not None:
        return _ONE_WRITE_DECIDES
    if next_id is None:
        listening_on_driver(rows, params, now, check.until)
        return None
    happened: list[tuple[EventKind, Payload | None]] = [
        (EventKind.CLAIMED, claimed_payload(check.caller, False))
    ]
    shared, [own] = event_rows(check.channel_id, agent_actor(check.caller), happened, None, now)
    claimed = claim_at_once_on_driver(rows, STATEMENTS, params | {"at": now}, shared | own)
    if claimed is None:
        return _ONE_WRITE_DECIDES
    return WaitResult("command", claimed.seq, command_view(claimed))


class _OneWriteDecides:
    """The check is the one-write check's to make (see `_read_then_write`)."""


_ONE_WRITE_DECIDES = _OneWriteDecides()


def _room_read(
    rows: Writes, check: Check
) -> tuple[WaitResult | None, WaitRoom | None, str | None, str | None]:
    """The room read with the command next in line: `channel_ended` if the wait ends so (else
    None), the room, that command's id and the question it answers."""
    found, next_id, answers = (
        room_and_next_on_driver(rows, STATEMENTS, check.params)
        if isinstance(check.channel_id, str)
        else (None, None, None)
    )
    room, ended = room_verdict(found, check.caller, check.now)
    if ended is not None:
        return ended, None, None, None
    return None, room, next_id, answers


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
