"""What the server itself recorded for a command (its Revisions), and how that compares with
what the agent says it changed (the reply's summary).

A reply or an error ends its command with the events `what_was_recorded` makes of both. The
report's write (`channels.reporting`) reads their inputs with its statements; the room's view and
a call's changes read a command's changes with `command_changes`; what the events say is decided
here, once.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any, Protocol

from romergo.channels.events import ChangesRecorded, EntityKey, Payload, RecordedChange, SummaryMismatch
from romergo.channels.ledger import RoomReads
from romergo.channels.summary import Summary
from romergo.channels.vocabulary import EventKind
from romergo.common.clock import iso
from romergo.story.kinds import Kind, kind_named, under

IN_A_SCENE = under("scene")
"""Entities whose change counts as a change of their scene too (CONTRACT.md §4)."""

EntityRef = tuple[str, str]
"""(entity type, entity id)."""


def compared_summary(kind: EventKind, summary: Summary | None) -> Summary | None:
    """The summary a command's end is compared with what was recorded: a reply's. An error may
    carry one too; it is shown, not compared."""
    return summary if kind == EventKind.REPLY else None


def what_was_recorded(
    changes: list[dict[str, Any]], summary: Summary | None, scenes: Mapping[EntityRef, str | None]
) -> list[tuple[EventKind, Payload | None]]:
    """The events that end a command after its reply or error: the changes recorded for it, then
    (a reply's) mismatch with its summary, if any. `scenes`: the scene of each line and choice the
    summary names (`in_a_scene`), None for one that is not there."""
    happened: list[tuple[EventKind, Payload | None]] = [
        (
            EventKind.CHANGES_RECORDED,
            ChangesRecorded(changes=[RecordedChange.model_validate(change) for change in changes]),
        )
    ]
    mismatch = None if summary is None else summary_mismatch(changes, summary, scenes)
    if mismatch is not None:
        happened.append((EventKind.SUMMARY_MISMATCH, mismatch))
    return happened


async def command_changes(reads: RoomReads, command_id: str) -> list[dict[str, Any]]:
    return [recorded_change(revision) for revision in await reads.command_revisions(command_id)]


def recorded_change(row: Recorded) -> dict[str, Any]:
    """One change as a command's changes list it, from its revision (a record or a driver's row)."""
    return {
        "entity_type": row.entity_type,
        "entity_id": row.entity_id,
        "title": _title(row),
        "action": row.action,
        "before": row.before,
        "after": row.after,
        "tool": row.tool,
        "at": iso(row.created_at),
    }


def in_a_scene(summary: Summary | None) -> list[EntityRef]:
    """The lines and choices a summary names: `what_was_recorded` needs their scenes."""
    if summary is None:
        return []
    return sorted({(e.type, e.id) for e in summary.changed_entities if e.type in IN_A_SCENE})


def summary_mismatch(
    recorded: list[dict[str, Any]], summary: Summary, scenes: Mapping[EntityRef, str | None]
) -> SummaryMismatch | None:
    """None when the summary's changed entities match what was recorded, else both differences.

    A change to a dialogue line or a choice counts as a change of its scene too (CONTRACT.md §4).
    """
    claimed = {(e.type, e.id) for e in summary.changed_entities}
    scene_of_recorded = {(c["entity_type"], c["entity_id"]): _scene_of_change(c) for c in recorded}
    recorded_scenes = {("scene", scene) for scene in scene_of_recorded.values() if scene}
    claimed_scenes = {("scene", scene) for key in claimed if (scene := scenes.get(key))}
    claimed_not_recorded = sorted(claimed - set(scene_of_recorded) - recorded_scenes)
    recorded_not_claimed = sorted(
        key
        for key, scene in scene_of_recorded.items()
        if key not in claimed | claimed_scenes and ("scene", scene) not in claimed
    )
    if not claimed_not_recorded and not recorded_not_claimed:
        return None
    return SummaryMismatch(
        claimed_not_recorded=[EntityKey(type=t, id=i) for t, i in claimed_not_recorded],
        recorded_not_claimed=[EntityKey(type=t, id=i) for t, i in recorded_not_claimed],
    )


def _scene_of_change(change: dict[str, Any]) -> str | None:
    kind = _in_a_scene(change["entity_type"])
    if kind is None:
        return None
    snapshot = change.get("after") or change.get("before") or {}
    scene = snapshot.get(_scene_column(kind))
    return scene if isinstance(scene, str) else None


def _in_a_scene(entity_type: str) -> Kind | None:
    kind = kind_named(entity_type)
    return kind if kind is not None and kind.entity_type in IN_A_SCENE else None


def _scene_column(kind: Kind) -> str:
    assert kind.parent is not None
    return kind.parent.column


def _title(row: Recorded) -> str:
    snapshot = row.after or row.before or {}
    kind = kind_named(row.entity_type)
    value = snapshot.get(kind.title_key) if kind is not None else None
    if isinstance(value, str):
        return value if len(value) <= 80 else value[:77] + "…"
    return str(row.entity_id)


class Recorded(Protocol):
    """A revision's columns a changes list shows (a `RecordedRevision`, or the driver's row)."""

    @property
    def entity_type(self) -> str: ...

    @property
    def entity_id(self) -> str: ...

    @property
    def action(self) -> str: ...

    @property
    def before(self) -> dict[str, Any] | None: ...

    @property
    def after(self) -> dict[str, Any] | None: ...

    @property
    def tool(self) -> str | None: ...

    @property
    def created_at(self) -> datetime: ...
