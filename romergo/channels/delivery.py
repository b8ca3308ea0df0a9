"""What one turn of an agent's wait delivers: its held command again, or the next one it claims.

Delivery claims a command for one client in the same transaction that writes its `claimed`
event; a client holds at most one unfinished command per channel and gets it again until it
finishes it. The claim is a conditional update, so two agents never both win a command.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, NamedTuple

from sqlalchemy import ColumnElement, Row, bindparam
from sqlalchemy import update as sa_update
from sqlmodel import col, or_, select
from sqlmodel.sql.expression import Select as Rows

from romergo.channels.events import Claimed, Nothing
from romergo.channels.models import Caller, WaitResult
from romergo.channels.presence import PRESENCE
from romergo.channels.store import ChannelStore, channel_state, channel_topic, command_view
from romergo.channels.tx import ChannelTx, EventActor, LeftToTheSession, write_event
from romergo.channels.vocabulary import (
    FINISHED_STATES,
    HELD_STATES,
    PUT_OUT,
    CommandState,
    EventKind,
    next_state,
)
from romergo.errors import RomergoError
from storage.core_tables import CHANNEL_MEMBERS, CHANNELS, COMMANDS
from storage.driver import Writes
from storage.tables import Channel, ChannelMember, Command

NOT_MEMBER = "You are not a member of this channel. Join it with its code first."


class Delivery:
    def __init__(self, store: ChannelStore) -> None:
        self.store = store

    async def next_for(
        self, caller: Caller, channel_id: str, cursor: int, listening_until: datetime
    ) -> WaitResult | None:
        """The command to hand `caller` now, `channel_ended`, or None (nothing yet: park, and the
        agent counts as listening until `listening_until`)."""
        # Every wait's check runs this, a thousand idle agents' re-polls included: it runs as one
        # write on the database's driver (issues 16, 17). What that leaves to the ORM (a command
        # handed over again, an answer to a question) goes on to the transaction below.
        now = self.store.now()
        numbered = self.store.numbered_inserts
        try:
            checked = await self.store.db.write_rows(
                lambda rows: _check_on_driver(
                    rows, caller, channel_id, cursor, listening_until, now, numbered
                )
            )
        except LeftToTheSession:
            pass
        else:
            if checked is not None and checked.status == "command":
                self.store.bus.publish(channel_topic(channel_id))  # its `claimed` event
            return checked
        # Its statements are Core (rows, not entities), so nothing goes through the ORM's loading
        # and bulk-update steps unless a command is handed over (issue 16).
        async with self.store.tx() as tx:
            now = tx.now()
            params = {"channel": channel_id, "who": caller.client_id}
            found = (
                (await tx.session.exec(_ROOM, params=params)).first() if isinstance(channel_id, str) else None
            )
            room, ended = _room_verdict(found, caller, now)
            if ended is not None:
                return ended
            result = await self._deliver(tx, channel_id, caller, cursor, room.held)
            # Listening until the wait's window ends, unless this wait ends now with a command.
            until = None if result else listening_until
            presence = {"channel": channel_id, "who": caller.client_id, "seen": now, "until": until}
            await tx.session.exec(PRESENCE, params=presence)
            return result

    async def _deliver(
        self, tx: ChannelTx, channel_id: str, caller: Caller, cursor: int, held_id: str | None
    ) -> WaitResult | None:
        """The command this client still holds (again), else the next queued one it wins."""
        if held_id is not None:
            held = await tx.session.get_one(Command, held_id)
            held.deliveries += 1
            await tx.command_event(
                held, EventKind.CLAIMED, agent_actor(caller), _claimed(caller, True), redelivered=True
            )
            return WaitResult("command", held.seq, command_view(held, redelivered=True))
        claimed = await self._claim_next(tx, channel_id, caller, cursor)
        return None if claimed is None else WaitResult("command", claimed.seq, command_view(claimed))

    async def join_cursor(self, tx: ChannelTx, channel: Channel, client_id: str) -> int:
        """Where a (re)joining client's waits start: after its last finished command, else just
        before the oldest command still queued for it, else at the end."""
        finished = (
            await tx.session.exec(
                select(Command.seq)
                .where(
                    Command.channel_id == channel.id,
                    Command.claimed_by == client_id,
                    col(Command.state).in_(FINISHED_STATES),
                )
                .order_by(col(Command.seq).desc())
                .limit(1)
            )
        ).first()
        if finished is not None:
            return int(finished)
        oldest_queued = (
            await tx.session.exec(
                select(Command.seq)
                .where(*_queued_for(channel.id, client_id))
                .order_by(col(Command.seq))
                .limit(1)
            )
        ).first()
        if oldest_queued is not None:
            return int(oldest_queued) - 1
        return await self.store.latest_seq(tx.session, channel.id)

    async def _claim_next(
        self, tx: ChannelTx, channel_id: str, caller: Caller, cursor: int
    ) -> Row[Any] | None:
        """The oldest queued command this client may take, claimed and moved to its new state by one
        conditional UPDATE, as the row it returned; None when there is none to take (the wait parks)."""
        # The condition on the state makes the claim atomic even where the database runs writers
        # in parallel. On PostgreSQL the choice skips rows another claim has locked, so a claim
        # racing another takes the next command instead of none; SQLite's writers take turns.
        claim = {"channel": channel_id, "who": caller.client_id, "after": cursor, "at": tx.now()}
        row = (await tx.session.exec(_CLAIM, params=claim)).first()
        if row is None:
            return None
        # The claimed row as returned, not read again (nothing else in this transaction moves it),
        # and not made an entity: nothing here changes it further.
        claimed = _claimed(caller, False)
        await tx.event(channel_id, EventKind.CLAIMED, agent_actor(caller), claimed, row.id)
        if row.in_reply_to:
            await _mark_answered(tx, row.in_reply_to, caller)
        return row


async def channel_and_member(
    tx: ChannelTx, channel_id: object, client_id: str
) -> tuple[Channel | None, ChannelMember | None]:
    """The channel and this client's membership of it, in one statement."""
    if not isinstance(channel_id, str):
        return None, None
    row = (
        await tx.session.exec(_CHANNEL_AND_MEMBER, params={"channel": channel_id, "who": client_id})
    ).first()
    return (None, None) if row is None else (row[0], row[1])


