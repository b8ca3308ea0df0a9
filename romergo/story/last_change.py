"""Who made the newest change of one entity, in the words a person needs: which agent, under which
command as the panel numbers it (#1 is its channel's first), or which write of the author's.

An open draft asks this when the entity it was opened on changes, and a conflict view asks it to
say who made the other change: one entity at a time, never once per line of a page.
"""

from __future__ import annotations

from dataclasses import dataclass

from romergo.story.based_on import ChangedBy
from romergo.story.ledger import LastChangeRecord


@dataclass(frozen=True)
class LastChange:
    revision: int
    by: ChangedBy
    batch_id: str | None
    """The write it was part of: a tab knows its own writes by these (`ui.edits`)."""
    agent_name: str | None
    """For an agent: the name it introduced itself with."""
    command_number: int | None
    """For a change made under a command: its number in its channel, as the panel shows it."""


def last_change_of(found: LastChangeRecord | None) -> LastChange | None:
    if found is None:
        return None
    row = found.revision
    by = ChangedBy(row.actor_type, row.actor_id, row.client_id, row.command_id, row.tool, row.created_at)
    return LastChange(row.id, by, row.batch_id, found.agent_name, found.command_number)
