"""The story's history as stored: revision pages, what a command changed, who made the newest
change of an entity, and the names an entry is shown with (entities' titles, agents, commands).
Each read is one read transaction (`Database.read`)."""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from typing import Any

from sqlalchemy import and_, func, or_
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from storage.core_tables import core_table
from storage.database import Database
from storage.records import record_of
from storage.story.entity_tables import TABLES
from storage.story.projects import is_readable
from storage.story.records import (
    CommandRecord,
    HistoryQuery,
    HistoryRows,
    LastChangeRecord,
    RevisionRecord,
    SpokenLine,
)
from storage.tables import (
    AgentClient,
    Channel,
    ChannelMember,
    Character,
    Command,
    DialogueLine,
    Project,
    ProjectMember,
    Revision,
)

Named = Sequence[tuple[str, str]]
"""(entity type, title column) pairs."""


async def history_page(
    db: Database, reader_id: str, project_id: str, query: HistoryQuery
) -> HistoryRows | None:
    async with db.read() as session:
        if not await is_readable(session, reader_id, project_id):
            return None
        statement = select(Revision).where(Revision.project_id == project_id, *_conditions(query))
        if query.before is not None:
            statement = statement.where(col(Revision.id) < query.before)
        statement = statement.order_by(col(Revision.id).desc()).limit(query.limit + 1)
        rows = [_record(row) for row in (await session.exec(statement)).all()]
        return HistoryRows(
            revisions=rows,
            commands=await _commands(session, rows[: query.limit]),
            agents=await _agents(session, project_id),
            titles=await _titles(session, project_id, query.named),
        )


async def command_changes(
    db: Database, reader_id: str, command_id: str, named: Named
) -> tuple[list[RevisionRecord], dict[str, str]]:
    async with db.read() as session:
        statement = (
            select(Revision)
            .join(Project, col(Project.id) == Revision.project_id)
            .join(ProjectMember, col(ProjectMember.project_id) == Project.id)
            .where(Revision.command_id == command_id, ProjectMember.user_id == reader_id)
            .order_by(col(Revision.id))
        )
        rows = [_record(row) for row in (await session.exec(statement)).all()]
        if not rows:
            return [], {}
        return rows, await _titles(session, rows[0].project_id, named)


async def titles(
    db: Database,
    reader_id: str,
    project_id: str,
    named: Named,
    wanted: Collection[str] | None,
    with_lines: bool,
) -> tuple[dict[str, str], dict[str, SpokenLine]] | None:
    async with db.read() as session:
        if not await is_readable(session, reader_id, project_id):
            return None
        found = await _titles(session, project_id, named, wanted)
        lines = await _lines(session, project_id, wanted) if with_lines and wanted else {}
        return found, lines


async def last_change(
    db: Database, project_id: str, entity_type: str, entity_id: str
) -> LastChangeRecord | None:
    async with db.read() as session:
        statement = (
            select(Revision)
            .where(
                Revision.project_id == project_id,
                Revision.entity_type == entity_type,
                Revision.entity_id == entity_id,
            )
            .order_by(col(Revision.id).desc())
            .limit(1)
        )
        row = (await session.exec(statement)).first()
        if row is None or row.id is None:
            return None
        agent_name = await _agent_name(session, row.client_id) if row.actor_type == "agent" else None
        return LastChangeRecord(_record(row), agent_name, await _command_number(session, row.command_id))


# ---- helpers -------------------------------------------------------------------------------------


def _conditions(query: HistoryQuery) -> list[Any]:
    found: list[Any] = []
    if query.scene_id:
        scene = query.scene_id
        found.append(
            or_(
                and_(col(Revision.entity_type) == "scene", col(Revision.entity_id) == scene),
                *(_lying_in(entity_type, key, scene) for entity_type, key in query.lying_in),
            )
        )
    if query.agent:
        found.append(and_(col(Revision.actor_type) == "agent", col(Revision.actor_id) == query.agent))
    if query.command_id:
        found.append(
            or_(
                col(Revision.command_id) == query.command_id,
                col(Revision.reverts) == f"command:{query.command_id}",
            )
        )
    return found


def _lying_in(entity_type: str, key: str, scene_id: str) -> Any:
    """Revisions of an entity of `entity_type` that lies in the scene (a line), or did before or after."""
    return and_(
        col(Revision.entity_type) == entity_type,
        or_(
            Revision.after[key].as_string() == scene_id,  # type: ignore[index]
            Revision.before[key].as_string() == scene_id,  # type: ignore[index]
        ),
    )