async def membership(
    tx: ChannelTx, caller: Caller, channel_id: str, channel: Channel | None = None
) -> tuple[Channel, ChannelMember]:
    """The caller's live membership of the channel, else `not_member`."""
    if channel is None:
        channel, member = await channel_and_member(tx, channel_id, caller.client_id)
    else:
        member = await tx.session.get(ChannelMember, (channel_id, caller.client_id))
    if channel is None or channel.user_id != caller.user_id or member is None or member.left_at is not None:
        raise RomergoError("not_member", NOT_MEMBER)
    return channel, member


def agent_actor(caller: Caller) -> EventActor:
    return EventActor("agent", caller.client_id, caller.client_name)


def _check_on_driver(
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
    `LeftToTheSession` (the write rolls back) when the caller still holds a command (handed over
    again) or the command answers a question (it moves the question too)."""
    params = {"channel": channel_id, "who": caller.client_id, "after": cursor}
    found = rows.first(_ROOM_AND_NEXT, params) if isinstance(channel_id, str) else None
    room, ended = _room_verdict(None if found is None else found[:_ROOM_COLUMNS], caller, now)
    if ended is not None:
        return ended
    next_id, answers = (None, None) if found is None else found[_ROOM_COLUMNS:]
    if room.held is not None or answers is not None:
        raise LeftToTheSession
    claimed = None if next_id is None else rows.first(_CLAIM, params | {"at": now})
    if claimed is not None and claimed.in_reply_to is not None:
        raise LeftToTheSession  # another instance took the one looked at (PostgreSQL), and this answers
    rows.run(PRESENCE, params | {"seen": now, "until": None if claimed else until})
    if claimed is None:
        return None
    assert isinstance(channel_id, str)
    claimed_event = _claimed(caller, False)
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


def _room_verdict(found: Any, caller: Caller, now: datetime) -> tuple[_Room, WaitResult | None]:
    """The room of a wait's check, with `channel_ended` when it ended for everyone or for this
    agent (the owner removed or revoked it); `not_member` when the caller is not in it."""
    room = None if found is None else _Room._make(found)
    if room is None or room.user_id != caller.user_id:
        raise RomergoError("not_member", NOT_MEMBER)
    if channel_state(room, now) != "live" or room.left_reason in PUT_OUT:
        return room, WaitResult("channel_ended", room.last_seq)
    if room.member is None or room.left_at is not None:
        raise RomergoError("not_member", NOT_MEMBER)
    return room, None


async def _mark_answered(tx: ChannelTx, question_id: str, caller: Caller) -> None:
    question = await tx.session.get(Command, question_id)
    if question is not None and question.state == CommandState.AWAITING_ANSWER:
        await tx.command_event(question, EventKind.ANSWERED, agent_actor(caller), Nothing())


def _queued_for(channel_id: object, client_id: object) -> tuple[ColumnElement[bool], ...]:
    """Queued in this channel, and not reserved for another client (an answer goes to who asked).
    The ids are values, or bound parameters in a statement built once."""
    return (
        COMMANDS.c.channel_id == channel_id,
        COMMANDS.c.state == CommandState.QUEUED,
        or_(COMMANDS.c.reserved_for.is_(None), COMMANDS.c.reserved_for == client_id),
    )


def _claimed(caller: Caller, redelivered: bool) -> Claimed:
    return Claimed(client_id=caller.client_id, agent_name=caller.client_name, redelivered=redelivered)


# Built once: every wait runs these (issue 16: building them cost about as much as running them).
CALLERS_MEMBERSHIP = (CHANNEL_MEMBERS.c.channel_id == CHANNELS.c.id) & (
    CHANNEL_MEMBERS.c.client_id == bindparam("who")
)
"""The join condition of a channel to the membership of the client bound as `who` (on the tables,
so the entity selects and the row selects below share it)."""
_CHANNEL_AND_MEMBER = (
    select(Channel, ChannelMember)
    .outerjoin(ChannelMember, CALLERS_MEMBERSHIP)
    .where(col(Channel.id) == bindparam("channel"))
)


class _Room(NamedTuple):
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
        # Equalities, not IN: an IN list is expanded into the SQL at every execution (issue 16).
        or_(*(COMMANDS.c.state == state for state in HELD_STATES)),
    )
    .order_by(COMMANDS.c.seq)
    .limit(1)
    .scalar_subquery()
)
"""The unfinished command the caller holds in the channel, if any: read with the room."""
_ROOM: Rows[*tuple[Any, ...]] = (
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
_NEXT_QUEUED = (
    select(COMMANDS.c.id, COMMANDS.c.in_reply_to)
    .where(*_queued_for(bindparam("channel"), bindparam("who")), COMMANDS.c.seq > bindparam("after"))
    .order_by(COMMANDS.c.seq)
    .limit(1)
    .subquery()
)
_ROOM_COLUMNS = len(_Room._fields)
_ROOM_AND_NEXT = _ROOM.add_columns(
    select(_NEXT_QUEUED.c.id).scalar_subquery().label("next_id"),
    select(_NEXT_QUEUED.c.in_reply_to).scalar_subquery().label("answers"),
)
"""The room, with the command the claim would take next and the question it answers, if any."""
_OLDEST_QUEUED = (
    select(COMMANDS.c.id)
    .where(*_queued_for(bindparam("channel"), bindparam("who")), COMMANDS.c.seq > bindparam("after"))
    .order_by(COMMANDS.c.seq)
    .limit(1)
    .with_for_update(skip_locked=True)
    .scalar_subquery()
)
_CLAIM = (
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
