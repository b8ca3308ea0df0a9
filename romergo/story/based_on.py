"""Every write says what it was based on: a writer that names the revision it read is merged with
what changed since, or refused, never allowed to replace a newer change silently.

`based_on` runs inside the write's own transaction, before anything is changed. The writer gives
the fields it sets (`mine`, in the snapshot's terms). When the entity is still at the revision it
read, they are written as given. Otherwise the base is the entity as it was at that revision (the
`before` of its first later revision), `theirs` is the entity now, and per field:
- the writer left it as it was (mine == base): it is not written, so a change made since stays;
- only the writer changed it (theirs == base), or both made the same change: mine is written;
- both changed it differently: an `EditConflict` (base / mine / theirs per field, who made the
  other change and when) and nothing is written: the call fails with `conflict`.
A field may bring its own merge: a scene's choices merge choice by choice, by their ids
(`romergo.story.choice_lists`).

Without a revision (`expected=None`) the write goes through as before. But when an agent's tool
call writes so, over a field someone else changed after the revision that agent last saw
(`romergo.story.read_marks`), the call is told: a `ReplacedChange` the tool's result and its
`tool_finished` event carry. `attempt` turns the refusal into a value, for a form that shows the
conflict in place of its save.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from datetime import datetime
from typing import Any, TypeVar

from romergo.common.clock import iso
from romergo.common.errors import RomergoError, invalid
from romergo.story.base import Mutation
from romergo.story.kinds import LABELS
from romergo.story.ledger import RevisionRecord
from romergo.story.read_marks import read_since

T = TypeVar("T")


@dataclass(frozen=True)
class FieldConflict:
    field: str
    base: Any
    mine: Any
    theirs: Any


Merge = Callable[
    [Mapping[str, Any], Mapping[str, Any], Mapping[str, Any]], tuple[dict[str, Any], list[FieldConflict]]
]
"""(base, theirs, mine) -> what to write, and where both sides differ."""
Lost = Callable[[Mapping[str, Any], Mapping[str, Any], Mapping[str, Any]], list[str]]
"""(base, theirs, mine) -> the fields a write of mine as given takes away of changes since base."""


@dataclass(frozen=True)
class ChangedBy:
    """Who made the newest change of the entity: the author, an agent (its client and command)."""

    actor_type: str
    actor_id: str
    client_id: str | None
    command_id: str | None
    tool: str | None
    at: datetime

    @property
    def who(self) -> str:
        """ "author", or "agent <client_id>"."""
        return "author" if self.actor_type == "user" else f"agent {self.client_id}"


@dataclass(frozen=True)
class EditConflict:
    entity_type: str
    entity_id: str
    expected_revision: int
    revision: int
    """The entity's revision now: read it again, or write with this one to keep mine."""
    fields: tuple[FieldConflict, ...]
    current: Mapping[str, Any]
    changed_by: ChangedBy | None


class EditConflictError(RomergoError):
    def __init__(self, conflict: EditConflict) -> None:
        super().__init__("conflict", _message(conflict))
        self.conflict = conflict


async def attempt(write: Awaitable[T]) -> T | EditConflict:
    """The written entity, or the conflict that kept the write from happening."""
    try:
        return await write
    except EditConflictError as error:
        return error.conflict


async def based_on(
    tx: Mutation,
    entity_type: str,
    entity_id: str,
    current: Mapping[str, Any],
    mine: Mapping[str, Any],
    expected: int | None,
    *,
    shape: Callable[[dict[str, Any]], dict[str, Any]] | None = None,
    merge: Merge | None = None,
    lost: Lost | None = None,
) -> dict[str, Any]:
    """The fields of `mine` to write (see the module's docstring), or `EditConflictError`.
    `shape` puts a stored snapshot in the terms `current` and `mine` use; `merge` replaces the
    field-by-field merge (`merge_fields`), and `lost` what a write as given takes away of changes
    made since (`lost_changes`)."""
    if expected is None:
        await _tell_if_replacing(tx, entity_type, entity_id, current, mine, shape, lost)
        return dict(mine)
    if isinstance(expected, bool) or not isinstance(expected, int) or expected < 0:
        raise invalid("expected_revision must be a whole number from 0 up.")
    assert tx.project is not None
    newest = await _newest(tx, entity_type, entity_id)
    revision = newest.id if newest is not None and newest.id is not None else 0
    if expected == revision:
        return dict(mine)
    if expected > revision:
        raise invalid(
            f"expected_revision {expected} is newer than this {LABELS[entity_type].lower()}'s revision "
            f"({revision}): pass the revision you read."
        )
    base = await _base(tx, entity_type, entity_id, expected)
    if shape is not None:
        base = shape(base)
    write, conflicts = (merge or merge_fields)(base, current, mine)
    if conflicts:
        assert newest is not None
        changed_by = _changed_by(newest)
        raise EditConflictError(
            EditConflict(
                entity_type, entity_id, expected, revision, tuple(conflicts), dict(current), changed_by
            )
        )
    return write


