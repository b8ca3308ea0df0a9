"""The story's history as the author reads it: who changed what, when, under which command, with
the same reviewed changes the agent panel shows; filtered by scene, agent or command, paged.

A page is the newest `limit` entries older than `before` (a revision id), so paging stays stable
while new changes arrive.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from datetime import datetime

from romergo.common.actors import Actor
from romergo.common.errors import project_not_found
from romergo.story.kinds import KINDS, under
from romergo.story.last_change import LastChange, last_change_of
from romergo.story.ledger import CommandRecord, HistoryQuery, RevisionRecord, StoryLedger
from romergo.story.owners import role_in
from romergo.story.restore import ChangedEntity, changed_entities
from romergo.story.review import EntityReview, Names, review

PAGE_SIZE = 50
MAX_PAGE_SIZE = 200
LINE_OPENING = 48
"""How much of a line a confirmation card quotes to name it."""


CommandRef = CommandRecord
"""A command as the panel numbers it (#1 is the channel's first command)."""


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
    def __init__(self, ledger: StoryLedger) -> None:
        self.ledger = ledger

    async def command_review(self, actor: Actor, command_id: str) -> list[EntityReview]:
        """What an agent's command changed, one entry per entity (the panel's expanded changes);
        empty for a command that changed nothing, or that is not in one of the actor's projects."""
        rows, titles = await self.ledger.command_changes(actor.user_id, command_id, _NAMED)
        if not rows:
            return []
        await self._readable(actor, rows[0].project_id)
        return review(changed_entities(rows), Names(titles))

    async def names(self, actor: Actor, project_id: str) -> dict[str, str]:
        """Titles of the project's scenes, chapters, characters and assets by id."""
        found = await self.ledger.titles(actor.user_id, project_id, _NAMED)
        if found is None:
            raise project_not_found(project_id)
        return found[0]

    async def names_of(self, actor: Actor, project_id: str, ids: Collection[str]) -> dict[str, str]:
        """What each of `ids` names in the project, for a confirmation card: a scene's, chapter's
        or asset's title, a character's or variable's name, a line's speaker and opening words.
        Only the ids asked for are read, so a card costs the same in a story of any size."""
        wanted = {entity_id for entity_id in ids if isinstance(entity_id, str) and "_" in entity_id}
        if not wanted:
            return {}
        found = await self.ledger.titles(actor.user_id, project_id, _ON_CARDS, wanted, with_lines=True)
        if found is None:
            raise project_not_found(project_id)
        titles, lines = found
        # A line has no title: its speaker and first words name it.
        for line_id, line in lines.items():
            titles[line_id] = f"{line.speaker}: {opening(line.text)}" if line.speaker else opening(line.text)
        return titles

    async def last_change(
        self, actor: Actor, project_id: str, entity_type: str, entity_id: str
    ) -> LastChange | None:
        """Who made the newest change of one entity (None: it was never changed)."""
        await self._readable(actor, project_id)
        return last_change_of(await self.ledger.last_change(project_id, entity_type, entity_id))

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
        query = HistoryQuery(
            limit=limit,
            before=before,
            scene_id=chosen.scene_id,
            lying_in=_LYING_IN_A_SCENE if chosen.scene_id else (),
            agent=chosen.agent,
            command_id=chosen.command_id,
            named=_NAMED,
        )
        found = await self.ledger.history(actor.user_id, project_id, query)
        if found is None:
            raise project_not_found(project_id)
        rows = found.revisions
        older = rows[limit - 1].id if len(rows) > limit else None
        names = Names(found.titles)
        entries = [_entry(row, names, found.agents, found.commands) for row in rows[:limit]]
        return HistoryPage([e for e in entries if e is not None], older, found.agents)

    async def _readable(self, actor: Actor, project_id: str) -> None:
        held = (
            await self.ledger.owner_of("project", project_id, actor.user_id)
            if isinstance(project_id, str)
            else None
        )
        if role_in(held) is None:
            raise project_not_found(project_id)


# ---- helpers -------------------------------------------------------------------------------------

# What names the entities a history entry or a review shows, and what a confirmation card names.
_NAMED = tuple((kind.entity_type, kind.title_key) for kind in KINDS.values() if kind.named_by_id)
_ON_CARDS = tuple((kind.entity_type, kind.title_key) for kind in KINDS.values() if kind.on_cards)
# The kinds that lie in a scene of their own (a line), by the key of their snapshot naming it.
_LYING_IN_A_SCENE = tuple(
    (KINDS[kind].entity_type, KINDS[kind].parent.column)  # type: ignore[union-attr]
    for kind in under("scene")
    if KINDS[kind].inside is None
)


def _entry(
    row: RevisionRecord, names: Names, agents: dict[str, str], commands: dict[str, CommandRef]
) -> HistoryEntry | None:
    single = ChangedEntity(row.entity_type, row.entity_id, row.before, row.after, row.id)  # type: ignore[arg-type]
    reviewed = review([single], names)
    if not reviewed:
        return None
    reverts = row.reverts or ""
    return HistoryEntry(
        revision_id=row.id,
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


def opening(text: str, room: int = LINE_OPENING) -> str:
    """A line's first words, cut at a word with an ellipsis when it is longer than `room`."""
    text = " ".join(text.split())
    if len(text) <= room:
        return text
    head = text[: room - 1]
    cut = head.rsplit(" ", 1)[0] if " " in head else head
    return cut.rstrip(" ,.;:") + "…"
