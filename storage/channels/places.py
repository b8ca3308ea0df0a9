"""Where story entities lie, read inside a write on the database's driver: a post in a room with a
reach limit reads where its selection lies with the room it took its number from
(`channels.posting`, `room_view.keep_to_reach_now`).

The same answers as `room_reads.RoomReadsInSession.parents_now_or_recorded`, one entity at a time
(a post names at most three), with statements built once per table.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from sqlalchemy import Select, bindparam, select

from storage.core_tables import REVISIONS, core_table
from storage.driver import Rows
from storage.story.entity_tables import TABLES


class PlacesOnDriver:
    """Each entity's parent, from its row or, for one deleted since, from its last revision."""

    def __init__(self, rows: Rows) -> None:
        self.rows = rows

    def parents_now_or_recorded(
        self, project_id: str, entity_type: str, ids: set[str], parent_column: str
    ) -> dict[str, str]:
        found: dict[str, str] = {}
        for ident in ids:
            place = self._parent(project_id, entity_type, ident, parent_column)
            if place is not None:
                found[ident] = place
        return found

    def _parent(self, project_id: str, entity_type: str, ident: str, parent_column: str) -> str | None:
        params = {"project": project_id, "entity": ident}
        now = self.rows.first(_parent_now(core_table(TABLES[entity_type]), parent_column), params)
        if now is not None:
            return str(now[0])
        place = None
        for before, after in self.rows.all(_RECORDED, params | {"entity_type": entity_type}):
            recorded = (after or before or {}).get(parent_column)
            if isinstance(recorded, str):
                place = recorded
        return place


@cache
def _parent_now(table: Any, parent_column: str) -> Select[Any]:
    return select(table.c[parent_column]).where(
        table.c.project_id == bindparam("project"), table.c.id == bindparam("entity")
    )


_RECORDED = (
    select(REVISIONS.c.before, REVISIONS.c.after)
    .where(
        REVISIONS.c.project_id == bindparam("project"),
        REVISIONS.c.entity_type == bindparam("entity_type"),
        REVISIONS.c.entity_id == bindparam("entity"),
    )
    .order_by(REVISIONS.c.id)
)
"""An entity's revisions, oldest first: the last that names a parent says where it lay."""
