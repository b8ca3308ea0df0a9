"""Whole-project reads: the loaded project, its outline and the story check (history: history.py)."""

from __future__ import annotations

import asyncio
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field

from romergo.common.actors import Actor, user_actor
from romergo.common.errors import project_not_found
from romergo.story import check, owners
from romergo.story.base import StoryStore, UnitOfWork
from romergo.story.kinds import kind_named
from romergo.story.ledger import ProjectRows, StoryLedger
from romergo.story.read_marks import note_read
from romergo.story.roles import role_of
from romergo.story.state.playthrough import Playthrough, StateRules, simulate
from romergo.story.story_map import MapLayouts, StoryMap
from romergo.story.views import ChapterOutline, Outline, ProjectData

OUTLINE_TYPES = ("chapter", "scene", "character")


@dataclass(frozen=True)
class StoryReads:
    store: StoryStore
    ledger: StoryLedger
    layouts: MapLayouts = field(default_factory=MapLayouts)

    async def project_data(self, actor: Actor, project_id: str, *, with_text: bool = True) -> ProjectData:
        return await read_project(self.ledger, actor, project_id, with_text=with_text)

    async def project_of(self, actor: Actor, entity_type: str, entity_id: str) -> str:
        """The project an entity belongs to, if the actor may read it (else `not_found`)."""
        return await owners.project_of(self.ledger, actor.user_id, entity_type, entity_id)

    async def outline(self, actor: Actor, project_id: str) -> Outline:
        """The outline with its revisions; for an agent in a limited room, only the chapters the
        room covers."""
        revisions, shape = await read_with_revisions(
            self.ledger, actor, project_id, OUTLINE_TYPES, shape_only=True, with_text=False
        )
        outline = outline_of(project_data_of(shape))
        chapters = outline.chapters
        if actor.reach is not None:
            chapters = [c for c in outline.chapters if c.chapter.id in actor.reach]
        role = role_of(shape.role)
        return Outline(outline.project, chapters, outline.characters, revisions, role)

    async def revisions(self, actor: Actor, project_id: str, types: tuple[str, ...]) -> dict[str, int]:
        """The revisions of the project's entities of these types, by id (missing: 0)."""
        found = await self.ledger.latest_revisions(actor.user_id, project_id, types)
        if found is None:
            raise project_not_found(project_id)
        note_read(found)  # what a tool call read, the agent saw
        return found

    async def check_story(self, actor: Actor, project_id: str) -> list[check.Problem]:
        """The story check; in a limited room, the problems of the chapters it covers (and the
        project-wide ones: no start scene, unused assets), naming no scene outside them."""

        found = await self.ledger.project_with_media(actor.user_id, project_id)
        if found is None:
            raise project_not_found(project_id)
        data = project_data_of(found[0])
        media = {asset_id: check.StoredMedia(file.head, file.length) for asset_id, file in found[1].items()}
        return await asyncio.to_thread(check.check_story, data, media, actor.reach)  # see `story_map`

    async def story_map(self, actor: Actor, project_id: str) -> StoryMap:
        """The map of the whole story, marked with the story check's problems."""
        data = await read_project(self.ledger, actor, project_id, with_text=False)
        # The check and the layout are pure Python over the whole story (~0.1 s each at 2,000 scenes):
        # in a worker thread, as on the loop every other call waited for them. The thread shares the
        # interpreter's lock with the loop, which gets its turn every few ms.
        return await asyncio.to_thread(lambda: self.layouts.story_map(data, check.check_story(data)))

    async def simulate(
        self,
        actor: Actor,
        project_id: str,
        choices: Sequence[str] | None = None,
        start_scene: str | None = None,
        state: Mapping[str, object] | None = None,
    ) -> Playthrough:
        """A play-through of the story with its variables (`story.state.playthrough.simulate`)."""
        data = await read_project(self.ledger, actor, project_id)
        return simulate(data, StateRules.of(data), choices, start_scene, state)

    async def chapter_ids(self, actor: Actor, project_id: str) -> list[str]:
        """The project's chapters in story order (what a room's scope is made of)."""
        found = await self.ledger.chapter_ids(actor.user_id, project_id)
        if found is None:
            raise project_not_found(project_id)
        return found

    async def chapters_of(self, user_id: str, kind: str, entity_id: str) -> frozenset[str]:
        """Where an entity lies (chapter, scene, line) or is used (character, asset): the
        `Locator` the call guard asks about a limited room."""
        found = kind_named(kind)
        if found is None or found.reach is None:
            raise ValueError(f"no chapters for {kind}")
        async with self.store.read(user_actor(user_id)) as uow:
            return await found.reach.chapters(uow, entity_id)


async def read_project(
    ledger: StoryLedger, actor: Actor, project_id: str, *, shape_only: bool = False, with_text: bool = True
) -> ProjectData:
    """The whole project as a read of its own, for the actor (else `not_found`), off the event loop
    where the database allows. See `load_project` for `shape_only` and `with_text`."""
    found = await ledger.whole_project(actor.user_id, project_id, shape_only=shape_only, with_text=with_text)
    if found is None:
        raise project_not_found(project_id)
    return project_data_of(found)


async def whole_project(
    store: StoryStore, actor: Actor, project_id: str, *, shape_only: bool = False, with_text: bool = True
) -> ProjectData:
    """`read_project` for the services that hold only the story's store."""
    return await read_project(store.ledger, actor, project_id, shape_only=shape_only, with_text=with_text)


async def load_project(
    uow: UnitOfWork, project_id: str, *, shape_only: bool = False, with_text: bool = True
) -> ProjectData:
    """The whole project in one query per table, inside `uow` (a change that reads the story it
    changes, such as publishing or replacing text), for its actor (else `not_found`).

    `shape_only`: chapters, scenes, characters and assets, without dialogue and choices (the
    outline and asset usage show nothing of them; a long story has tens of thousands).
    `with_text=False`: every line, but its text left empty (the story check looks only at where
    lines are and who speaks them; 50,000 texts were a third of its time)."""
    project = await uow.project_by_id(project_id)
    return project_data_of(
        await uow.story.whole_project(project.id, shape_only=shape_only, with_text=with_text)
    )


async def read_with_revisions(
    ledger: StoryLedger,
    actor: Actor,
    project_id: str,
    types: Collection[str],
    *,
    shape_only: bool = False,
    with_text: bool = True,
) -> tuple[dict[str, int], ProjectRows]:
    """The whole project's rows with the asker's role, and the newest revisions of its entities of
    these types read just before them (`storage`'s `newest_revisions` says why first), in one read
    off the event loop."""
    found = await ledger.project_with_revisions(
        actor.user_id, project_id, types, shape_only=shape_only, with_text=with_text
    )
    if found is None:
        raise project_not_found(project_id)
    revisions, rows = found
    note_read(revisions)  # what a tool call read, the agent saw
    return revisions, rows


def project_data_of(rows: ProjectRows) -> ProjectData:
    return ProjectData(
        project=rows.project,
        chapters=rows.chapters,
        scenes=rows.scenes,
        lines=rows.lines,
        choices=rows.choices,
        characters=rows.characters,
        assets=rows.assets,
        variables=rows.variables,
    )


def outline_of(data: ProjectData) -> Outline:
    chapters = [ChapterOutline(chapter, data.scenes_of(chapter.id)) for chapter in data.chapters_in_order()]
    return Outline(data.project, chapters, sorted(data.characters, key=lambda c: c.name.casefold()))
