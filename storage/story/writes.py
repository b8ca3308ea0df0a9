"""The story ledger's transaction (`romergo.story.ledger.StoryTransaction`): the reads and writes of
one unit of work, in records.

It works on the unit of work's own session and its identity map, so a service that still changes
rows of its own and one that states its writes here see the same story in the same transaction:
a record read here is the row as the transaction has it, and a record saved here is a change of
that row, flushed with the others before the revisions are written.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import bindparam, delete
from sqlmodel import SQLModel, col, func, or_, select

from storage.records import Record, columns_of, record_of
from storage.story.bookkeeping import Bookkeeping
from storage.story.imports import StoryImports
from storage.story.invitations import Invitations
from storage.story.members import OWNER, Membership
from storage.story.projects import project_rows_within
from storage.story.records import (
    AssetRecord,
    ChapterRecord,
    CharacterRecord,
    ChoiceRecord,
    LineRecord,
    MemberRecord,
    ProjectRecord,
    ProjectRows,
    SceneRecord,
    VariableMentions,
    VariableRecord,
)
from storage.story.restoring import RestoringTransaction
from storage.tables import (
    Asset,
    AssetBlob,
    Chapter,
    Character,
    Choice,
    DialogueLine,
    Project,
    PublishedStory,
    Scene,
    StoryVariable,
)


class SessionStoryTransaction(RestoringTransaction, StoryImports, Membership, Invitations, Bookkeeping):
    async def character(self, character_id: str) -> CharacterRecord | None:
        return await self._get(Character, CharacterRecord, character_id)

    async def characters(self, project_id: str) -> list[CharacterRecord]:
        statement = select(Character).where(col(Character.project_id) == project_id)
        return [record_of(CharacterRecord, row) for row in (await self.session.exec(statement)).all()]

    async def count_characters(self, project_id: str) -> int:
        return int((await self.session.exec(_COUNT_CHARACTERS, params={"project_id": project_id})).one())

    async def scenes_where_speaking(self, character_id: str) -> list[str]:
        found = await self.session.exec(_SCENES_WHERE_SPEAKING, params={"character_id": character_id})
        return [str(title) for title in found.all()]

    async def add_character(self, record: CharacterRecord) -> None:
        self.session.add(Character(**columns_of(record)))

    async def save_character(self, record: CharacterRecord) -> None:
        await self._save(Character, record)

    async def remove_character(self, character_id: str) -> None:
        await self._remove(Character, character_id)

    async def variable(self, variable_id: str) -> VariableRecord | None:
        return await self._get(StoryVariable, VariableRecord, variable_id)

    async def variables(self, project_id: str) -> list[VariableRecord]:
        statement = select(StoryVariable).where(col(StoryVariable.project_id) == project_id)
        return [record_of(VariableRecord, row) for row in (await self.session.exec(statement)).all()]

    async def add_variable(self, record: VariableRecord) -> None:
        self.session.add(StoryVariable(**columns_of(record)))

    async def save_variable(self, record: VariableRecord) -> None:
        await self._save(StoryVariable, record)

    async def remove_variable(self, variable_id: str) -> None:
        await self._remove(StoryVariable, variable_id)

    async def variable_mentions(self, project_id: str, name: str) -> VariableMentions:
        return VariableMentions(
            scenes=[
                record_of(SceneRecord, r)
                for r in await self._mentioning(Scene, project_id, name, "entry_effects")
            ],
            lines=[
                record_of(LineRecord, r)
                for r in await self._mentioning(DialogueLine, project_id, name, "condition")
            ],
            choices=[
                record_of(ChoiceRecord, r)
                for r in await self._mentioning(Choice, project_id, name, "condition", "effects")
            ],
        )

    async def scene(self, scene_id: str) -> SceneRecord | None:
        return await self._get(Scene, SceneRecord, scene_id)

    async def choices_of(self, scene_id: str) -> list[ChoiceRecord]:
        rows = (await self.session.exec(_CHOICES_OF, params={"scene_id": scene_id})).all()
        self._held += rows
        return [record_of(ChoiceRecord, row) for row in rows]

    async def save_scene(self, record: SceneRecord) -> None:
        await self._save(Scene, record)

    async def save_line(self, record: LineRecord) -> None:
        await self._save(DialogueLine, record)

    async def save_choice(self, record: ChoiceRecord) -> None:
        await self._save(Choice, record)

    # Lines, scenes, choices, chapters
    async def line(self, line_id: str) -> LineRecord | None:
        return await self._get(DialogueLine, LineRecord, line_id)

    async def lines_of(self, scene_id: str) -> list[LineRecord]:
        rows = (await self.session.exec(_LINES_OF, params={"scene_id": scene_id})).all()
        self._held += rows
        return [record_of(LineRecord, row) for row in rows]

    async def add_line(self, record: LineRecord) -> None:
        self.session.add(DialogueLine(**columns_of(record)))

    async def remove_line(self, line_id: str) -> None:
        await self._remove(DialogueLine, line_id)

    async def has_scenes(self, project_id: str) -> bool:
        found = await self.session.exec(_ANY_SCENE, params={"project_id": project_id})
        return found.first() is not None

    async def start_scenes(self, project_id: str) -> list[SceneRecord]:
        rows = (await self.session.exec(_START_SCENES, params={"project_id": project_id})).all()
        self._held += rows
        return [record_of(SceneRecord, row) for row in rows]

    async def add_scene(self, record: SceneRecord) -> None:
        """Written at once: what is added into it in the same transaction comes after it."""
        self.session.add(Scene(**columns_of(record)))
        await self.session.flush()

    async def add_choice(self, record: ChoiceRecord) -> None:
        self.session.add(Choice(**columns_of(record)))

    async def remove_choice(self, choice_id: str) -> None:
        await self._remove(Choice, choice_id)

    async def scenes_of(self, chapter_id: str) -> list[SceneRecord]:
        rows = (await self.session.exec(_SCENES_OF, params={"chapter_id": chapter_id})).all()
        self._held += rows
        return [record_of(SceneRecord, row) for row in rows]

    async def remove_scene(self, scene_id: str) -> None:
        """The scene with its lines and choices: those first, as their foreign keys want."""
        for line in (await self.session.exec(_LINES_OF, params={"scene_id": scene_id})).all():
            await self.session.delete(line)
        for choice in (await self.session.exec(_CHOICES_OF, params={"scene_id": scene_id})).all():
            await self.session.delete(choice)
        await self.session.flush()
        await self._remove(Scene, scene_id)

    async def chapter(self, chapter_id: str) -> ChapterRecord | None:
        return await self._get(Chapter, ChapterRecord, chapter_id)

    async def chapters_of(self, project_id: str) -> list[ChapterRecord]:
        rows = (await self.session.exec(_CHAPTERS_OF, params={"project_id": project_id})).all()
        self._held += rows
        return [record_of(ChapterRecord, row) for row in rows]

    async def add_chapter(self, record: ChapterRecord) -> None:
        """Written at once: what is added into it in the same transaction comes after it."""
        self.session.add(Chapter(**columns_of(record)))
        await self.session.flush()

    async def save_chapter(self, record: ChapterRecord) -> None:
        await self._save(Chapter, record)

    async def chapters_where_speaking(self, character_id: str) -> set[str]:
        found = await self.session.exec(_CHAPTERS_WHERE_SPEAKING, params={"character_id": character_id})
        return set(found.all())

    async def chapters_using(self, project_id: str, asset_id: str) -> set[str]:
        wanted = {"project_id": project_id, "asset_id": asset_id}
        chapters = (await self.session.exec(_CHAPTERS_USING, params=wanted)).all()
        scenes = (await self.session.exec(_SCENES_USING, params=wanted)).all()
        return {*chapters, *scenes}

    async def remove_chapter(self, chapter_id: str) -> None:
        """The chapter alone: its scenes are removed first (`remove_scene`)."""
        await self.session.flush()
        await self._remove(Chapter, chapter_id)

    # Projects, publishing, assets, copies
    async def project(self, project_id: str) -> ProjectRecord | None:
        return await self._get(Project, ProjectRecord, project_id)

    async def add_project(self, record: ProjectRecord) -> None:
        """Written at once, its owner its one member: the unit of work finds it in its identity map
        from here on."""
        self.session.add(Project(**columns_of(record)))
        await self.session.flush()
        owner = record.owner_id
        await self.add_member(MemberRecord(record.id, owner, OWNER, record.created_at, owner))

    async def save_project(self, record: ProjectRecord) -> None:
        await self._save(Project, record)

    async def whole_project(self, project_id: str, *, shape_only: bool, with_text: bool) -> ProjectRows:
        """The project, which this transaction holds already (its owner was checked), with its story."""
        project = await self.session.get(Project, project_id)
        assert project is not None, "read in this transaction before"
        return await project_rows_within(self.session, project, shape_only, with_text)

    async def put_published_story(self, project_id: str, snapshot: dict[str, Any] | None) -> None:
        # The old copy is deleted unread: loading megabytes only to replace them would cost what
        # the table is there to spare.
        await self.session.exec(delete(PublishedStory).where(col(PublishedStory.project_id) == project_id))
        if snapshot is not None:
            self.session.add(PublishedStory(project_id=project_id, snapshot=snapshot))

    async def published_story(self, share_id: str) -> dict[str, Any] | None:
        found = (await self.session.exec(_PUBLISHED_STORY, params={"share_id": share_id})).first()
        return None if found is None else dict(found)

    async def asset(self, asset_id: str) -> AssetRecord | None:
        return await self._get(Asset, AssetRecord, asset_id)

    async def live_assets(self, project_id: str, kind: str | None = None) -> list[AssetRecord]:
        statement = select(Asset).where(Asset.project_id == project_id, col(Asset.deleted_at).is_(None))
        if kind:
            statement = statement.where(Asset.kind == kind)
        found = await self.session.exec(statement.order_by(col(Asset.name)))
        return [record_of(AssetRecord, row) for row in found.all()]

    async def asset_bytes(self, blob_id: str) -> bytes | None:
        blob = await self.session.get(AssetBlob, blob_id)
        return None if blob is None else bytes(blob.data)

    async def add_asset(self, record: AssetRecord, data: bytes) -> None:
        """The asset with its bytes; the bytes are written first, as the asset refers to them."""
        self.session.add(AssetBlob(id=record.blob_id, data=data))
        await self.session.flush()
        self.session.add(Asset(**columns_of(record)))

    async def save_asset(self, record: AssetRecord) -> None:
        await self._save(Asset, record)

    async def scenes_using_asset(self, project_id: str, asset_id: str) -> list[SceneRecord]:
        using = or_(Scene.background_asset_id == asset_id, Scene.music_asset_id == asset_id)
        found = await self.session.exec(select(Scene).where(Scene.project_id == project_id, using))
        return [record_of(SceneRecord, row) for row in found.all()]

    async def chapters_using_asset(self, project_id: str, asset_id: str) -> list[ChapterRecord]:
        using = or_(Chapter.background_asset_id == asset_id, Chapter.music_asset_id == asset_id)
        found = await self.session.exec(select(Chapter).where(Chapter.project_id == project_id, using))
        return [record_of(ChapterRecord, row) for row in found.all()]

    async def _get(self, table: type[SQLModel], shape: type[Record], entity_id: str) -> Record | None:
        row = await self.session.get(table, entity_id) if isinstance(entity_id, str) and entity_id else None
        if row is None:
            return None
        self._held.append(row)
        return record_of(shape, row)

    async def _remove(self, table: type[SQLModel], entity_id: str) -> None:
        row = await self.session.get(table, entity_id)
        if row is not None:
            await self.session.delete(row)

    async def _mentioning(self, table: Any, project_id: str, name: str, *columns: str) -> list[Any]:
        wanted = [col(getattr(table, column)).contains(name) for column in columns]
        condition = wanted[0] if len(wanted) == 1 else wanted[0] | wanted[1]
        statement = select(table).where(table.project_id == project_id, condition)
        return list((await self.session.exec(statement)).all())


# Prebuilt: the driver compiles each once.
_COUNT_CHARACTERS = (
    select(func.count()).select_from(Character).where(col(Character.project_id) == bindparam("project_id"))
)
_CHOICES_OF = (
    select(Choice).where(col(Choice.scene_id) == bindparam("scene_id")).order_by(col(Choice.position))
)
_LINES_OF = (
    select(DialogueLine)
    .where(col(DialogueLine.scene_id) == bindparam("scene_id"))
    .order_by(col(DialogueLine.position))
)
_SCENES_OF = (
    select(Scene).where(col(Scene.chapter_id) == bindparam("chapter_id")).order_by(col(Scene.position))
)
_ANY_SCENE = select(Scene.id).where(col(Scene.project_id) == bindparam("project_id")).limit(1)
_START_SCENES = select(Scene).where(col(Scene.project_id) == bindparam("project_id"), col(Scene.is_start))
_CHAPTERS_WHERE_SPEAKING = (
    select(Scene.chapter_id)
    .join(DialogueLine, col(DialogueLine.scene_id) == col(Scene.id))
    .where(col(DialogueLine.character_id) == bindparam("character_id"))
)
_CHAPTERS_USING = select(Chapter.id).where(
    col(Chapter.project_id) == bindparam("project_id"),
    or_(
        col(Chapter.background_asset_id) == bindparam("asset_id"),
        col(Chapter.music_asset_id) == bindparam("asset_id"),
    ),
)
_SCENES_USING = select(Scene.chapter_id).where(
    col(Scene.project_id) == bindparam("project_id"),
    or_(
        col(Scene.background_asset_id) == bindparam("asset_id"),
        col(Scene.music_asset_id) == bindparam("asset_id"),
    ),
)
_CHAPTERS_OF = (
    select(Chapter).where(col(Chapter.project_id) == bindparam("project_id")).order_by(col(Chapter.position))
)
# In story order: chapter by chapter, scene by scene.
_SCENES_WHERE_SPEAKING = (
    select(Scene.title)
    .join(DialogueLine, col(DialogueLine.scene_id) == Scene.id)
    .join(Chapter, col(Chapter.id) == Scene.chapter_id)
    .where(col(DialogueLine.character_id) == bindparam("character_id"))
    .group_by(col(Scene.id), col(Scene.title), col(Chapter.position), col(Scene.position))
    .order_by(col(Chapter.position), col(Scene.position))
)

_PUBLISHED_STORY = (
    select(PublishedStory.snapshot)
    .join(Project, col(Project.id) == col(PublishedStory.project_id))
    .where(
        col(Project.share_id) == bindparam("share_id"),
        col(Project.published),
        col(Project.deleted_at).is_(None),
    )
)
