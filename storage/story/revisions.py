"""The newest revision of each entity: one query on the `ix_revisions_entity` index (project,
type, id, revision id), whether it asks for a page's entities or a whole list's."""

from __future__ import annotations

from collections.abc import Collection, Iterable
from typing import Any

from sqlalchemy import bindparam, func, select

from storage.core_tables import REVISIONS
from storage.story.transaction import ThreadRead, Transaction

_SHORT_LIST = 500
"""Up to this many ids a lookup names them; beyond, it reads the whole project's entities of the
type (one index range either way, and no statement with thousands of parameters)."""


async def newest_revisions(
    session: Transaction, project_id: str, types: Collection[str], ids: Collection[str] | None = None
) -> dict[str, int]:
    """By entity id (unique across types), inside `session`'s transaction; an entity never changed
    is missing.

    Where a read of the entities is not one snapshot with this one, read this first: a change in
    between then makes the reader's revision older than what it saw (a needless merge at worst),
    never newer (which would hide that change from the merge)."""
    if ids is not None and not ids:
        return {}
    statement, params = _newest(project_id, types, ids)
    return _by_id(await session.exec(statement, params=params), ids)


def newest_revisions_in(
    session: ThreadRead, project_id: str, types: Collection[str], ids: Collection[str] | None = None
) -> dict[str, int]:
    """`newest_revisions` for a read off the event loop (`Database.read_in_thread`)."""
    if ids is not None and not ids:
        return {}
    statement, params = _newest(project_id, types, ids)
    return _by_id(session.exec(statement, params=params), ids)


def _newest(
    project_id: str, types: Collection[str], ids: Collection[str] | None
) -> tuple[Any, dict[str, Any]]:
    statement = (
        select(REVISIONS.c.entity_id, func.max(REVISIONS.c.id))
        .where(REVISIONS.c.project_id == project_id, REVISIONS.c.entity_type.in_(list(types)))
        .group_by(REVISIONS.c.entity_type, REVISIONS.c.entity_id)
    )
    if ids is not None and len(ids) <= _SHORT_LIST:
        statement = statement.where(REVISIONS.c.entity_id.in_(bindparam("ids", expanding=True)))
        return statement, {"ids": list(ids)}
    return statement, {}


def _by_id(rows: Iterable[Any], ids: Collection[str] | None) -> dict[str, int]:
    wanted = None if ids is None else set(ids)
    return {entity_id: number for entity_id, number in rows if wanted is None or entity_id in wanted}
