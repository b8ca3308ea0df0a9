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

from romergo.story.ledger import StoryLedger, StoryTransaction
from storage import Database
from storage.story.read_marks import store_marks
from storage.story.transaction import Transaction


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


async def remember_reads(ledger: StoryLedger, client_id: str, reads: CallReads) -> None:
    """Store what the call showed this agent and is not stored yet, in a transaction of its own."""
    marks = reads.unstored()
    if marks:
        await ledger.remember_reads(client_id, marks)
        reads.stored.update(marks)


async def remember_in(db: Database, session: Transaction, client_id: str | None) -> None:
    """Store, inside a write's own transaction, what this call showed so far: a write's result
    shows the revisions it ended at, so a call that only writes needs no transaction more."""
    reads = _reads.get()
    if reads is not None and client_id is not None and reads.unstored():
        marks = reads.unstored()
        await store_marks(db, session, client_id, marks)
        reads.stored.update(marks)


async def read_since(
    story: StoryTransaction, client_id: str, project_id: str, entity_type: str, entity_id: str
) -> int | None:
    """The revision of the entity this agent last saw (in an earlier call, or in this one), when
    the entity has changed since; None when it has not, or the agent never read it. One query."""
    stored, newest = await story.mark_and_newest(client_id, project_id, entity_type, entity_id)
    seen = [number for number in (stored, read_in_this_call(entity_id)) if number is not None]
    if not seen or newest is None or newest <= max(seen):
        return None
    return max(seen)
