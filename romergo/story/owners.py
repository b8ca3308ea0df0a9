"""Which of the actor's projects an entity lies in: asked before every tool call that names one.

The guard needs the project (to find the agent's room) before the tool runs, so this read is on
every such call's path. The story ledger answers it with one prebuilt statement per entity type,
read without an ORM session (`StoryLedger.owner_of`): loading the row and its project as entities
cost twice as much as the question (docs/performance.md). The answer is the same as the units of work
give: `not_found` for anything missing, deleted or someone else's, revealing nothing.
"""

from __future__ import annotations

from datetime import datetime
from typing import Protocol

from romergo.common.errors import not_found, project_not_found
from romergo.story.kinds import KINDS, LABELS
from romergo.story.ledger import StoryLedger


async def project_of(ledger: StoryLedger, user_id: str, entity_type: str, entity_id: str) -> str:
    """The id of the project `entity_id` lies in, if `user_id` owns it (else `not_found`)."""
    kind = KINDS.get(entity_type)  # type: ignore[call-overload]
    if kind is None:
        raise ValueError(f"no project lookup for {entity_type}")
    found = await ledger.owner_of(entity_type, entity_id) if entity_id else None
    if found is None or not readable_by(found, user_id):
        if entity_type == "project":
            raise project_not_found(entity_id)
        raise not_found(LABELS[entity_type], str(entity_id))
    return str(found.project_id)


class _OwnedProject(Protocol):
    @property
    def owner_id(self) -> str: ...
    @property
    def deleted_at(self) -> datetime | None: ...


def readable_by(project: _OwnedProject, user_id: str) -> bool:
    """Whether `user_id` may see what lies in `project` (a project, or a row with its owner and
    deletion): its owner, while it is not deleted."""
    return project.owner_id == user_id and project.deleted_at is None
