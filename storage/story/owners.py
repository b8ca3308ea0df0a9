"""Which project a row lies in, who owns it and the asker's role there: one prebuilt Core
statement per table, read without an ORM session (`Database.first_row`), as it is asked before
every tool call that names an entity (docs/performance.md)."""

from __future__ import annotations

from typing import Any

from sqlalchemy import Select, and_, bindparam, select

from storage.core_tables import PROJECT_MEMBERS as MEMBERS
from storage.core_tables import PROJECTS, core_table
from storage.database import Database
from storage.story.entity_tables import TABLES
from storage.story.records import ProjectOwner
from storage.tables import Project


async def owner_of(db: Database, entity_type: str, entity_id: str, member_id: str) -> ProjectOwner | None:
    """The project an entity of `entity_type` lies in (a project is its own) with the role of
    `member_id` in it, None when there is no such row.

    Only the project's deletion counts: a deleted asset still names its project (revisions point
    at it)."""
    found = await db.first_row(_lookup(TABLES[entity_type]), {"entity_id": entity_id, "member_id": member_id})
    if found is None:
        return None
    return ProjectOwner(found.project_id, found.owner_id, found.deleted_at, found.role)


def _lookup(table: type[Any]) -> Select[Any]:
    """Built once per table, on first use: the driver compiles each statement once."""
    found = _LOOKUPS.get(table)
    if found is None:
        found = _LOOKUPS[table] = _statement(table)
    return found


_LOOKUPS: dict[type[Any], Select[Any]] = {}


def _statement(table: type[Any]) -> Select[Any]:
    columns = (PROJECTS.c.id.label("project_id"), PROJECTS.c.owner_id, PROJECTS.c.deleted_at, MEMBERS.c.role)
    rows = core_table(table)
    if table is Project or "project_id" not in rows.c:
        found = PROJECTS.outerjoin(MEMBERS, _membership())
        return select(*columns).select_from(found).where(PROJECTS.c.id == bindparam("entity_id"))
    found = rows.join(PROJECTS, PROJECTS.c.id == rows.c.project_id).outerjoin(MEMBERS, _membership())
    return select(*columns).select_from(found).where(rows.c.id == bindparam("entity_id"))


def _membership() -> Any:
    return and_(MEMBERS.c.project_id == PROJECTS.c.id, MEMBERS.c.user_id == bindparam("member_id"))
