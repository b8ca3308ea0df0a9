"""Revision numbers: what every read of an entity carries, and what a write names as its base.

An entity's revision is the id of its newest row in the revisions table, or 0 when no change of it
was ever recorded. Choices, media slots and entry effects are fields of their scene (the scene's
revision snapshot holds its choices), so they carry the scene's revision; a chapter's music and
background carry the chapter's.

Why the revisions table and not a counter on each row: every write already records a revision in
its own transaction (bulk writes, imports, undo and restores too), so nothing extra is written and
no write path can forget to count; and the revision's snapshots are the base a three-way merge
needs (`romergo.story.based_on`). Reading the revisions of a page or of a whole list is one query
on the `ix_revisions_entity` index (project, type, id, revision id), not one per entity.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from romergo.story.read_marks import note_read

RevisionKey = tuple[str, str]
"""(entity_type, entity_id)."""

_written: ContextVar[dict[RevisionKey, int] | None] = ContextVar("romergo_written_revisions", default=None)


@contextmanager
def collect_written() -> Iterator[Mapping[RevisionKey, int]]:
    """The revisions the writes inside this block (in this task) ended at, by entity: what a
    write's result reports, exactly as its own transaction left them."""
    written: dict[RevisionKey, int] = {}
    token = _written.set(written)
    try:
        yield written
    finally:
        _written.reset(token)


def wants_written() -> bool:
    return _written.get() is not None


def note_written(found: Mapping[RevisionKey, int]) -> None:
    written = _written.get()
    if written is not None:
        written.update(found)
    note_read({entity_id: number for (_, entity_id), number in found.items()})


def revision_in(written: Mapping[RevisionKey, int], entity_type: str, entity_id: str) -> int | None:
    return written.get((entity_type, entity_id))


def with_revision(data: dict[str, Any], revision: int) -> dict[str, Any]:
    return {**data, "revision": revision}
