"""The story's history as the author reads it: who changed what, when, under which command, with
the same reviewed changes the agent panel shows; filtered by scene, agent or command, paged.

A page is the newest `limit` entries older than `before` (a revision id), so paging stays stable
while new changes arrive.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import and_, or_
from sqlmodel import col, select

from romergo.actors import Actor
from romergo.story.base import StoryStore, UnitOfWork
from romergo.story.kinds import KINDS, Kind, under
from romergo.story.last_change import LastChange, last_change
from romergo.story.restore import ChangedEntity, changed_entities
from romergo.story.review import EntityReview, Names, review
from storage.core_tables import core_table
from storage.tables import (
    AgentClient,
    Channel,
    ChannelMember,
    Character,
    Command,
    DialogueLine,
    Project,
    Revision,
)

PAGE_SIZE = 50
MAX_PAGE_SIZE = 200
LINE_OPENING = 48
"""How much of a line a confirmation card quotes to name it."""


@dataclass(frozen=True)
class CommandRef:
    """A command as the panel numbers it (#1 is the channel's first command)."""

    command_id: str
    channel_id: str
    number: int
    text: str


@dataclass(frozen=True)
class HistoryEntry:
    revision_id: int
    at: datetime
    actor_type: str
    actor_id: str
    agent_name: str | None
    tool: str | None
    command: CommandRef | None
    undo_of: CommandRef | None
    """The command this change took back (an undo from the panel), if any."""
    undoes_edit: bool
    """It took back one of the author's edits or an earlier undo (Ctrl+Z, redo)."""
    change: EntityReview


@dataclass(frozen=True)
class HistoryPage:
    entries: list[HistoryEntry]
    older: int | None
    """Pass as `before` for the next page; None on the last one."""
    agents: dict[str, str]
    """Every agent that changed this project: client id → the name it gave."""


@dataclass(frozen=True)
class HistoryFilter:
    scene_id: str | None = None
    agent: str | None = None
    command_id: str | None = None


class HistoryReads:
    def __init__(self, store: StoryStore) -> None:
        self.store = store

    async def command_review(self, actor: Actor, command_id: str) -> list[EntityReview]:
        """What an agent's command changed, one entry per entity (the panel's expanded changes);
        empty for a command that changed nothing, or that is not in one of the actor's projects."""
        async with self.store.read(actor) as uow:
            statement = (
                select(Revision)
                .join(Project, col(Project.id) == Revision.project_id)
                .where(Revision.command_id == command_id, Project.owner_id == actor.user_id)
                .order_by(col(Revision.id))
            )
            rows = list((await uow.session.exec(statement)).all())
            if not rows:
                return []
            await uow.project_by_id(rows[0].project_id)
            return review(changed_entities(rows), await _names(uow, rows[0].project_id))

    async def names(self, actor: Actor, project_id: str) -> dict[str, str]:
        """Titles of the project's scenes, chapters, characters and assets by id."""
        async with self.store.read(actor) as uow:
            await uow.project_by_id(project_id)
            return (await _names(uow, project_id)).by_id

    async def names_of(self, actor: Actor, project_id: str, ids: Collection[str]) -> dict[str, str]:
        """What each of `ids` names in the project, for a confirmation card: a scene's, chapter's
        or asset's title, a character's or variable's name, a line's speaker and opening words.
        Only the ids asked for are read, so a card costs the same in a story of any size."""
        wanted = {entity_id for entity_id in ids if isinstance(entity_id, str) and "_" in entity_id}
        if not wanted:
            return {}
        async with self.store.read(actor) as uow:
            await uow.project_by_id(project_id)
            return await _names_of(uow, project_id, wanted)

    async def last_change(
        self, actor: Actor, project_id: str, entity_type: str, entity_id: str
    ) -> LastChange | None:
        """Who made the newest change of one entity (None: it was never changed)."""
        async with self.store.read(actor) as uow:
            await uow.project_by_id(project_id)
            return await last_change(uow, project_id, entity_type, entity_id)

    async def history(
        self,
        actor: Actor,
        project_id: str,
        chosen: HistoryFilter | None = None,
        before: int | None = None,
        limit: int = PAGE_SIZE,
    ) -> HistoryPage:
        chosen = chosen or HistoryFilter()
        limit = max(1, min(limit, MAX_PAGE_SIZE))
        async with self.store.read(actor) as uow:
            await uow.project_by_id(project_id)
            statement = select(Revision).where(Revision.project_id == project_id, *_conditions(chosen))
            if before is not None:
                statement = statement.where(col(Revision.id) < before)
            statement = statement.order_by(col(Revision.id).desc()).limit(limit + 1)
            rows = list((await uow.session.exec(statement)).all())
            older = rows[limit - 1].id if len(rows) > limit else None
            rows = rows[:limit]
            names = await _names(uow, project_id)
            agents = await _agents(uow, project_id)
            commands = await _commands(uow, rows)
            entries = [_entry(row, names, agents, commands) for row in rows]
            return HistoryPage([e for e in entries if e is not None], older, agents)


# ---- helpers -------------------------------------------------------------------------------------


def _conditions(chosen: HistoryFilter) -> list[Any]:
    found: list[Any] = []
    if chosen.scene_id:
        scene = chosen.scene_id
        found.append(
            or_(
                and_(col(Revision.entity_type) == "scene", col(Revision.entity_id) == scene),
                *(_lying_in(KINDS[kind], scene) for kind in under("scene") if KINDS[kind].inside is None),
            )
        )
    if chosen.agent:
        found.append(and_(col(Revision.actor_type) == "agent", col(Revision.actor_id) == chosen.agent))
    if chosen.command_id:
        found.append(
            or_(
                col(Revision.command_id) == chosen.command_id,
                col(Revision.reverts) == f"command:{chosen.command_id}",
            )
        )
    return found


def _lying_in(kind: Kind, scene_id: str) -> Any:
    """Revisions of an entity of `kind` that lies in the scene (a line), or did before or after."""
    assert kind.parent is not None
    column = kind.parent.column
    return and_(
        col(Revision.entity_type) == kind.entity_type,
        or_(
            Revision.after[column].as_string() == scene_id,  # type: ignore[index]
            Revision.before[column].as_string() == scene_id,  # type: ignore[index]
        ),
    )


def _entry(
    row: Revision, names: Names, agents: dict[str, str], commands: dict[str, CommandRef]
) -> HistoryEntry | None:
    single = ChangedEntity(row.entity_type, row.entity_id, row.before, row.after, row.id or 0)  # type: ignore[arg-type]
    reviewed = review([single], names)
    if not reviewed:
        return None
    reverts = row.reverts or ""
    return HistoryEntry(
        revision_id=row.id or 0,
        at=row.created_at,
        actor_type=row.actor_type,
        actor_id=row.actor_id,
        agent_name=agents.get(row.actor_id) if row.actor_type == "agent" else None,
        tool=row.tool,
        command=commands.get(row.command_id or ""),
        undo_of=commands.get(reverts.removeprefix("command:")) if reverts.startswith("command:") else None,
        undoes_edit=reverts.startswith("batch:"),
        change=reviewed[0],
    )


async def _names(uow: UnitOfWork, project_id: str) -> Names:
    names = Names()
    for kind in KINDS.values():
        if kind.named_by_id:
            names.by_id.update(await _titles(uow, kind, project_id))
    return names


async def _names_of(uow: UnitOfWork, project_id: str, wanted: set[str]) -> dict[str, str]:
    found: dict[str, str] = {}
    for kind in KINDS.values():
        if kind.on_cards:
            found.update(await _titles(uow, kind, project_id, wanted))
    # A line has no title: its speaker and first words name it.
    lines = (
        select(DialogueLine.id, DialogueLine.text, Character.name)
        .outerjoin(Character, col(Character.id) == DialogueLine.character_id)
        .where(DialogueLine.project_id == project_id, col(DialogueLine.id).in_(wanted))
    )
    for line_id, text, speaker in (await uow.session.exec(lines)).all():
        found[line_id] = f"{speaker}: {opening(text)}" if speaker else opening(text)
    return found


async def _titles(
    uow: UnitOfWork, kind: Kind, project_id: str, wanted: set[str] | None = None
) -> dict[str, str]:
    """The titles of the project's entities of `kind` by id (of those `wanted`, if given)."""
    rows = core_table(kind.table)
    statement = select(rows.c.id, rows.c[kind.title_key]).where(rows.c.project_id == project_id)
    if wanted is not None:
        statement = statement.where(rows.c.id.in_(wanted))
    return dict((await uow.session.exec(statement)).all())


def opening(text: str, room: int = LINE_OPENING) -> str:
    """A line's first words, cut at a word with an ellipsis when it is longer than `room`."""
    text = " ".join(text.split())
    if len(text) <= room:
        return text
    head = text[: room - 1]
    cut = head.rsplit(" ", 1)[0] if " " in head else head
    return cut.rstrip(" ,.;:") + "…"


async def _agents(uow: UnitOfWork, project_id: str) -> dict[str, str]:
    """Agents that changed the project, named as they introduced themselves in its channels."""
    statement = (
        select(Revision.actor_id)
        .where(Revision.project_id == project_id, Revision.actor_type == "agent")
        .distinct()
    )
    ids = set((await uow.session.exec(statement)).all())
    if not ids:
        return {}
    names = dict.fromkeys(ids, "an agent")
    registered = select(AgentClient.id, AgentClient.name).where(col(AgentClient.id).in_(ids))
    names.update(dict((await uow.session.exec(registered)).all()))
    members = (
        select(ChannelMember.client_id, ChannelMember.agent_name)
        .join(Channel, col(Channel.id) == ChannelMember.channel_id)
        .where(Channel.project_id == project_id, col(ChannelMember.client_id).in_(ids))
        .order_by(col(ChannelMember.joined_at))
    )
    names.update(dict((await uow.session.exec(members)).all()))
    return names


async def _commands(uow: UnitOfWork, rows: list[Revision]) -> dict[str, CommandRef]:
    wanted = {row.command_id for row in rows if row.command_id}
    wanted |= {
        (row.reverts or "").removeprefix("command:")
        for row in rows
        if (row.reverts or "").startswith("command:")
    }
    if not wanted:
        return {}
    found = (await uow.session.exec(select(Command).where(col(Command.id).in_(wanted)))).all()
    # Numbered as the panel numbers them: by seq within their channel, in one more query.
    channels = {command.channel_id for command in found}
    siblings = await uow.session.exec(
        select(Command.id, Command.channel_id)
        .where(col(Command.channel_id).in_(channels))
        .order_by(col(Command.seq))
    )
    numbers: dict[str, int] = {}
    counts: dict[str, int] = {}
    for command_id, channel_id in siblings.all():
        counts[channel_id] = counts.get(channel_id, 0) + 1
        numbers[command_id] = counts[channel_id]
    return {c.id: CommandRef(c.id, c.channel_id, numbers[c.id], c.text) for c in found}
