"""A command's next state, and its row moved there in a write on the database's driver.

An event about a command moves the command's state by `next_state`, in the write that writes the
event. A write on the driver moves the row only if it still holds the state the write read: where
another writer moved it meanwhile (on PostgreSQL, another instance; or the write's own earlier
tool events), the command is read as it is now and moved on from there. A command awaiting the
owner's "Allow once" moves on by how many of its confirmations still wait, read with the move.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Protocol

from romergo.channels.events import NewEvents
from romergo.channels.vocabulary import FINISHED_STATES, CommandState, next_state
from romergo.common.errors import RomergoError
from storage.channels.event_log import command_now_on_driver, move_on_driver, waiting_confirmations_on_driver
from storage.driver import Writes


class CommandNow(Protocol):
    """What a command's next state is computed from: its entity, or a row of these columns."""

    @property
    def id(self) -> str: ...

    @property
    def state(self) -> str: ...

    @property
    def finished_at(self) -> datetime | None: ...


def command_moved(
    command: CommandNow,
    new_events: NewEvents,
    now: datetime,
    *,
    waiting: int = 0,
    redelivered: bool = False,
) -> dict[str, Any]:
    """The command's row after `new_events` (`waiting`: its confirmations still pending), as
    the event log's move (`EventLog.move_command`)."""
    state = CommandState(command.state)
    for kind, _ in new_events:
        state = next_state(state, kind, redelivered=redelivered, waiting_confirmations=waiting)
    finished_at = command.finished_at
    if state in FINISHED_STATES or state == CommandState.CANCELLED:
        finished_at = finished_at or now
    return {"command_id": command.id, "to_state": state.value, "at": now, "finished": finished_at}


def moved_on_driver(
    rows: Writes, command: CommandNow, new_events: NewEvents, now: datetime, *, redelivered: bool = False
) -> dict[str, Any] | None:
    """The command's row moved through `new_events` from the state read (`command.state`); None,
    having changed nothing, when the row no longer holds it."""
    waiting = 0
    if command.state == CommandState.NEEDS_CONFIRMATION:  # else none can be waiting: skip the query
        waiting = waiting_confirmations_on_driver(rows, command.id)
    moved = command_moved(command, new_events, now, waiting=waiting, redelivered=redelivered)
    return moved if move_on_driver(rows, moved, command.state) else None


def moved_from_now(
    rows: Writes, command: CommandNow, new_events: NewEvents, now: datetime, *, redelivered: bool = False
) -> dict[str, Any]:
    """`moved_on_driver`, and where the row moved since it was read, moved on from its state now.

    Each retry follows a move another writer committed in between, and a command has only a few
    states to pass through, so a handful of retries is already more than can happen; the bound
    keeps a write from looping on a row it cannot understand."""
    for _ in range(MOST_MOVES_MEANWHILE):
        moved = moved_on_driver(rows, command, new_events, now, redelivered=redelivered)
        if moved is not None:
            return moved
        fresh = command_now_on_driver(rows, command.id)
        if fresh is None:
            raise RomergoError("not_found", f'Command "{command.id}" no longer exists.')
        command = fresh
    raise RomergoError("conflict", f'Command "{command.id}" kept changing while this was written; try again.')


MOST_MOVES_MEANWHILE = 8
"""How many times one write follows a command that other writers moved since it read it."""
