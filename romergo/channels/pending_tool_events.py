"""A tool call's events, written just after the call has answered.

A call's `tool_started` and `tool_finished` (or `tool_failed`) only tell the panel what the agent
did: the change itself, and its revision with the command's id, are committed by the call. Written
inside the call they were a write transaction of their own: a quarter of a read's time, and of a
change's. The call now answers first and the events follow a few milliseconds later, several
calls' in one transaction.

Order is kept: every write of events about a command (`ChannelTx.command_events`, `tool_events`)
first writes what is still pending for it, inside its own transaction. That is only sound where a
process's write transactions take turns, one at a time: SQLite, whose writers wait for their turn
on the database file (`storage.inline_sqlite.WriteTurns`). On PostgreSQL, whose transactions run side
by side and whose calls may land on another instance, the events are still written in the call.

What is pending is lost if the process dies within those milliseconds: the panel would miss that
the agent read or changed something; the story, the command, every change and its revision are
untouched (the reply's check and the review read the revisions).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from romergo.channels.actors import EventActor
from romergo.channels.events import NewEvents
from romergo.channels.ledger import CommandRecord

logger = logging.getLogger(__name__)

WINDOW_SECONDS = 0.005
"""How long the first pending call waits for others to share its transaction (and for its own
answer to leave first)."""


@dataclass
class PendingEvents:
    command: CommandRecord
    """The command as the call read it (its state then: the events move it on from there)."""
    actor: EventActor
    """The agent that made the call."""
    new_events: NewEvents


class PendingToolEvents:
    """What calls have yet to write, by command, and the task that writes it."""

    def __init__(self) -> None:
        self._pending: dict[str, list[PendingEvents]] = {}
        self._writing: asyncio.Task[None] | None = None
        self._in_write = False
        self.write: Callable[[], Awaitable[None]] | None = None
        """Writes everything pending in one transaction (`ChannelStore.write_pending_tool_events`)."""

    def add(self, pending: PendingEvents) -> None:
        self._pending.setdefault(pending.command.id, []).append(pending)
        if self._writing is None or self._writing.done():
            self._writing = asyncio.get_running_loop().create_task(self._soon(), name="tool events")

    def waiting(self, command_id: str) -> int:
        """How many calls' events for this command are not written yet."""
        return len(self._pending.get(command_id, ()))

    def take(self, command_id: str) -> list[PendingEvents]:
        """What is pending for one command, now the caller's to write (in its transaction)."""
        return self._pending.pop(command_id, [])

    def take_all(self) -> list[PendingEvents]:
        taken = [pending for waiting in self._pending.values() for pending in waiting]
        self._pending.clear()
        return taken

    def restore(self, taken: list[PendingEvents]) -> None:
        """Put back what `take_all` took and nothing wrote (before anything else was added)."""
        for pending in taken:
            self._pending.setdefault(pending.command.id, []).append(pending)

    async def settled(self) -> None:
        """Every pending event written now (a clean stop, or a test that reads the events next):
        a write under way is waited for; one not begun yet (waiting for its window, or not even
        started) is done at once."""
        writing = self._writing
        if writing is not None and not writing.done():
            if self._in_write:
                await asyncio.shield(writing)
            else:
                writing.cancel()
        if self._pending and self.write is not None:
            await self.write()

    async def _soon(self) -> None:
        await asyncio.sleep(WINDOW_SECONDS)
        self._in_write = True
        try:
            while self._pending and self.write is not None:
                try:
                    await self.write()
                except Exception:  # the caller has its answer already; nobody else would see this
                    logger.exception("Writing the tool events of calls that answered failed")
                    return
        finally:
            self._in_write = False


def merged(taken: list[PendingEvents]) -> list[PendingEvents]:
    """Runs of pending events of one command by one actor as one write (their order kept)."""
    found: list[PendingEvents] = []
    for pending in taken:
        last = found[-1] if found else None
        if last is not None and last.command.id == pending.command.id and last.actor == pending.actor:
            last.new_events = [*last.new_events, *pending.new_events]
        else:
            found.append(PendingEvents(pending.command, pending.actor, list(pending.new_events)))
    return found


START_AFTER_SECONDS = 0.25
"""A change still running after this long shows as running in the panel (`tool_started`)."""


class StartedIfSlow:
    """A change's `tool_started`, written only if the call is still running after a moment.

    Most changes take milliseconds: their `tool_started` is then written with `tool_finished`, in
    one transaction after the change, as a read's are (a write saved per change). A slow
    one (an upload, a long import) still shows as running while it runs."""

    def __init__(self, write: Callable[[], Awaitable[None]]) -> None:
        self.written = False
        self._stopped = False
        self._task = asyncio.get_running_loop().create_task(self._later(write), name="tool started")

    async def stop(self) -> bool:
        """The call is over: whether `tool_started` was written (waited for), else it never will be."""
        self._stopped = True
        if self.written:
            await self._task
            return True
        self._task.cancel()
        return False

    def abandon(self) -> None:
        """The call was cancelled: write nothing more."""
        self._stopped = True
        if not self.written:
            self._task.cancel()

    async def _later(self, write: Callable[[], Awaitable[None]]) -> None:
        await asyncio.sleep(START_AFTER_SECONDS)
        if not self._stopped:
            self.written = True
            await write()
