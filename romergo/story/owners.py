"""Which of the actor's projects an entity lies in, and their role there: asked before every tool
call that names one.

The guard needs the project (to find the agent's room) before the tool runs, so this read is on
every such call's path. The story ledger answers it with one prebuilt statement per entity type,
read without an ORM session, the asker's role with it (`StoryLedger.owner_of`): loading the row
and its project as entities cost twice as much as the question (docs/performance.md). The answer
is the same as the units of work give: `not_found` for anything missing, deleted or in a project
the actor is not a member of, revealing nothing.
"""

from __future__ import annotations

from datetime import datetime
from typing import Protocol

from romergo.common.errors import not_found, project_not_found
from romergo.story.kinds import KINDS, LABELS
from romergo.story.ledger import StoryLedger
from romergo.story.roles import Right, Role, may, role_of


async def project_of(ledger: StoryLedger, user_id: str, entity_type: str, entity_id: str) -> str:
    """The id of the project `entity_id` lies in, if `user_id` may read it (else `not_found`)."""
    kind = KINDS.get(entity_type)  # type: ignore[call-overload]
    if kind is None:
        raise ValueError(f"no project lookup for {entity_type}")
    found = await ledger.owner_of(entity_type, entity_id, user_id) if entity_id else None
    if found is None or role_in(found) is None:
        if entity_type == "project":
            raise project_not_found(entity_id)
        raise not_found(LABELS[entity_type], str(entity_id))
    return str(found.project_id)


class _HeldProject(Protocol):
    @property
    def role(self) -> str | None: ...
    @property
    def deleted_at(self) -> datetime | None: ...


def role_in(held: _HeldProject | None) -> Role | None:
    """The asker's role in a project as a lookup found it (a project, or a row with its role and
    deletion), when that role may read it: None when there is no such project, it is deleted, or
    they are not its member."""
    if held is None or held.deleted_at is not None:
        return None
    role = role_of(held.role)
    return role if may(role, Right.READ) else None
