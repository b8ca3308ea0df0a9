"""A channel's events, numbered and written, and the commands they move: the write transaction's
statements, inside a session the channel service opened or a write on the driver.

Every event gets the next number of its channel's one sequence, allocated by a single
`UPDATE … RETURNING` inside the write transaction that also writes the event (DESIGN.md §6), so
the numbers are gap-free and ordered even with several writers. The service computes each
command's next state and each event's row; the statements here only write them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from sqlalchemy import Integer, bindparam, func, insert, update
from sqlalchemy import select as sa_select
from sqlalchemy.exc import NoResultFound
from sqlalchemy.orm.attributes import set_committed_value
from sqlalchemy.orm.util import identity_key
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from storage.channels.numbering import COLUMNS, MAX_AT_ONCE, numbered_insert, numbered_params
from storage.channels.records import CommandRecord, MovingCommand
from storage.channels.rooms import command_of_columns
from storage.core_tables import CHANNEL_EVENTS, CHANNELS, COMMANDS, core_table
from storage.driver import Rows, Writes
from storage.records import columns_of
from storage.tables import Command, Confirmation

Row = dict[str, Any]


class EventLogInSession:
    """The events and command moves of one open write session of this database."""

    def __init__(self, session: AsyncSession, *, numbered_inserts: bool) -> None:
        self.session = session
        self.numbered_inserts = numbered_inserts
        """Number and write a run of events in one statement (PostgreSQL: `numbering`)."""

    async def append(self, channel_id: str, shared: Row, own: list[Row]) -> list[int]:
        """A run of events written: the columns they share and each one's own. One
        `UPDATE … RETURNING` takes their numbers, one INSERT writes them (on PostgreSQL both are one
        statement). `NoResultFound` when the channel is not there."""
        if self.numbered_inserts and len(own) <= MAX_AT_ONCE:
            taken = await self.session.exec(numbered_insert(len(own)), params=numbered_params(shared, own))
            numbers = sorted(taken.scalars().all())
            if len(numbers) != len(own):  # the channel is not there: as `numbers` would fail
                raise NoResultFound(f"No channel {channel_id} to number events in.")
            return numbers
        numbers = await self.numbers(channel_id, len(own))
        await self.write(numbers, shared, own)
        return numbers

    async def numbers(self, channel_id: str, count: int) -> list[int]:
        """The channel's next `count` event numbers, taken (one `UPDATE … RETURNING`)."""
        taken = await self.session.exec(TAKE_NUMBERS, params={"channel": channel_id, "count": count})
        last: int = taken.scalar_one()
        return list(range(last - count + 1, last + 1))

    async def write(self, numbers: list[int], shared: Row, own: list[Row]) -> None:
        """The events under numbers taken with `numbers`, in one INSERT."""
        rows = [shared | row | {"seq": seq} for seq, row in zip(numbers, own, strict=True)]
        # The table, not the entity: a Core INSERT skips the ORM's bulk-insert path.
        await self.session.exec(insert(CHANNEL_EVENTS), params=rows)

    async def pending_confirmations(self, command_id: str) -> int:
        """How many of the command's "Allow once" requests still wait for the owner."""
        waiting = await self.session.scalar(
            select(func.count())
            .select_from(Confirmation)
            .where(col(Confirmation.command_id) == command_id, col(Confirmation.state) == "pending")
        )
        return int(waiting or 0)

    async def move_command(self, moved: Row, *, from_state: str | None = None) -> bool:
        """The command's row moved (`MOVE_COMMAND`'s parameters); with `from_state`, only if the row
        still holds that state (False when it does not, and nothing changed). A row of it the
        session still holds (another read of this transaction loaded it) moves with it, without a
        flush, so the session never answers the state it had before."""
        if from_state is None:
            await self.session.exec(MOVE_COMMAND, params=moved)
        else:
            done = await self.session.exec(MOVE_COMMAND_FROM, params={**moved, "from_state": from_state})
            if done.rowcount == 0:
                return False
        held = self.session.identity_map.get(identity_key(Command, moved["command_id"]))
        if held is not None:
            set_committed_value(held, "state", moved["to_state"])
            set_committed_value(held, "last_activity_at", moved["at"])
            set_committed_value(held, "finished_at", moved["finished"])
        return True

    async def add_command(self, command: CommandRecord) -> None:
        """A new command written as it is, with one INSERT (no entity, no unit-of-work flush: the
        flush cost more than the statement)."""
        await self.session.exec(insert(COMMANDS), params=columns_of(command))

    async def commands_of_room(self, channel_id: str, states: Sequence[str]) -> list[CommandRecord]:
        """The room's commands in one of `states`, oldest first, as the database holds them now."""
        found = await self.session.exec(
            _COMMANDS_OF_ROOM, params={"channel": channel_id, "states": list(states)}
        )
        return [command_of_columns(row) for row in found.all()]

    async def fresh_command(self, command_id: str) -> CommandRecord | None:
        """The command as the database holds it now."""
        found = (await self.session.exec(_COMMAND, params={"command": command_id})).first()
        return None if found is None else command_of_columns(found)


