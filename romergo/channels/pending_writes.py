"""Calls' tool events, written after the calls answered, in one write on the database's driver.

Every agent call in a room leaves a `tool_started` and a `tool_finished` behind it
(`channels.pending_tool_events`). Written through the ORM's transaction, that write cost about as
much of the server's time as the read the agent asked for (docs/performance.md). Each command's run
of events is one conditional UPDATE of its state and its events' rows, prebuilt Core statements on
the driver (`Database.write_rows`).

A command's next state can depend on more than the run: one awaiting a confirmation moves on by how
many confirmations still wait, and a command the owner or the sweeper moved since the call read it
moves on from its state now (`command_moves.moved_from_now`: both rare, each a statement more).
"""

from __future__ import annotations

from datetime import datetime

from romergo.channels.command_moves import moved_from_now
from romergo.channels.pending_tool_events import PendingEvents, merged
from romergo.channels.tx import write_events
from storage.driver import Writes


def write_pending(rows: Writes, taken: list[PendingEvents], now: datetime) -> set[str]:
    """Write what calls left pending, command by command in the order taken; the channels whose
    events were written (to publish after the commit)."""
    touched: set[str] = set()
    for pending in merged(taken):
        command = pending.command
        moved_from_now(rows, command, pending.new_events, now)
        write_events(rows, command.channel_id, pending.actor, pending.new_events, command.id, now)
        touched.add(command.channel_id)
    return touched
