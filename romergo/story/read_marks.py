"""What each agent last read: per agent (OAuth client) and entity, the revision it last saw.

A tool call gathers the revisions it showed the agent (every read's, its own writes' results), and
the tool layer stores them once at the end of the call: one upsert, whatever the call read. A write
the agent makes later without `expected_revision` compares against it, and says so when it replaced
a change someone made after that (`romergo.story.based_on`). Rows live in the database, so two
server instances sharing one see the same marks.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field

from sqlalchemy import func, select
from sqlmodel.ext.asyncio.session import AsyncSession

from storage import Database
from storage.core_tables import AGENT_READS, REVISIONS

_ROWS_PER_STATEMENT = 500
"""A whole outline's marks in few statements, each well under the databases' parameter limits."""


@dataclass
class CallReads:
    """What one tool call showed its agent (entity id -> newest revision) and what is stored."""

    seen: dict[str, int] = field(default_factory=dict)
    stored: dict[str, int] = field(default_factory=dict)

    def unstored(self) -> dict[str, int]:
        return {key: number for key, number in self.seen.items() if self.stored.get(key, -1) < number}


_reads: ContextVar[CallReads | None] = ContextVar("romergo_call_reads", default=None)


@contextmanager
def collect_reads() -> Iterator[CallReads]:
    """The revisions shown inside this block (in this task), by entity id, the newest of each."""
    reads = CallReads()
    token = _reads.set(reads)
    try:
        yield reads
    finally:
        _reads.reset(token)


def note_read(revisions: Mapping[str, int]) -> None:
    reads = _reads.get()
    if reads is not None:
        for entity_id, number in revisions.items():
            reads.seen[entity_id] = max(number, reads.seen.get(entity_id, 0))


def read_in_this_call(entity_id: str) -> int | None:
    reads = _reads.get()
    return None if reads is None else reads.seen.get(entity_id)


async def remember_reads(db: Database, client_id: str, reads: CallReads) -> None:
    """Store what the call showed this agent and is not stored yet, in a transaction of its own."""
    if reads.unstored():
        async with db.write() as session:
            await _store(db, session, client_id, reads)


async def remember_in(db: Database, session: AsyncSession, client_id: str | None) -> None:
    """Store, inside a write's own transaction, what this call showed so far: a write's result
    shows the revisions it ended at, so a call that only writes needs no transaction more."""
    reads = _reads.get()
    if reads is not None and client_id is not None and reads.unstored():
        await _store(db, session, client_id, reads)


async def _store(db: Database, session: AsyncSession, client_id: str, reads: CallReads) -> None:
    """One statement (per `_ROWS_PER_STATEMENT` entities), never moving a mark back."""
    marks = reads.unstored()
    rows = [
        {"client_id": client_id, "entity_id": entity_id, "revision": number}
        for entity_id, number in sorted(marks.items())  # one order: two calls never wait on each other
    ]
    for start in range(0, len(rows), _ROWS_PER_STATEMENT):
        new = db.upsert(AGENT_READS).values(rows[start : start + _ROWS_PER_STATEMENT])
        await session.execute(
            new.on_conflict_do_update(
                index_elements=[AGENT_READS.c.client_id, AGENT_READS.c.entity_id],
                set_={"revision": new.excluded.revision},
                where=AGENT_READS.c.revision < new.excluded.revision,
            )
        )
    reads.stored.update(marks)


async def read_since(
    session: AsyncSession, client_id: str, project_id: str, entity_type: str, entity_id: str
) -> int | None:
    """The revision of the entity this agent last saw (in an earlier call, or in this one), when
    the entity has changed since; None when it has not, or the agent never read it. One query."""
    stored = (
        select(AGENT_READS.c.revision)
        .where(AGENT_READS.c.client_id == client_id, AGENT_READS.c.entity_id == entity_id)
        .scalar_subquery()
    )
    newest = (
        select(func.max(REVISIONS.c.id))
        .where(
            REVISIONS.c.project_id == project_id,
            REVISIONS.c.entity_type == entity_type,
            REVISIONS.c.entity_id == entity_id,
        )
        .scalar_subquery()
    )
    row = (await session.execute(select(stored, newest))).one()
    seen = [number for number in (row[0], read_in_this_call(entity_id)) if number is not None]
    if not seen or row[1] is None or row[1] <= max(seen):
        return None
    return max(seen)