def append_one_on_driver(
    rows: Writes,
    channel_id: str,
    shared: Row,
    own: Row,
    *,
    seq: int | None = None,
    numbered_inserts: bool = False,
) -> int:
    """One event written in a write on the database's driver (`Database.write_rows`): its number
    taken from the channel's sequence (unless taken already: `seq`), then its row; with
    `numbered_inserts` (PostgreSQL) both in one statement. `NoResultFound` when the channel is not
    there."""
    if seq is None and numbered_inserts:
        written = rows.first(numbered_insert(1), numbered_params(shared, [own]))
        if written is None:
            raise NoResultFound(f"No channel {channel_id} to number events in.")
        return int(written.seq)
    if seq is None:
        taken = rows.first(TAKE_NUMBERS, {"channel": channel_id, "count": 1})
        if taken is None:
            raise NoResultFound(f"No channel {channel_id} to number events in.")
        seq = int(taken.last_seq)
    rows.run(INSERT_EVENT, shared | own | {"seq": seq})
    return seq


def append_on_driver(rows: Writes, channel_id: str, shared: Row, own: list[Row]) -> list[int]:
    """A run of events written in a write on the database's driver: their numbers taken in one
    `UPDATE … RETURNING`, then each row."""
    taken = rows.first(TAKE_NUMBERS, {"channel": channel_id, "count": len(own)})
    if taken is None:
        raise NoResultFound(f"No channel {channel_id} to number events in.")
    last = int(taken.last_seq)
    numbers = list(range(last - len(own) + 1, last + 1))
    each = [shared | event | {"seq": number} for number, event in zip(numbers, own, strict=True)]
    rows.run_many(INSERT_EVENT, each)
    return numbers


def waiting_confirmations_on_driver(rows: Rows, command_id: str) -> int:
    """How many of the command's "Allow once" requests still wait for the owner, in a write on the
    driver (`EventLogInSession.pending_confirmations`)."""
    found = rows.first(_WAITING_CONFIRMATIONS, {"command": command_id})
    return 0 if found is None else int(found[0])


def command_now_on_driver(rows: Rows, command_id: str) -> MovingCommand | None:
    """What a command's next state is computed from, as the database holds it now; None when there
    is no such command."""
    found = rows.first(_COMMAND_NOW, {"command": command_id})
    return None if found is None else MovingCommand._make(found)


def move_on_driver(rows: Writes, moved: Mapping[str, Any], from_state: str) -> bool:
    """A command's row moved (`MOVE_COMMAND`'s parameters) in a write on the driver, only if it
    still holds `from_state`."""
    return rows.run(MOVE_COMMAND_FROM, {**moved, "from_state": from_state}) > 0


# Built once: a tool call moves its command twice, and building the statement cost more than
# running it.
MOVE_COMMAND = (
    update(COMMANDS)
    .where(COMMANDS.c.id == bindparam("command_id"))
    .values(state=bindparam("to_state"), last_activity_at=bindparam("at"), finished_at=bindparam("finished"))
)
MOVE_COMMAND_FROM = MOVE_COMMAND.where(COMMANDS.c.state == bindparam("from_state"))

_CONFIRMATIONS = core_table(Confirmation)
_WAITING_CONFIRMATIONS = (
    sa_select(func.count())
    .select_from(_CONFIRMATIONS)
    .where(_CONFIRMATIONS.c.command_id == bindparam("command"), _CONFIRMATIONS.c.state == "pending")
)
# Typed `Any`: sqlmodel's `exec` types only its own selects; a Core read makes records, no entities.
_COMMAND: Any = sa_select(COMMANDS).where(COMMANDS.c.id == bindparam("command"))
_COMMANDS_OF_ROOM: Any = (
    sa_select(COMMANDS)
    .where(
        COMMANDS.c.channel_id == bindparam("channel"),
        COMMANDS.c.state.in_(bindparam("states", expanding=True)),
    )
    .order_by(COMMANDS.c.seq)
)
_COMMAND_NOW = sa_select(COMMANDS.c.id, COMMANDS.c.state, COMMANDS.c.finished_at).where(
    COMMANDS.c.id == bindparam("command")
)

# Built once: every event is numbered by it (building it cost about as much as running it).
# Core, on the table: the ORM's bulk-update path cost several times the statement, and nothing reads
# a loaded channel's `last_seq` after its numbers are taken.
TAKE_NUMBERS = (
    update(CHANNELS)
    .where(CHANNELS.c.id == bindparam("channel"))
    .values(last_seq=CHANNELS.c.last_seq + bindparam("count", type_=Integer))
    .returning(CHANNELS.c.last_seq)
)
INSERT_EVENT = insert(CHANNEL_EVENTS).values({name: bindparam(name) for name in COLUMNS})
