"""A wait's check on the database's driver: the room's verdict, the claim and the presence.

Every wait runs one when it starts and when it is woken, a thousand idle agents' re-polls included
(docs/performance.md), so it stays off the ORM (`Delivery.next_for` takes over where it cannot):

- on SQLite, one write transaction on the driver (`_check_in_one_write`): in-process, its
  statements cost no round trips;
- on PostgreSQL every statement, and a transaction's BEGIN and COMMIT, is a round trip (~150 µs
  here): that transaction took six for a claim and four for an idle check. There the room is read
  on its own, then one statement writes (`_check_at_once`): an idle check writes the presence, a
  claim takes the command, numbers and writes its `claimed` event and clears the presence with
  data-modifying CTEs. Two round trips either way, each statement atomic on its own, on one
  connection (`Database.statements_alone`).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, NamedTuple

from sqlalchemy import ColumnElement, Select, bindparam, exists, insert, true
from sqlalchemy import select as core_select
from sqlalchemy import update as sa_update
from sqlmodel import or_, select
from sqlmodel.sql.expression import Select as Rows

from romergo.channels.events import Claimed, Payload
from romergo.channels.models import Caller, WaitResult
from romergo.channels.store import channel_state, command_view
from romergo.channels.tx import EventActor, NeedsOrmTransaction, event_rows, write_event
from romergo.channels.vocabulary import HELD_STATES, REMOVED_BY_OWNER, CommandState, EventKind, next_state
from romergo.common.errors import RomergoError
from storage.channels.joins import CALLERS_MEMBERSHIP
from storage.channels.numbering import COLUMNS
from storage.channels.presence import PRESENCE
from storage.core_tables import CHANNEL_EVENTS, CHANNEL_MEMBERS, CHANNELS, COMMANDS
from storage.database import Database
from storage.driver import Writes

NOT_MEMBER = "You are not a member of this channel. Join it with its code first."


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
    claimed = None if next_id is None else rows.first(CLAIM, params | {"at": now})
    if claimed is not None and claimed.in_reply_to is not None:
        raise NeedsOrmTransaction  # another instance took the one looked at (PostgreSQL), and this answers
    rows.run(PRESENCE, params | {"seen": now, "until": None if claimed else until})
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
        rows.run(PRESENCE, params | {"seen": now, "until": until})
        return None
    assert isinstance(channel_id, str)
    happened: list[tuple[EventKind, Payload | None]] = [(EventKind.CLAIMED, claimed_payload(caller, False))]
    shared, [own] = event_rows(channel_id, agent_actor(caller), happened, None, now)
    event = {f"event_{name}": value for name, value in (shared | own).items() if name != "command_id"}
    claimed = rows.first(_CLAIMED_AT_ONCE, params | {"at": now} | event)
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
    found = rows.first(ROOM_AND_NEXT, params) if isinstance(channel_id, str) else None
    room, ended = room_verdict(None if found is None else found[:ROOM_COLUMNS], caller, now)
    if ended is not None:
        return ended, None
    next_id, answers = (None, None) if found is None else found[ROOM_COLUMNS:]
    if room.held is not None or answers is not None:
        raise NeedsOrmTransaction
    return None, next_id


def room_verdict(found: Any, caller: Caller, now: datetime) -> tuple[Room, WaitResult | None]:
    """The room of a wait's check, with `channel_ended` when it ended for everyone or for this
    agent (the owner removed or revoked it); `not_member` when the caller is not in it."""
    room = None if found is None else Room._make(found)
    if room is None or room.user_id != caller.user_id:
        raise RomergoError("not_member", NOT_MEMBER)
    if channel_state(room, now) != "live" or room.left_reason in REMOVED_BY_OWNER:
        return room, WaitResult("channel_ended", room.last_seq)
    if room.member is None or room.left_at is not None:
        raise RomergoError("not_member", NOT_MEMBER)
    return room, None


def queued_for(channel_id: object, client_id: object) -> tuple[ColumnElement[bool], ...]:
    """Queued in this channel, and not reserved for another client (an answer goes to who asked).
    The ids are values, or bound parameters in a statement built once."""
    return (
        COMMANDS.c.channel_id == channel_id,
        COMMANDS.c.state == CommandState.QUEUED,
        or_(COMMANDS.c.reserved_for.is_(None), COMMANDS.c.reserved_for == client_id),
    )


def claimed_payload(caller: Caller, redelivered: bool) -> Claimed:
    return Claimed(client_id=caller.client_id, agent_name=caller.client_name, redelivered=redelivered)


# Built once: every wait runs these (building them cost about as much as running them).


class Room(NamedTuple):
    """A wait's channel and the caller's membership of it: the columns its check reads."""

    user_id: str
    ended_at: datetime | None
    end_reason: str | None
    expires_at: datetime
    last_seq: int
    member: str | None
    """The member's client id; None when the caller was never a member."""
    left_at: datetime | None
    left_reason: str | None
    held: str | None
    """The command the caller still holds here (it gets it again), if any."""


