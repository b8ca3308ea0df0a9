"""Whole-project reads: the loaded project, its outline and the story check (history: history.py)."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import func, literal
from sqlalchemy import select as sa_select
from sqlmodel import Session, col, select

from romergo.actors import Actor, user_actor
from romergo.story import check, owners
from romergo.story.base import StoryStore, UnitOfWork, owned
from romergo.story.kinds import kind_named
from romergo.story.revisions import latest_revisions, latest_revisions_in
from romergo.story.state.playthrough import Playthrough, StateRules, simulate
from romergo.story.story_map import MapLayouts, StoryMap
from romergo.story.views import ChapterOutline, ChoiceRow, LineRow, Outline, ProjectData
from storage.tables import (
    Asset,
    AssetBlob,
    Chapter,
    Character,
    Choice,
    DialogueLine,
    Project,
    Scene,
    StoryVariable,
)

OUTLINE_TYPES = ("chapter", "scene", "character")

# Enough of a media file to tell its type by its signature (`media_types.sniff`).
MEDIA_HEAD_BYTES = 16


@dataclass(frozen=True)
class StoryReads:
    store: StoryStore
    layouts: MapLayouts = field(default_factory=MapLayouts)

    async def project_data(self, actor: Actor, project_id: str, *, with_text: bool = True) -> ProjectData:
        return await whole_project(self.store, actor, project_id, with_text=with_text)

    async def project_of(self, actor: Actor, entity_type: str, entity_id: str) -> str:
        """The project an entity belongs to, if the actor owns it (else `not_found`)."""
        return await owners.project_of(self.store.db, actor.user_id, entity_type, entity_id)

    async def outline(self, actor: Actor, project_id: str) -> Outline:
        """The outline with its revisions; for an agent in a limited room, only the chapters the
        room covers."""
        revisions = await self.store.db.read_in_thread(  # first: `latest_revisions` says why
            lambda session: latest_revisions_in(session, project_id, OUTLINE_TYPES)
        )
        outline = outline_of(await whole_project(self.store, actor, project_id, shape_only=True))
        chapters = outline.chapters
        if actor.reach is not None:
            chapters = [c for c in outline.chapters if c.chapter.id in actor.reach]
        return Outline(outline.project, chapters, outline.characters, revisions)

    async def revisions(self, actor: Actor, project_id: str, types: tuple[str, ...]) -> dict[str, int]:
        """The revisions of the project's entities of these types, by id (missing: 0)."""
        async with self.store.read(actor) as uow:
            await uow.project_by_id(project_id)
            return await latest_revisions(uow.session, project_id, types)

    async def check_story(self, actor: Actor, project_id: str) -> list[check.Problem]:
        """The story check; in a limited room, the problems of the chapters it covers (and the
        project-wide ones: no start scene, unused assets), naming no scene outside them."""

        def read(session: Session) -> tuple[ProjectData, dict[str, check.StoredMedia]]:
            data = owned_project_data(session, actor.user_id, project_id, with_text=False)
            return data, _stored_media(session, project_id)

        data, media = await self.store.db.read_in_thread(read)
        return await asyncio.to_thread(check.check_story, data, media, actor.reach)  # see `story_map`

    async def story_map(self, actor: Actor, project_id: str) -> StoryMap:
        """The map of the whole story, marked with the story check's problems."""
        data = await whole_project(self.store, actor, project_id, with_text=False)
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
        data = await whole_project(self.store, actor, project_id)
        return simulate(data, StateRules.of(data), choices, start_scene, state)

    async def chapter_ids(self, actor: Actor, project_id: str) -> list[str]:
        """The project's chapters in story order (what a room's scope is made of)."""
        async with self.store.read(actor) as uow:
            await uow.project_by_id(project_id)
            statement = select(Chapter.id).where(Chapter.project_id == project_id)
            return list((await uow.session.exec(statement.order_by(col(Chapter.position)))).all())

    async def chapters_of(self, user_id: str, kind: str, entity_id: str) -> frozenset[str]:
        """Where an entity lies (chapter, scene, line) or is used (character, asset): the
        `Locator` the call guard asks about a limited room."""
        found = kind_named(kind)
        if found is None or found.reach is None:
            raise ValueError(f"no chapters for {kind}")
        async with self.store.read(user_actor(user_id)) as uow:
            return await found.reach.chapters(uow, entity_id)


