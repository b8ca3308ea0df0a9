"""An agent's report on the database's driver: the loop's most frequent write, and its one path.

An agent tells the owner what it is doing several times per command (`status`), asks
(`question`), and ends the command (`reply`, `error`). Through the ORM's transaction a status
report cost ~1.1 ms of the loop's time and a reply ~2.6 ms, most of it SQLAlchemy loading the
command, its channel and the membership as entities for one check and one move. As one write on
the driver (`Database.write_rows`) a report is a Core read of the same row, the checks, one
conditional UPDATE of the command and its numbered event; a reply or an error then reads the
command's revisions (and, for a reply, the scenes of the lines and choices its summary names) and
writes what `changes.what_was_recorded` makes of them (docs/performance.md).

What only some reports meet is handled in the same write, each a statement or two more:
- a command whose earlier tool calls' events are still pending (`channels.pending_tool_events`):
  they are written first, and the report moves the command on from where they left it;
- a command waiting for the owner's "Allow once": its next state counts the confirmations still
  waiting (`command_moves`);
- on PostgreSQL, a command another instance moved between the read and the write: it is read and
  checked again, and moved on from its state now (a cancelled one refuses the report).
"""

from __future__ import annotations

from datetime import datetime
from typing import Protocol

from romergo.channels.actors import SYSTEM_ACTOR
from romergo.channels.changes import (
    IN_A_SCENE,
    EntityRef,
    compared_summary,
    in_a_scene,
    recorded_change,
    what_was_recorded,
)
from romergo.channels.command_moves import moved_on_driver
from romergo.channels.events import Report
from romergo.channels.models import Caller
from romergo.channels.pending_writes import write_pending
from romergo.channels.store import ChannelStore, channel_topic, command_not_found, ensure_holder
from romergo.channels.summary import Summary
from romergo.channels.tx import write_event, write_events
from romergo.channels.vocabulary import REPORTABLE_STATES, EventKind
from romergo.channels.wait_check import NOT_MEMBER, agent_actor
from romergo.common.errors import RomergoError
from romergo.story.kinds import KINDS
from storage.channels.reports import (
    ReportedCommand,
    recorded_for_on_driver,
    reported_on_driver,
    scene_of,
    scene_of_on_driver,
)
from storage.driver import Writes

ENDING = (EventKind.REPLY, EventKind.ERROR)
"""Reports that end the command, with what was recorded for it."""


async def report_on_driver(
    store: ChannelStore, caller: Caller, command_id: object, kind: EventKind, report: Report
) -> tuple[str, str]:
    """(command id, its new state) once reported. Refusals are raised with nothing written."""
    if not isinstance(command_id, str) or not command_id:
        raise command_not_found(command_id)
    now = store.now()
    channel_id, state = await store.db.write_rows(
        lambda rows: _report(rows, store, caller, command_id, kind, report, now)
    )
    store.bus.deliver(channel_topic(channel_id))  # the other processes heard at the commit
    return command_id, state


def _report(
    rows: Writes,
    store: ChannelStore,
    caller: Caller,
    command_id: str,
    kind: EventKind,
    report: Report,
    now: datetime,
) -> tuple[str, str]:
    """The report as one write: returns (channel id, the command's new state)."""
    found = _reportable(rows, caller, command_id)
    pending = store.pending_tool_events
    if pending is not None and pending.waiting(command_id):  # checked in the write turn: order kept
        write_pending(rows, pending.take(command_id), now)  # first; the move below finds them moved
    while (moved := moved_on_driver(rows, found, [(kind, report)], now)) is None:
        found = _reportable(rows, caller, command_id)  # moved since it was read: read and checked again
    write_event(
        rows,
        found.channel_id,
        agent_actor(caller),
        kind,
        report,
        command_id,
        now,
        numbered_inserts=store.numbered_inserts,
    )
    if kind in ENDING:
        _record_changes(rows, found.channel_id, command_id, compared_summary(kind, report.summary), now)
    for statement, params in store.bus.notices(channel_topic(found.channel_id)):
        rows.first(statement, params)
    return found.channel_id, str(moved["to_state"])


def _reportable(rows: Writes, caller: Caller, command_id: str) -> ReportedCommand:
    """The command as the report reads it, refused unless the caller may report on it."""
    found = reported_on_driver(rows, command_id, caller.client_id)
    if found is None:
        raise command_not_found(command_id)
    refuse_unless_reportable(found, found.owner, found.member, found.left_at, caller)
    return found


class Reportable(Protocol):
    """What a report's refusals read of a command: its entity, its record or the report's read."""

    @property
    def id(self) -> str: ...

    @property
    def state(self) -> str: ...

    @property
    def claimed_by(self) -> str | None: ...


def refuse_unless_reportable(
    command: Reportable,
    owner: str,
    member: str | None,
    left_at: datetime | None,
    caller: Caller,
) -> None:
    """A report's refusals, in this order: the command of another owner
    (`not_found`, as one that is not there), the caller no member of its channel (`not_member`),
    then not the caller's to act on (`ensure_holder`) or no longer reportable (`command_finished`).
    `member` is the caller's membership's client id, None when it never joined."""
    if owner != caller.user_id:
        raise command_not_found(command.id)
    if member is None or left_at is not None:
        raise RomergoError("not_member", NOT_MEMBER)
    ensure_holder(command, caller.client_id)
    if command.state not in REPORTABLE_STATES:
        raise RomergoError("command_finished", f"This command is already {command.state}.")


def _record_changes(
    rows: Writes, channel_id: str, command_id: str, summary: Summary | None, now: datetime
) -> None:
    """After a reply or an error: the changes recorded for the command, and (a reply's) mismatch
    with its summary (`changes.what_was_recorded`)."""
    changes = [recorded_change(row) for row in recorded_for_on_driver(rows, command_id)]
    scenes = {entity: _scene_of(rows, entity) for entity in in_a_scene(summary)}
    write_events(rows, channel_id, SYSTEM_ACTOR, what_was_recorded(changes, summary, scenes), command_id, now)


def _scene_of(rows: Writes, entity: EntityRef) -> str | None:
    return scene_of_on_driver(rows, _SCENE_OF, entity[0], entity[1])


_SCENE_OF = scene_of(
    tuple((kind, parent.column) for kind in IN_A_SCENE if (parent := KINDS[kind].parent) is not None)
)
"""Where a line or a choice a reply's summary names lies (`changes.IN_A_SCENE`), as its kind says."""
