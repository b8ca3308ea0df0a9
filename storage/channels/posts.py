"""A command posted on the database's driver: the owner's busiest step (`romergo.channels.posting`
says when it applies and what it checks between these statements).

On SQLite a post takes the room's next number (`NUMBERED_POST`, returning what posting checks),
then writes the command and its `command` event, in one write. On PostgreSQL each statement is a
round trip: there the post reads the room without taking a number, and one statement whose
data-modifying CTEs take the number, write the command and its event and send the NOTIFY
(`_POSTED_AT_ONCE`). Its UPDATE repeats the room's checks (this owner's, not ended, not expired), so
a room ended in between matches nothing and writes nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import Select, String, Table, bindparam, func, insert, select, update

from storage.channels.event_log import append_one_on_driver
from storage.channels.numbering import COLUMNS
from storage.channels.records import CommandRecord, PostingRoom
from storage.core_tables import CHANNEL_EVENTS, CHANNELS, COMMANDS, USERS
from storage.driver import Rows, Writes
from storage.records import record_of

Row = dict[str, Any]


def numbered_room_on_driver(rows: Writes, user_id: str, channel_id: str) -> PostingRoom | None:
    """The owner's room with the next event number taken for the post; None when it is not this
    owner's (nothing changed)."""
    found = rows.first(NUMBERED_POST, {"channel": channel_id, "owner": user_id})
    return None if found is None else PostingRoom._make(found)


def posting_room_on_driver(rows: Rows, user_id: str, channel_id: str) -> PostingRoom | None:
    """The owner's room as `numbered_room_on_driver` returns it, read without taking a number
    (`seq` is the room's last); None when it is not this owner's."""
    found = rows.first(_POSTING_ROOM, {"channel": channel_id, "owner": user_id})
    return None if found is None else PostingRoom._make(found)


def command_on_driver(rows: Rows, command_id: str) -> CommandRecord | None:
    """A command as the write sees it (the question a post answers); None when there is none."""
    found = rows.first(_COMMAND, {"command": command_id})
    return None if found is None else record_of(CommandRecord, found)


def write_post_on_driver(rows: Writes, command: Row, shared: Row, own: Row) -> None:
    """The command and its `command` event, under the number the room gave it (`command["seq"]`)."""
    rows.run(_INSERT_COMMAND, command)
    append_one_on_driver(rows, command["channel_id"], shared, own, seq=command["seq"])


def post_at_once_on_driver(
    rows: Writes,
    user_id: str,
    now: datetime,
    command: Row,
    event: Row,
    notice: dict[str, Any] | None,
) -> int | None:
    """The room's next number taken, the command and its event (`event`: the columns of
    `event_rows`) written under it and, with `notice`, the NOTIFY sent: one statement (PostgreSQL).
    The number; None when the room is not this owner's live one (nothing written)."""
    params: dict[str, Any] = {"channel": command["channel_id"], "owner": user_id, "now": now}
    if notice is not None:
        params |= {"notify_channel": notice["channel"], "notify_payload": notice["payload"]}
    params |= {f"command_{name}": value for name, value in command.items()}
    params |= {f"event_{name}": value for name, value in event.items()}
    written = rows.first(_POSTED_AT_ONCE[notice is not None], params)
    return None if written is None else int(written.last_seq)


# Built once: posting a command runs it (building it cost about as much as running it).
# The owner is bound, not correlated: SQLite's RETURNING drops table names from its columns.
_OWNER_NAME = select(USERS.c.username).where(USERS.c.id == bindparam("owner")).scalar_subquery()
NUMBERED_POST = (
    update(CHANNELS)
    .where(CHANNELS.c.id == bindparam("channel"), CHANNELS.c.user_id == bindparam("owner"))
    .values(last_seq=CHANNELS.c.last_seq + 1)
    .returning(
        CHANNELS.c.id,
        CHANNELS.c.project_id,
        CHANNELS.c.scope,
        CHANNELS.c.ended_at,
        CHANNELS.c.end_reason,
        CHANNELS.c.expires_at,
        _OWNER_NAME,
        CHANNELS.c.last_seq,
    )
)
"""The owner's room's next event number taken, returning a `PostingRoom`."""

# Built once, every column bound (the driver compiles a statement once, not per set of keys).
_INSERT_COMMAND = insert(COMMANDS).values({column.name: bindparam(column.name) for column in COMMANDS.c})

_COMMAND = select(*COMMANDS.c).where(COMMANDS.c.id == bindparam("command"))

_POSTING_ROOM = select(*NUMBERED_POST.exported_columns).where(
    CHANNELS.c.id == bindparam("channel"), CHANNELS.c.user_id == bindparam("owner")
)
"""`NUMBERED_POST`'s row read, without taking the number (PostgreSQL's post reads first)."""


def _posted_at_once(notifying: bool) -> Select[Any]:
    numbered = (
        update(CHANNELS)
        .where(
            CHANNELS.c.id == bindparam("channel"),
            CHANNELS.c.user_id == bindparam("owner"),
            CHANNELS.c.ended_at.is_(None),
            CHANNELS.c.expires_at > bindparam("now", type_=CHANNELS.c.expires_at.type),
        )
        .values(last_seq=CHANNELS.c.last_seq + 1)
        .returning(CHANNELS.c.last_seq)
        .cte("numbered")
    )

    def taking_the_number(table: Table, prefix: str, names: Sequence[str]) -> Select[Any]:
        return select(
            *(
                numbered.c.last_seq
                if name == "seq"
                else bindparam(f"{prefix}_{name}", type_=table.c[name].type)
                for name in names
            )
        ).select_from(numbered)

    command_columns = [column.name for column in COMMANDS.c]
    command = insert(COMMANDS).from_select(
        command_columns, taking_the_number(COMMANDS, "command", command_columns)
    )
    event = insert(CHANNEL_EVENTS).from_select(COLUMNS, taking_the_number(CHANNEL_EVENTS, "event", COLUMNS))
    notify = func.pg_notify(
        bindparam("notify_channel", type_=String), bindparam("notify_payload", type_=String)
    )
    returned = (
        select(numbered.c.last_seq, notify.label("notified")) if notifying else select(numbered.c.last_seq)
    )
    return returned.add_cte(command.cte("command")).add_cte(event.cte("event"))


_POSTED_AT_ONCE = (_posted_at_once(notifying=False), _posted_at_once(notifying=True))
"""The number taken, the command and its event written (and, where other processes listen, the
NOTIFY sent), in one statement (PostgreSQL: SQLite has no data-modifying CTEs). It matches nothing
when the channel is not this owner's live one."""
