"""Many entities of one type written at once, each with the revision `Mutation.record` would write.

For the writes that may touch every line of a long story (an import, a replace across the whole
story): making an ORM object of each of 50,000 lines and of each revision took 10-30 s of the event
loop's thread. Here the rows are plain values written by multi-row statements, BULK_ROWS
at a time, and the event loop is let go between batches: SQLite runs on the loop's thread, and other
calls (reads, pages) go on meanwhile. Other writers wait their turn, as for any write transaction
(`WriteTurns`); readers see the rows when the transaction commits.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from romergo.story.base import EntityChange, Mutation
from romergo.story.kinds import Action, EntityType

T = TypeVar("T")
BULK_ROWS = 500
"""Rows written between two turns of the event loop (~60 ms of work)."""


@dataclass(frozen=True)
class BulkUpdate:
    """One row's change for `updated_in_bulk`: its snapshots and the columns to set."""

    entity_id: str
    before: dict[str, Any]
    after: dict[str, Any]
    values: dict[str, Any]


async def created_in_bulk(
    tx: Mutation,
    entity_type: EntityType,
    rows: list[dict[str, Any]],
    after: Callable[[dict[str, Any]], dict[str, Any]],
) -> None:
    """New entities of `entity_type` (their columns, each with an "id"), each with its "created"
    revision (`after(row)`)."""
    for part in _batches(rows):
        await tx.story.insert_rows(entity_type, part)
        await _revisions(tx, entity_type, "created", [(row["id"], None, after(row)) for row in part])


async def updated_in_bulk(tx: Mutation, entity_type: EntityType, changes: list[BulkUpdate]) -> None:
    """Entities of `entity_type` changed, each with its "updated" revision. A change whose snapshot
    stays the same is not written, as with `Mutation.save`. Every change sets the same columns."""
    changes = [change for change in changes if change.after != change.before]
    for part in _batches(changes):
        await tx.story.update_rows(entity_type, [{**c.values, "id": c.entity_id} for c in part])
        await _revisions(tx, entity_type, "updated", [(c.entity_id, c.before, c.after) for c in part])


def _batches(items: Sequence[T]) -> list[Sequence[T]]:
    return [items[start : start + BULK_ROWS] for start in range(0, len(items), BULK_ROWS)]


async def _revisions(
    tx: Mutation,
    entity_type: EntityType,
    action: Action,
    changed: list[tuple[str, dict[str, Any] | None, dict[str, Any]]],
) -> None:
    """The batch's revisions in one INSERT, then the loop let go before the next batch."""
    rows = [tx.revision_values(entity_type, entity_id, action, old, new) for entity_id, old, new in changed]
    await tx.write_revisions(rows)
    for entity_id, _, _ in changed:
        tx.note_change(EntityChange(entity_type, entity_id, action))
    await asyncio.sleep(0)
