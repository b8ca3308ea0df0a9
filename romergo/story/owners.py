"""Which of the actor's projects an entity lies in: asked before every tool call that names one.

The guard needs the project (to find the agent's room) before the tool runs, so this read is on
every such call's path. It is one prebuilt Core statement per entity type, read without an ORM
session (`Database.first_row`): loading the row and its project as entities cost twice as much
as the question (docs/performance.md). The answer is the same as the units of work
give: `not_found` for anything missing, deleted or someone else's, revealing nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any, Protocol, TypeVar

from sqlalchemy import Select, bindparam, select

from romergo.errors import not_found, project_not_found
from romergo.story.kinds import KINDS, LABELS
from storage.core_tables import core_table
from storage.database import Database
from storage.driver import Rows
from storage.tables import Project


async def project_of(db: Database, user_id: str, entity_type: str, entity_id: str) -> str:
    """The id of the project `entity_id` lies in, if `user_id` owns it (else `not_found`)."""
    statement = _LOOKUPS.get(entity_type)
    if statement is None:
        raise ValueError(f"no project lookup for {entity_type}")
    found = await db.first_row(statement, {"entity_id": entity_id}) if entity_id else None
    if found is None or not readable_by(found, user_id):
        if entity_type == "project":
            raise project_not_found(entity_id)
        raise not_found(LABELS[entity_type], str(entity_id))
    return str(found.project_id)


T = TypeVar("T")


async def read_owned(
    db: Database, entity_type: str, entity_id: object, read: Callable[[Rows, str], T | None]
) -> T:
    """One read on the driver (`Database.read_rows`) of something that lies in a project:
    `read(rows, entity_id)` gives None when it is missing or not the reader's to see
    (`readable_by`), and both are `not_found` in the same words."""
    if not isinstance(entity_id, str) or not entity_id:
        raise not_found(LABELS[entity_type], str(entity_id))
    found = await db.read_rows(lambda rows: read(rows, entity_id))
    if found is None:
        raise not_found(LABELS[entity_type], entity_id)
    return found


class _OwnedProject(Protocol):
    owner_id: str
    deleted_at: datetime | None


def readable_by(project: _OwnedProject, user_id: str) -> bool:
    """Whether `user_id` may see what lies in `project` (a project, or a row with its owner and
    deletion): its owner, while it is not deleted."""
    return project.owner_id == user_id and project.deleted_at is None


def _through(model: type[Any]) -> Select[Any]:
    """The project of a row of `model` (which has a `project_id`), joined in one statement.

    Only the project's deletion counts, as in `UnitOfWork`: a deleted asset still names its
    project (revisions point at it)."""
    rows, projects = core_table(model), core_table(Project)
    return (
        select(projects.c.id.label("project_id"), projects.c.owner_id, projects.c.deleted_at)
        .select_from(rows.join(projects, projects.c.id == rows.c.project_id))
        .where(rows.c.id == bindparam("entity_id"))
    )


def _project() -> Select[Any]:
    projects = core_table(Project)
    return select(projects.c.id.label("project_id"), projects.c.owner_id, projects.c.deleted_at).where(
        projects.c.id == bindparam("entity_id")
    )


def _lookup(model: type[Any]) -> Select[Any]:
    """A row with a `project_id` lies in that project; a project is its own."""
    return _through(model) if "project_id" in core_table(model).c else _project()


_LOOKUPS: dict[str, Select[Any]] = {entity_type: _lookup(kind.table) for entity_type, kind in KINDS.items()}
