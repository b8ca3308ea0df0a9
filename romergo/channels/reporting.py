"""An agent's report on the database's driver: the loop's most frequent write.

An agent tells the owner what it is doing several times per command (`status`), asks
(`question`), and ends the command (`reply`, `error`). Through the ORM's transaction a status
report cost ~1.1 ms of the loop's time and a reply ~2.6 ms, most of it SQLAlchemy loading the
command, its channel and the membership as entities for one check and one move. As one write on
the driver (`Database.write_rows`) a report is a Core read of the same row, the same checks in the
same order, one conditional UPDATE of the command and its numbered event; a reply or an error
then reads the command's revisions (and, for a reply, the scenes of the lines and choices its
summary names) and writes what `changes.what_was_recorded` makes of them (
docs/performance.md).
`AgentSide.report` uses it first; the ORM's transaction reports instead (the write raises
`NeedsOrmTransaction`, having changed nothing):

- a command waiting for the owner's "Allow once" (its next state depends on how many
  confirmations still wait);
- a command whose earlier tool calls' events are still pending (`channels.pending_tool_events`: they
  go first, and the ORM's transaction writes them);
- on PostgreSQL, a command another instance moved between the read and the write.
"""

from __future__ import annotations

from datetime import datetime
from typing import Protocol

from romergo.channels.changes import (
    IN_A_SCENE,
    EntityRef,
    compared_summary,
    in_a_scene,
    recorded_change,
    what_was_recorded,
)
from romergo.channels.events import Report
from romergo.channels.models import Caller
from romergo.channels.store import ChannelStore, channel_topic, command_not_found, ensure_holder
from romergo.channels.summary import Summary
from romergo.channels.tx import (
    SYSTEM_ACTOR,
    NeedsOrmTransaction,
    command_moved,
    write_event,
    write_events,
)
from romergo.channels.vocabulary import REPORTABLE_STATES, CommandState, EventKind
from romergo.channels.wait_check import NOT_MEMBER, agent_actor
from romergo.common.errors import RomergoError
from romergo.story.kinds import KINDS
from storage.channels.event_log import move_on_driver
from storage.channels.reports import recorded_for_on_driver, reported_on_driver, scene_of, scene_of_on_driver
from storage.driver import Writes

ENDING = (EventKind.REPLY, EventKind.ERROR)
"""Reports that end the command, with what was recorded for it."""


async def report_on_driver(
    store: ChannelStore, caller: Caller, command_id: object, kind: EventKind, report: Report
) -> tuple[str, str] | None:
    """(command id, its new state) once reported, or None where the ORM's transaction must report
    it (see the module's docstring). Refusals are raised as the ORM's path raises them, with
    nothing written."""
    if not isinstance(command_id, str) or not command_id:
        return None
    now = store.now()
    try:
        channel_id, state = await store.db.write_rows(
            lambda rows: _report(rows, store, caller, command_id, kind, report, now)
        )
    except NeedsOrmTransaction:
        return None
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
    if store.pending_tool_events is not None and store.pending_tool_events.waiting(command_id):
        raise NeedsOrmTransaction  # its earlier calls' events go first (checked in the write turn)
    found = reported_on_driver(rows, command_id, caller.client_id)
    if found is None:
        raise command_not_found(command_id)
    refuse_unless_reportable(found, found.owner, found.member, found.left_at, caller)
    if found.state == CommandState.NEEDS_CONFIRMATION:
        raise NeedsOrmTransaction  # its next state counts the confirmations still waiting
    moved = command_moved(found, [(kind, report)], now)
    # The row cannot move under a SQLite write; on PostgreSQL another instance may have moved it
    # since the read above, and the ORM's transaction then reads it afresh.
    if not move_on_driver(rows, moved, found.state):
        raise NeedsOrmTransaction
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
    """A report's refusals, in the order both paths check them: the command of another owner
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
    with its summary (`changes.what_was_recorded`), as the ORM's transaction writes them."""
    changes = [recorded_change(row) for row in recorded_for_on_driver(rows, command_id)]
    scenes = {entity: _scene_of(rows, entity) for entity in in_a_scene(summary)}
    write_events(rows, channel_id, SYSTEM_ACTOR, what_was_recorded(changes, summary, scenes), command_id, now)


def _scene_of(rows: Writes, entity: EntityRef) -> str | None:
    return scene_of_on_driver(rows, _SCENE_OF, entity[0], entity[1])


_SCENE_OF = scene_of(
    tuple(
        (kind, KINDS[kind].table, parent.column)
        for kind in IN_A_SCENE
        if (parent := KINDS[kind].parent) is not None
    )
)
"""Where a line or a choice a reply's summary names lies (`changes.IN_A_SCENE`), as its kind says."""
