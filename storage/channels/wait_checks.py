"""A wait's check on the database's driver: the room with the caller's membership and the command
next in line, the claim, and on PostgreSQL the claim with its event in one statement
(`romergo.channels.wait_check` says when each runs and what it decides between them).

The statements name command states (queued, held, the state a claim leaves): the channel service's
vocabulary, given once when they are built (`wait_statements`), so the SQL stays what it was,
states as literals.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from functools import cache
from typing import Any, NamedTuple

from sqlalchemy import Select, Update, bindparam, exists, insert, true
from sqlalchemy import select as core_select
from sqlalchemy import update as sa_update
from sqlmodel import or_, select
from sqlmodel.sql.expression import Select as Rows

from storage.channels.joins import CALLERS_MEMBERSHIP
from storage.channels.numbering import COLUMNS
from storage.channels.presence import PRESENCE
from storage.core_tables import CHANNEL_EVENTS, CHANNEL_MEMBERS, CHANNELS, COMMANDS
from storage.driver import Found, Writes


class WaitRoom(NamedTuple):
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


ROOM_COLUMNS = len(WaitRoom._fields)


@dataclass(frozen=True, slots=True)
class WaitStatements:
    """A wait's statements, built once for the service's states."""

    room_and_next: Select[Any]
    """The room and the caller's membership (`WaitRoom`'s columns), with the command the claim
    would take next and the question it answers, if any."""
    claim: Update
    """The oldest command queued for the caller claimed, `RETURNING` all its columns."""
    claimed_at_once: Select[Any]
    """On PostgreSQL, in one statement: the oldest command queued for the caller claimed (not an
    answer to a question: those move their question too), its `claimed` event numbered and written,
    and the caller no longer listening (the wait ends with it). Nothing when there is none."""


def room_and_next_on_driver(
    rows: Writes, statements: WaitStatements, params: dict[str, Any]
) -> tuple[WaitRoom | None, str | None, str | None]:
    """The room of a wait (`channel`, `who`, `after`), the id of the command queued next for the
    caller after its cursor, and the question that command answers; the room None when there is
    no such channel."""
    found = rows.first(statements.room_and_next, params)
    if found is None:
        return None, None, None
    return WaitRoom._make(found[:ROOM_COLUMNS]), found[ROOM_COLUMNS], found[ROOM_COLUMNS + 1]


def claim_on_driver(rows: Writes, statements: WaitStatements, params: dict[str, Any]) -> Found | None:
    """The oldest command queued for the caller claimed (`channel`, `who`, `after`, `at`): a row
    of all its columns, or None when there was none to take."""
    return rows.first(statements.claim, params)


def claim_at_once_on_driver(
    rows: Writes, statements: WaitStatements, params: dict[str, Any], event: dict[str, Any]
) -> Found | None:
    """`WaitStatements.claimed_at_once` (PostgreSQL) with the `claimed` event's columns but its
    number and command: the claimed row (all its columns and `event_seq`), or None."""
    named = {f"event_{name}": value for name, value in event.items() if name != "command_id"}
    return rows.first(statements.claimed_at_once, params | named)


def hand_again_on_driver(rows: Writes, command_id: str) -> Found:
    """The command its agent still holds, counted delivered once more: a row of all its columns as
    they were before its `claimed` event moves it."""
    found = rows.first(_HAND_AGAIN, {"command": command_id})
    assert found is not None  # commands are never deleted
    return found


_HAND_AGAIN = (
    sa_update(COMMANDS)
    .where(COMMANDS.c.id == bindparam("command"))
    .values(deliveries=COMMANDS.c.deliveries + 1)
    .returning(*COMMANDS.c)
)


def listening_on_driver(rows: Writes, params: dict[str, Any], seen: datetime, until: datetime | None) -> None:
    """The caller seen at `seen` and listening until `until` (None: no longer listening)."""
    rows.run(PRESENCE, params | {"seen": seen, "until": until})


@cache
def wait_statements(queued: str, claimed: str, held: Sequence[str]) -> WaitStatements:
    """The statements for commands waiting in `queued`, left in `claimed` by a claim, and held by
    their agent in one of `held` (built once: every wait runs them, and building them cost about
    as much as running them)."""
    held_now = (
        select(COMMANDS.c.id)
        .where(
            COMMANDS.c.channel_id == bindparam("channel"),
            COMMANDS.c.claimed_by == bindparam("who"),
            # Equalities, not IN: an IN list is expanded into the SQL at every execution.
            or_(*(COMMANDS.c.state == state for state in held)),
        )
        .order_by(COMMANDS.c.seq)
        .limit(1)
        .scalar_subquery()
    )
    room: Rows[*tuple[Any, ...]] = (
        Rows(
            CHANNELS.c.user_id,
            CHANNELS.c.ended_at,
            CHANNELS.c.end_reason,
            CHANNELS.c.expires_at,
            CHANNELS.c.last_seq,
            CHANNEL_MEMBERS.c.client_id.label("member"),
            CHANNEL_MEMBERS.c.left_at,
            CHANNEL_MEMBERS.c.left_reason,
            held_now.label("held"),
        )
        .select_from(CHANNELS)
        .outerjoin(CHANNEL_MEMBERS, CALLERS_MEMBERSHIP)
        .where(CHANNELS.c.id == bindparam("channel"))
    )
    queued_next = (
        select(COMMANDS.c.id, COMMANDS.c.in_reply_to)
        .where(
            COMMANDS.c.channel_id == bindparam("channel"),
            COMMANDS.c.state == queued,
            or_(COMMANDS.c.reserved_for.is_(None), COMMANDS.c.reserved_for == bindparam("who")),
            COMMANDS.c.seq > bindparam("after"),
        )
        .order_by(COMMANDS.c.seq)
        .limit(1)
    )
    next_queued = queued_next.subquery()
    room_and_next = room.add_columns(
        select(next_queued.c.id).scalar_subquery().label("next_id"),
        select(next_queued.c.in_reply_to).scalar_subquery().label("answers"),
    )
    oldest_queued = (
        queued_next.with_only_columns(COMMANDS.c.id).with_for_update(skip_locked=True).scalar_subquery()
    )
    claim = (
        sa_update(COMMANDS)
        .where(COMMANDS.c.id == oldest_queued, COMMANDS.c.state == queued)
        .values(
            claimed_by=bindparam("who"),
            claimed_at=bindparam("at"),
            deliveries=1,
            state=claimed,
            last_activity_at=bindparam("at"),
        )
        .returning(*COMMANDS.c)
    )
    return WaitStatements(room_and_next, claim, _claimed_at_once(claim))


def _claimed_at_once(claim: Update) -> Select[Any]:
    claimed = claim.where(COMMANDS.c.in_reply_to.is_(None)).cte("claimed")
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