def _record(row: Revision) -> RevisionRecord:
    return record_of(RevisionRecord, row, id=row.id or 0)


async def _titles(
    session: AsyncSession, project_id: str, named: Named, wanted: Collection[str] | None = None
) -> dict[str, str]:
    """The titles of the project's entities of each (entity type, title column) by id (of `wanted`)."""
    found: dict[str, str] = {}
    for entity_type, title in named:
        table = TABLES[entity_type]
        rows = core_table(table)
        statement = select(rows.c.id, rows.c[title]).where(rows.c.project_id == project_id)
        if wanted is not None:
            statement = statement.where(rows.c.id.in_(list(wanted)))
        found.update(dict((await session.exec(statement)).all()))
    return found


async def _lines(session: AsyncSession, project_id: str, wanted: Collection[str]) -> dict[str, SpokenLine]:
    lines = (
        select(DialogueLine.id, DialogueLine.text, Character.name)
        .outerjoin(Character, col(Character.id) == DialogueLine.character_id)
        .where(DialogueLine.project_id == project_id, col(DialogueLine.id).in_(list(wanted)))
    )
    return {
        line_id: SpokenLine(text, speaker) for line_id, text, speaker in (await session.exec(lines)).all()
    }


async def _agents(session: AsyncSession, project_id: str) -> dict[str, str]:
    """Agents that changed the project, named as they introduced themselves in its channels."""
    statement = (
        select(Revision.actor_id)
        .where(Revision.project_id == project_id, Revision.actor_type == "agent")
        .distinct()
    )
    ids = set((await session.exec(statement)).all())
    if not ids:
        return {}
    names = dict.fromkeys(ids, "an agent")
    registered = select(AgentClient.id, AgentClient.name).where(col(AgentClient.id).in_(ids))
    names.update(dict((await session.exec(registered)).all()))
    members = (
        select(ChannelMember.client_id, ChannelMember.agent_name)
        .join(Channel, col(Channel.id) == ChannelMember.channel_id)
        .where(Channel.project_id == project_id, col(ChannelMember.client_id).in_(ids))
        .order_by(col(ChannelMember.joined_at))
    )
    names.update(dict((await session.exec(members)).all()))
    return names


def _named_commands(rows: Iterable[RevisionRecord]) -> set[str]:
    """The commands the revisions were made under, and those they took back."""
    wanted = {row.command_id for row in rows if row.command_id}
    return wanted | {
        (row.reverts or "").removeprefix("command:")
        for row in rows
        if (row.reverts or "").startswith("command:")
    }


async def _commands(session: AsyncSession, rows: list[RevisionRecord]) -> dict[str, CommandRecord]:
    wanted = _named_commands(rows)
    if not wanted:
        return {}
    found = (await session.exec(select(Command).where(col(Command.id).in_(wanted)))).all()
    # Numbered as the panel numbers them: by seq within their channel, in one more query.
    channels = {command.channel_id for command in found}
    siblings = await session.exec(
        select(Command.id, Command.channel_id)
        .where(col(Command.channel_id).in_(channels))
        .order_by(col(Command.seq))
    )
    numbers: dict[str, int] = {}
    counts: dict[str, int] = {}
    for command_id, channel_id in siblings.all():
        counts[channel_id] = counts.get(channel_id, 0) + 1
        numbers[command_id] = counts[channel_id]
    return {c.id: CommandRecord(c.id, c.channel_id, numbers[c.id], c.text) for c in found}


async def _agent_name(session: AsyncSession, client_id: str | None) -> str | None:
    if client_id is None:
        return None
    introduced = (
        select(ChannelMember.agent_name)
        .where(ChannelMember.client_id == client_id)
        .order_by(col(ChannelMember.joined_at).desc())
        .limit(1)
    )
    name = (await session.exec(introduced)).first()
    if name:
        return name
    return (await session.exec(select(AgentClient.name).where(AgentClient.id == client_id))).first()


async def _command_number(session: AsyncSession, command_id: str | None) -> int | None:
    if command_id is None:
        return None
    command = (await session.exec(select(Command).where(Command.id == command_id))).first()
    if command is None:
        return None
    earlier = select(func.count()).where(
        Command.channel_id == command.channel_id, col(Command.seq) <= command.seq
    )
    return int((await session.exec(earlier)).one())