def merge_fields(
    base: Mapping[str, Any], theirs: Mapping[str, Any], mine: Mapping[str, Any]
) -> tuple[dict[str, Any], list[FieldConflict]]:
    """Three-way merge of the fields the writer gives: what to write, and where both sides differ."""
    write: dict[str, Any] = {}
    conflicts: list[FieldConflict] = []
    for field, value in mine.items():
        was, now = base.get(field), theirs.get(field)
        if value in (now, was):
            continue  # the same change on both sides, or the writer kept what it read
        if was == now:
            write[field] = value
        else:
            conflicts.append(FieldConflict(field, was, value, now))
    return write, conflicts


@dataclass(frozen=True)
class ReplacedChange:
    """A change made after the writing agent last read the entity, which its write replaced."""

    entity_type: str
    entity_id: str
    by: ChangedBy
    fields: tuple[str, ...]


_replaced: ContextVar[list[ReplacedChange] | None] = ContextVar("romergo_replaced_changes", default=None)


@contextmanager
def collect_replaced() -> Iterator[list[ReplacedChange]]:
    """The newer changes the writes inside this block (in this task) replaced."""
    replaced: list[ReplacedChange] = []
    token = _replaced.set(replaced)
    try:
        yield replaced
    finally:
        _replaced.reset(token)


def replaced_by_this_call(entity_type: str, entity_id: str) -> ReplacedChange | None:
    found = [r for r in _replaced.get() or () if (r.entity_type, r.entity_id) == (entity_type, entity_id)]
    return found[-1] if found else None


def replaced_so_far() -> list[ReplacedChange]:
    return list(_replaced.get() or ())


async def _tell_if_replacing(
    tx: Mutation,
    entity_type: str,
    entity_id: str,
    current: Mapping[str, Any],
    mine: Mapping[str, Any],
    shape: Callable[[dict[str, Any]], dict[str, Any]] | None,
    lost: Lost | None,
) -> None:
    """Note a write that replaces a field changed after this agent last read the entity (only
    inside a tool call that gathers them: a page's write asks nothing)."""
    replaced = _replaced.get()
    client_id = tx.actor.client_id
    if replaced is None or client_id is None:
        return
    assert tx.project is not None
    read = await read_since(tx.story, client_id, tx.project.id, entity_type, entity_id)
    if read is None:
        return  # not changed since this agent's last read (or never read: nothing to compare)
    newest = await _newest(tx, entity_type, entity_id)
    assert newest is not None
    base = await _base(tx, entity_type, entity_id, read)
    if shape is not None:
        base = shape(base)
    fields = tuple((lost or lost_changes)(base, current, mine))
    if fields:
        replaced.append(ReplacedChange(entity_type, entity_id, _changed_by(newest), fields))


def _changed_by(newest: RevisionRecord) -> ChangedBy:
    return ChangedBy(
        newest.actor_type,
        newest.actor_id,
        newest.client_id,
        newest.command_id,
        newest.tool,
        newest.created_at,
    )


def lost_changes(base: Mapping[str, Any], theirs: Mapping[str, Any], mine: Mapping[str, Any]) -> list[str]:
    """The fields a write of `mine` as given sets otherwise than a change made since `base`."""
    return [
        field
        for field, value in mine.items()
        if theirs.get(field) != base.get(field) and value != theirs.get(field)
    ]


async def _newest(tx: Mutation, entity_type: str, entity_id: str) -> RevisionRecord | None:
    assert tx.project is not None
    return await tx.story.newest_revision(tx.project.id, entity_type, entity_id)


async def _base(tx: Mutation, entity_type: str, entity_id: str, expected: int) -> dict[str, Any]:
    """The entity as it was at `expected` (empty when it did not exist then: every field then
    counts as changed since)."""
    assert tx.project is not None
    return dict(await tx.story.snapshot_at(tx.project.id, entity_type, entity_id, expected) or {})


def _message(conflict: EditConflict) -> str:
    who = conflict.changed_by
    by = ""
    if who is not None:
        actor = "the author" if who.actor_type == "user" else f"an agent ({who.client_id})"
        command = f", command {who.command_id}" if who.command_id else ""
        by = f" by {actor}{command} at {iso(who.at)}"
    fields = "; ".join(
        f"{item.field} is now {_shown(item.theirs)} "
        f"(you read {_shown(item.base)}, you sent {_shown(item.mine)})"
        for item in conflict.fields
    )
    return (
        f'{LABELS[conflict.entity_type]} "{conflict.entity_id}" changed since revision '
        f"{conflict.expected_revision}{by}; it is now at revision {conflict.revision}. Both changed: "
        f"{fields}. Nothing was written. Read it again and decide, or ask the owner."
    )


def _shown(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)
