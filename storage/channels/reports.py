"""An agent's report on the database's driver: the command read with what its checks need, then
(a reply's or an error's) what was recorded for it and where the lines and choices its summary
names lie (`romergo.channels.reporting` says what it checks and writes between these reads).
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from functools import cache
from typing import Any, NamedTuple

from sqlalchemy import Select, bindparam, select

from storage.channels.joins import CALLERS_MEMBERSHIP
from storage.core_tables import CHANNEL_MEMBERS, CHANNELS, COMMANDS, REVISIONS, core_table
from storage.driver import Found, Rows
from storage.story.entity_tables import TABLES


class ReportedCommand(NamedTuple):
    """The command reported on, with its channel's owner and the caller's membership."""

    id: str
    channel_id: str
    state: str
    claimed_by: str | None
    finished_at: datetime | None
    owner: str
    member: str | None
    """The caller's membership's client id; None when it never joined."""
    left_at: datetime | None


def reported_on_driver(rows: Rows, command_id: str, client_id: str) -> ReportedCommand | None:
    """The command as a report reads it (one statement); None when there is no such command."""
    found = rows.first(_REPORTED, {"command": command_id, "who": client_id})
    return None if found is None else ReportedCommand._make(found)


def recorded_for_on_driver(rows: Rows, command_id: str) -> list[Found]:
    """The revisions recorded for the command, oldest first: rows of all the revision's columns."""
    return rows.all(_CHANGES, {"command": command_id})


def scene_of_on_driver(rows: Rows, place: SceneOf, entity_type: str, entity_id: str) -> str | None:
    """The scene a line or a choice lies in now; None when it is gone."""
    found = rows.first(place.statements[entity_type], {"id": entity_id})
    return None if found is None else str(found.scene_id)


class SceneOf(NamedTuple):
    statements: Mapping[str, Select[Any]]


@cache
def scene_of(parents: tuple[tuple[str, str], ...]) -> SceneOf:
    """Where an entity of each type lies: `parents` names each type and the column of its scene,
    as the story's kinds say (built once: every reply runs them)."""
    return SceneOf(
        {entity_type: _scene_of_row(TABLES[entity_type], column) for entity_type, column in parents}
    )


def _scene_of_row(model: type[Any], column: str) -> Select[Any]:
    table = core_table(model)
    return select(table.c[column].label("scene_id")).where(table.c.id == bindparam("id"))


# Built once: every report runs it.
_REPORTED = (
    select(
        COMMANDS.c.id,
        COMMANDS.c.channel_id,
        COMMANDS.c.state,
        COMMANDS.c.claimed_by,
        COMMANDS.c.finished_at,
        CHANNELS.c.user_id.label("owner"),
        CHANNEL_MEMBERS.c.client_id.label("member"),
        CHANNEL_MEMBERS.c.left_at,
    )
    .select_from(COMMANDS)
    .join(CHANNELS, CHANNELS.c.id == COMMANDS.c.channel_id)
    .outerjoin(CHANNEL_MEMBERS, CALLERS_MEMBERSHIP)
    .where(COMMANDS.c.id == bindparam("command"))
)
"""The command with its channel's owner and the caller's membership, in columns."""
_CHANGES = select(REVISIONS).where(REVISIONS.c.command_id == bindparam("command")).order_by(REVISIONS.c.id)