_HELD = (
    select(COMMANDS.c.id)
    .where(
        COMMANDS.c.channel_id == bindparam("channel"),
        COMMANDS.c.claimed_by == bindparam("who"),
        # Equalities, not IN: an IN list is expanded into the SQL at every execution.
        or_(*(COMMANDS.c.state == state for state in HELD_STATES)),
    )
    .order_by(COMMANDS.c.seq)
    .limit(1)
    .scalar_subquery()
)
"""The unfinished command the caller holds in the channel, if any: read with the room."""
ROOM: Rows[*tuple[Any, ...]] = (
    Rows(
        CHANNELS.c.user_id,
        CHANNELS.c.ended_at,
        CHANNELS.c.end_reason,
        CHANNELS.c.expires_at,
        CHANNELS.c.last_seq,
        CHANNEL_MEMBERS.c.client_id.label("member"),
        CHANNEL_MEMBERS.c.left_at,
        CHANNEL_MEMBERS.c.left_reason,
        _HELD.label("held"),
    )
    .select_from(CHANNELS)
    .outerjoin(CHANNEL_MEMBERS, CALLERS_MEMBERSHIP)
    .where(CHANNELS.c.id == bindparam("channel"))
)
_QUEUED_NEXT = (
    select(COMMANDS.c.id, COMMANDS.c.in_reply_to)
    .where(*queued_for(bindparam("channel"), bindparam("who")), COMMANDS.c.seq > bindparam("after"))
    .order_by(COMMANDS.c.seq)
    .limit(1)
)
"""The command queued next for the caller after its cursor: what the room read looks at, and what
the claim takes (locking it)."""
_NEXT_QUEUED = _QUEUED_NEXT.subquery()
ROOM_COLUMNS = len(Room._fields)
ROOM_AND_NEXT = ROOM.add_columns(
    select(_NEXT_QUEUED.c.id).scalar_subquery().label("next_id"),
    select(_NEXT_QUEUED.c.in_reply_to).scalar_subquery().label("answers"),
)
"""The room, with the command the claim would take next and the question it answers, if any."""
_OLDEST_QUEUED = (
    _QUEUED_NEXT.with_only_columns(COMMANDS.c.id).with_for_update(skip_locked=True).scalar_subquery()
)
CLAIM = (
    sa_update(COMMANDS)
    .where(COMMANDS.c.id == _OLDEST_QUEUED, COMMANDS.c.state == CommandState.QUEUED)
    .values(
        claimed_by=bindparam("who"),
        claimed_at=bindparam("at"),
        deliveries=1,
        state=next_state(CommandState.QUEUED, EventKind.CLAIMED),
        last_activity_at=bindparam("at"),
    )
    .returning(*COMMANDS.c)
)


def _claimed_at_once() -> Select[Any]:
    claimed = CLAIM.where(COMMANDS.c.in_reply_to.is_(None)).cte("claimed")
    numbers = (
        sa_update(CHANNELS)
        .where(CHANNELS.c.id == claimed.c.channel_id)
        .values(last_seq=CHANNELS.c.last_seq + 1)
        .returning(CHANNELS.c.last_seq)
        .cte("numbers")
    )
    both = claimed.join(numbers, true())
    event_columns = (
        numbers.c.last_seq
        if name == "seq"
        else claimed.c.id
        if name == "command_id"
        else bindparam(f"event_{name}", type_=CHANNEL_EVENTS.c[name].type)
        for name in COLUMNS
    )
    event = insert(CHANNEL_EVENTS).from_select(COLUMNS, core_select(*event_columns).select_from(both))
    presence = (
        sa_update(CHANNEL_MEMBERS)
        .where(
            CHANNEL_MEMBERS.c.channel_id == bindparam("channel"),
            CHANNEL_MEMBERS.c.client_id == bindparam("who"),
            exists(core_select(claimed.c.id)),
        )
        .values(last_seen_at=bindparam("at"), polling_until=None)
    )
    return (
        core_select(*claimed.c, numbers.c.last_seq.label("event_seq"))
        .select_from(both)
        .add_cte(event.cte("event"))
        .add_cte(presence.cte("presence"))
    )


_CLAIMED_AT_ONCE = _claimed_at_once()
"""On PostgreSQL, in one statement: the oldest command queued for the caller claimed (not an answer
to a question: those move their question too), its `claimed` event numbered and written, and the
caller no longer listening (the wait ends with it). Nothing at all when there is none to claim."""
