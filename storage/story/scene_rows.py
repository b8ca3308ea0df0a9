"""One scene with what the editor and the tools show of it, read on the driver
(`Database.read_rows`): a scene view runs on every `romergo_get_scene` and every editor refresh,
and through the ORM its five statements cost ~0.8 ms of SQLAlchemy for ~0.05 ms of SQLite
(docs/performance.md). The statements are built once, on the tables' columns; the records are
made from their rows."""

from __future__ import annotations

from sqlalchemy import String, and_, bindparam, func, or_, select, union_all

from storage.core_tables import PROJECT_MEMBERS, REVISIONS, core_table, record_maker, width
from storage.database import Database
from storage.driver import Found, Rows
from storage.story.records import (
    AssetRecord,
    ChapterRecord,
    CharacterRecord,
    ChoiceRecord,
    ChoiceWithTarget,
    LineRecord,
    ProjectRecord,
    SceneRecord,
    SceneRows,
)
from storage.tables import Asset, Chapter, Character, Choice, DialogueLine, Project, Scene

MEDIA_COLUMNS = ("background_asset_id", "music_asset_id")
"""The media slots a scene and its chapter fill."""


async def scene_rows(db: Database, reader_id: str, scene_id: str) -> SceneRows | None:
    """The scene, if it lies in a project the reader is a member of and is not deleted, in one snapshot."""
    if not isinstance(scene_id, str) or not scene_id:
        return None
    return await db.read_rows(lambda rows: _scene_rows(rows, reader_id, scene_id))


def _scene_rows(rows: Rows, reader_id: str, scene_id: str) -> SceneRows | None:
    """The revisions come first, as `storage.story.revisions.newest_revisions` explains (on
    PostgreSQL the statements are not one snapshot); the rest only if the reader may see it."""
    revisions = rows.all(_REVISIONS, {"scene_id": scene_id})
    head = rows.first(_HEAD, {"scene_id": scene_id, "member_id": reader_id})
    if head is None or head[-1] is None:  # the reader's role: none for one who is not a member
        return None
    project = _project(head[_CHAPTER_END:-1])
    if project.deleted_at is not None:
        return None
    scene = _scene(head[:_SCENE_END])
    chapter = _chapter(head[_SCENE_END:_CHAPTER_END])
    named = [getattr(row, column) for row in (scene, chapter) for column in MEDIA_COLUMNS]
    of_scene, of_project = {"scene_id": scene.id}, {"project_id": project.id}
    media = (
        rows.all(_LIVE_MEDIA, of_project | {f"asset_{n}": asset_id for n, asset_id in enumerate(named)})
        if any(named)
        else []
    )
    return SceneRows(
        scene=scene,
        chapter=chapter,
        project=project,
        lines=[_line(values) for values in rows.all(_LINES, of_scene)],
        choices=[_with_target(values) for values in rows.all(_CHOICES, of_scene)],
        characters=[_character(values) for values in rows.all(_CHARACTERS, of_project)],
        media=[_asset(values) for values in media],
        revisions={entity_id: number for entity_id, number in revisions},
    )


def _with_target(values: Found) -> ChoiceWithTarget:
    title, chapter_id = values[_CHOICE_END], values[_CHOICE_END + 1]
    return ChoiceWithTarget(_choice(values[:_CHOICE_END]), title, chapter_id)


_project, _chapter = record_maker(ProjectRecord, Project), record_maker(ChapterRecord, Chapter)
_scene, _line = record_maker(SceneRecord, Scene), record_maker(LineRecord, DialogueLine)
_choice, _character = record_maker(ChoiceRecord, Choice), record_maker(CharacterRecord, Character)
_asset = record_maker(AssetRecord, Asset)


# Built once, on the tables' columns: the driver compiles each once (storage.sqlite_driver).
_SCENES, _CHAPTERS, _PROJECTS = core_table(Scene), core_table(Chapter), core_table(Project)
_LINES_TABLE, _CHOICES_TABLE = core_table(DialogueLine), core_table(Choice)
_CHARACTERS_TABLE, _ASSETS = core_table(Character), core_table(Asset)
_TARGETS = _SCENES.alias("target")
_SCENE_END = width(Scene)
_CHAPTER_END = _SCENE_END + width(Chapter)
_CHOICE_END = width(Choice)

_MEMBERSHIP = and_(
    PROJECT_MEMBERS.c.project_id == _PROJECTS.c.id, PROJECT_MEMBERS.c.user_id == bindparam("member_id")
)
_HEAD = (
    select(_SCENES, _CHAPTERS, _PROJECTS, PROJECT_MEMBERS.c.role)
    .join(_CHAPTERS, _CHAPTERS.c.id == _SCENES.c.chapter_id)
    .join(_PROJECTS, _PROJECTS.c.id == _SCENES.c.project_id)
    .outerjoin(PROJECT_MEMBERS, _MEMBERSHIP)
    .where(_SCENES.c.id == bindparam("scene_id"))
)
_LINES = (
    select(_LINES_TABLE)
    .where(_LINES_TABLE.c.scene_id == bindparam("scene_id"))
    .order_by(_LINES_TABLE.c.position)
)
# Each choice with its target's title and chapter: the view needs no more of the target than that.
_CHOICES = (
    select(_CHOICES_TABLE, _TARGETS.c.title, _TARGETS.c.chapter_id)
    .outerjoin(
        _TARGETS,
        and_(
            _TARGETS.c.id == _CHOICES_TABLE.c.target_scene_id,
            _TARGETS.c.project_id == _CHOICES_TABLE.c.project_id,
        ),
    )
    .where(_CHOICES_TABLE.c.scene_id == bindparam("scene_id"))
    .order_by(_CHOICES_TABLE.c.position)
)
# The newest revision of the scene and of each of its lines: one range of `ix_revisions_entity`.
_REVISIONS = (
    select(REVISIONS.c.entity_id, func.max(REVISIONS.c.id))
    .where(
        REVISIONS.c.project_id
        == select(_SCENES.c.project_id).where(_SCENES.c.id == bindparam("scene_id")).scalar_subquery(),
        or_(REVISIONS.c.entity_type == "scene", REVISIONS.c.entity_type == "dialogue_line"),
        REVISIONS.c.entity_id.in_(
            union_all(
                select(bindparam("scene_id", type_=String)),
                select(_LINES_TABLE.c.id).where(_LINES_TABLE.c.scene_id == bindparam("scene_id")),
            )
        ),
    )
    .group_by(REVISIONS.c.entity_type, REVISIONS.c.entity_id)
)
_CHARACTERS = select(_CHARACTERS_TABLE).where(_CHARACTERS_TABLE.c.project_id == bindparam("project_id"))
# The undeleted assets the scene's and its chapter's slots name: at most four, a fixed list.
_LIVE_MEDIA = select(_ASSETS).where(
    _ASSETS.c.project_id == bindparam("project_id"),
    _ASSETS.c.id.in_([bindparam(f"asset_{n}") for n in range(2 * len(MEDIA_COLUMNS))]),
    _ASSETS.c.deleted_at.is_(None),
)