async def whole_project(
    store: StoryStore, actor: Actor, project_id: str, *, shape_only: bool = False, with_text: bool = True
) -> ProjectData:
    """The whole project as a read of its own, for the actor (else `not_found`): off the event loop
    where the database allows (`Database.read_in_thread`: on the loop, a long story's read held
    every other call for ~0.1 s). See `load_project` for `shape_only` and `with_text`."""
    return await store.db.read_in_thread(
        lambda session: owned_project_data(
            session, actor.user_id, project_id, shape_only=shape_only, with_text=with_text
        )
    )


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
    sync = uow.session.sync_session  # the session run_sync hands over, as sqlmodel types it
    return await uow.session.run_sync(lambda _: _project_data(sync, project, shape_only, with_text))


def owned_project_data(
    session: Session, user_id: str, project_id: str, *, shape_only: bool = False, with_text: bool = True
) -> ProjectData:
    """`load_project` on a synchronous session, the owner checked as a unit of work checks it."""
    project = session.get(Project, project_id) if isinstance(project_id, str) else None
    return _project_data(session, owned(project, user_id, project_id), shape_only, with_text)


def _project_data(session: Session, project: Project, shape_only: bool, with_text: bool) -> ProjectData:
    project_id = project.id

    def rows(model: Any) -> list[Any]:
        return list(session.exec(select(model).where(model.project_id == project_id)).all())

    assets = [a for a in rows(Asset) if a.deleted_at is None]
    return ProjectData(
        project=project,
        chapters=rows(Chapter),
        scenes=rows(Scene),
        lines=[] if shape_only else _line_rows(session, project_id, with_text),
        choices=[] if shape_only else _choice_rows(session, project_id),
        characters=rows(Character),
        assets=assets,
        variables=[] if shape_only else sorted(rows(StoryVariable), key=lambda v: v.name.casefold()),
    )


def _line_rows(session: Session, project_id: str, with_text: bool) -> list[LineRow]:
    columns = [
        col(DialogueLine.id),
        col(DialogueLine.scene_id),
        col(DialogueLine.position),
        col(DialogueLine.character_id),
        col(DialogueLine.text) if with_text else literal(""),
        col(DialogueLine.condition),
    ]
    return [LineRow(*row) for row in _plain_rows(session, DialogueLine, project_id, columns)]


def _choice_rows(session: Session, project_id: str) -> list[ChoiceRow]:
    columns = [
        col(Choice.id),
        col(Choice.scene_id),
        col(Choice.position),
        col(Choice.label),
        col(Choice.target_scene_id),
        col(Choice.condition),
        col(Choice.effects),
    ]
    return [ChoiceRow(*row) for row in _plain_rows(session, Choice, project_id, columns)]


def _plain_rows(session: Session, table: Any, project_id: str, columns: list[Any]) -> list[Any]:
    """The project's rows of `table` as the driver returns them: no ORM objects, and no result rows
    either (SQLAlchemy's own select: sqlmodel's typed one takes at most four columns).

    A long story has tens of thousands of lines, and making a result row of each cost as much again
    as fetching them. Only for columns the driver returns as Python wants them (text and
    numbers here): no result processing runs on this path."""
    statement = sa_select(*columns).where(col(table.project_id) == project_id)
    result = session.connection().execute(statement)
    try:
        return list(result.cursor.fetchall())
    finally:
        result.close()


def outline_of(data: ProjectData) -> Outline:
    chapters = [ChapterOutline(chapter, data.scenes_of(chapter.id)) for chapter in data.chapters_in_order()]
    return Outline(data.project, chapters, sorted(data.characters, key=lambda c: c.name.casefold()))


def _stored_media(session: Session, project_id: str) -> dict[str, check.StoredMedia]:
    """Each live asset's first bytes and length, read in the database (never the whole files)."""
    statement = (
        select(Asset.id, func.substr(AssetBlob.data, 1, MEDIA_HEAD_BYTES), func.length(AssetBlob.data))
        .join(AssetBlob, col(AssetBlob.id) == Asset.blob_id)
        .where(Asset.project_id == project_id, col(Asset.deleted_at).is_(None))
    )
    rows = session.exec(statement).all()
    return {
        asset_id: check.StoredMedia(bytes(head or b""), int(length or 0)) for asset_id, head, length in rows
    }
