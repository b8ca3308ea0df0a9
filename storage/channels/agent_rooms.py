"""An agent's rooms as its tool calls read them on the database's driver: every room of an owner it
joined, the rooms a call's checks need, and the commands it holds in a room
(`romergo.channels.memberships` says what binds and what is refused).

Every guarded tool call reads the caller's rooms, so these are built once, on the tables' columns,
and hand up the rooms, memberships and commands as records.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from functools import cache
from typing import Any

from sqlalchemy import Select, bindparam, or_, union
from sqlalchemy import select as sa_select

from storage.channels.joins import CALLERS_MEMBERSHIP
from storage.channels.records import CommandRecord, MembershipRecord, RoomRecord
from storage.channels.rooms import ROOM_COLUMNS, command_of_columns, room_of_columns
from storage.core_tables import CHANNEL_MEMBERS, CHANNELS, COMMANDS, record_maker
from storage.driver import Found, Rows
from storage.tables import ChannelMember

Joined = tuple[RoomRecord, MembershipRecord]


def joined_rooms_on_driver(rows: Rows, user_id: str, client_id: str) -> list[Joined]:
    """Every room of this owner the client ever joined, with its membership, newest first."""
    return [_joined(row) for row in rows.all(_MEMBERSHIPS, {"client_id": client_id, "user_id": user_id})]


def current_rooms_on_driver(
    rows: Rows, user_id: str, client_id: str, project_id: str | None, now: datetime
) -> list[Joined]:
    """The client's rooms of this owner not yet ended or expired by `now`, and its newest on
    `project_id`, with their memberships, newest first."""
    params = {"who": client_id, "user_id": user_id, "project_id": project_id, "now": now}
    return [_joined(row) for row in rows.all(_CURRENT_ROOMS, params)]


def held_on_driver(
    rows: Rows, statement: Select[Any], channel_id: str, client_id: str
) -> list[CommandRecord]:
    """The commands the client holds in the room (`held_statement`'s states)."""
    return [
        command_of_columns(row)
        for row in rows.all(statement, {"channel_id": channel_id, "client_id": client_id})
    ]


@cache
def held_statement(states: Sequence[str]) -> Select[Any]:
    """A room's commands in one of `states` that the client took (built once per states). The
    (channel, client, state) index leads straight to the few held commands, however many the client
    took before. Equalities, not IN: the driver takes no expanding list."""
    return sa_select(COMMANDS).where(
        COMMANDS.c.channel_id == bindparam("channel_id"),
        COMMANDS.c.claimed_by == bindparam("client_id"),
        or_(*(COMMANDS.c.state == state for state in states)),
    )


def _joined(row: Found) -> Joined:
    return room_of_columns(row[:_CHANNEL_END]), _membership(row[_CHANNEL_END:])


_CHANNEL_END = len(ROOM_COLUMNS)
_membership = record_maker(MembershipRecord, ChannelMember)
_MINE = (CHANNEL_MEMBERS.c.client_id == bindparam("client_id"), CHANNELS.c.user_id == bindparam("user_id"))
_NEWEST_FIRST = (CHANNELS.c.created_at.desc(), CHANNELS.c.id.desc())
_MEMBERSHIPS = (
    sa_select(*ROOM_COLUMNS, CHANNEL_MEMBERS)
    .join(CHANNEL_MEMBERS, CHANNEL_MEMBERS.c.channel_id == CHANNELS.c.id)
    .where(*_MINE)
    .order_by(*_NEWEST_FIRST)
)
_NEWEST_ON_PROJECT = (
    sa_select(CHANNELS.c.id)
    .join(CHANNEL_MEMBERS, CALLERS_MEMBERSHIP)
    .where(CHANNELS.c.user_id == bindparam("user_id"), CHANNELS.c.project_id == bindparam("project_id"))
    .order_by(*_NEWEST_FIRST)
    .limit(1)
    .scalar_subquery()
)
_CURRENT_ROOM_IDS = union(
    sa_select(CHANNELS.c.id).where(
        CHANNELS.c.user_id == bindparam("user_id"),
        CHANNELS.c.ended_at.is_(None),
        CHANNELS.c.expires_at > bindparam("now"),
    ),
    sa_select(_NEWEST_ON_PROJECT),
)
_CURRENT_ROOMS = (
    sa_select(*ROOM_COLUMNS, CHANNEL_MEMBERS)
    .join(CHANNEL_MEMBERS, CALLERS_MEMBERSHIP)
    .where(CHANNELS.c.id.in_(_CURRENT_ROOM_IDS))
    .order_by(*_NEWEST_FIRST)
)
"""The rooms not yet ended or expired, and the newest on the project: found through the owner's
rooms, each membership then by its key (`CALLERS_MEMBERSHIP`), so a client's earlier rooms are
never walked."""
