"""One scene as the editor and the tools show it: lines with speakers, choices, effective media.

Read on the driver (`Database.read_rows`): a scene view runs on every `romergo_get_scene` and every
editor refresh, and through the ORM its five statements cost ~0.8 ms of SQLAlchemy for ~0.05 ms of
SQLite (docs/performance.md). The statements are built once, on the tables' columns; the
entities are made from their rows for reading.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import String, and_, bindparam, func, or_, select, union_all

from romergo.actors import Actor
from romergo.story.media_rules import MEDIA_SLOTS, MediaSlot, asset_in_slot, effective_media
from romergo.story.owners import read_owned, readable_by
from romergo.story.read_marks import note_read
from romergo.story.views import AssetSlot, ChoiceView, LineView, SceneView
from storage import Database
from storage.core_tables import REVISIONS as _REVISION_ROWS
from storage.core_tables import core_table, loaded, width
from storage.driver import Found, Rows
from storage.tables import Asset, Chapter, Character, Choice, DialogueLine, Project, Scene


async def read_scene_view(db: Database, actor: Actor, scene_id: str) -> SceneView:
    """The scene `scene_id` if the actor may see it (else `not_found`), in one snapshot."""
    found = await read_owned(
        db, "scene", scene_id, lambda rows, found: _scene_rows(rows, actor.user_id, found)
    )
    scene, chapter, project, lines, choices, characters, media, revisions = found
    note_read(dict(revisions))  # a tool call's agent saw them
    people = {row.id: row for row in (loaded(Character, values) for values in characters)}
    assets = {asset.id: asset for asset in (loaded(Asset, values) for values in media)}
    return SceneView(
        project=project,
        chapter=chapter,
        scene=scene,
        background=_slot(scene, chapter, "background", assets),
        music=_slot(scene, chapter, "music", assets),
        lines=[_line_view(loaded(DialogueLine, values), people) for values in lines],
        choices=[_choice_view(values) for values in choices],
        characters=sorted(people.values(), key=lambda c: c.name.casefold()),
        revisions={entity_id: number for entity_id, number in revisions},
    )


SceneRows = tuple[Scene, Chapter, Project, list[Found], list[Found], list[Found], list[Found], list[Found]]


def _scene_rows(rows: Rows, user_id: str, scene_id: str) -> SceneRows | None:
    """The scene with its chapter and project, then (if the user owns it) its lines, choices, the
    project's characters and the live media its slots name. The revisions come first, as
    `latest_revisions` explains (on PostgreSQL the statements are not one snapshot)."""
    revisions = rows.all(_REVISIONS, {"scene_id": scene_id})
    head = rows.first(_HEAD, {"scene_id": scene_id})
    if head is None:
        return None
    project = loaded(Project, head[_CHAPTER_END:])
    if not readable_by(project, user_id):
        return None
    scene = loaded(Scene, head[:_SCENE_END])
    chapter = loaded(Chapter, head[_SCENE_END:_CHAPTER_END])
    named = [asset_in_slot(row, slot) for row in (scene, chapter) for slot in MEDIA_SLOTS]
    of_scene, of_project = {"scene_id": scene.id}, {"project_id": project.id}
    media = (
        rows.all(_LIVE_MEDIA, of_project | {f"asset_{n}": asset_id for n, asset_id in enumerate(named)})
        if any(named)
        else []
    )
    return (
        scene,
        chapter,
        project,
        rows.all(_LINES, of_scene),
        rows.all(_CHOICES, of_scene),
        rows.all(_CHARACTERS, of_project),
        media,
        revisions,
    )


# Built once, on the tables' columns: the driver compiles each once (storage.sqlite_driver).
_SCENES, _CHAPTERS, _PROJECTS = core_table(Scene), core_table(Chapter), core_table(Project)
_LINES_TABLE, _CHOICES_TABLE = core_table(DialogueLine), core_table(Choice)
_CHARACTERS_TABLE, _ASSETS = core_table(Character), core_table(Asset)
_TARGETS = _SCENES.alias("target")
_SCENE_END = width(Scene)
_CHAPTER_END = _SCENE_END + width(Chapter)
_CHOICE_END = width(Choice)

_HEAD = (
    select(_SCENES, _CHAPTERS, _PROJECTS)
    .join(_CHAPTERS, _CHAPTERS.c.id == _SCENES.c.chapter_id)
    .join(_PROJECTS, _PROJECTS.c.id == _SCENES.c.project_id)
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
    select(_REVISION_ROWS.c.entity_id, func.max(_REVISION_ROWS.c.id))
    .where(
        _REVISION_ROWS.c.project_id
        == select(_SCENES.c.project_id).where(_SCENES.c.id == bindparam("scene_id")).scalar_subquery(),
        or_(_REVISION_ROWS.c.entity_type == "scene", _REVISION_ROWS.c.entity_type == "dialogue_line"),
        _REVISION_ROWS.c.entity_id.in_(
            union_all(
                select(bindparam("scene_id", type_=String)),
                select(_LINES_TABLE.c.id).where(_LINES_TABLE.c.scene_id == bindparam("scene_id")),
            )
        ),
    )
    .group_by(_REVISION_ROWS.c.entity_type, _REVISION_ROWS.c.entity_id)
)
_CHARACTERS = select(_CHARACTERS_TABLE).where(_CHARACTERS_TABLE.c.project_id == bindparam("project_id"))
# The undeleted assets the scene's and its chapter's slots name: at most four, a fixed list.
_LIVE_MEDIA = select(_ASSETS).where(
    _ASSETS.c.project_id == bindparam("project_id"),
    _ASSETS.c.id.in_([bindparam(f"asset_{n}") for n in range(2 * len(MEDIA_SLOTS))]),
    _ASSETS.c.deleted_at.is_(None),
)


def _choice_view(values: Any) -> ChoiceView:
    title, chapter_id = values[_CHOICE_END], values[_CHOICE_END + 1]
    return ChoiceView(loaded(Choice, values[:_CHOICE_END]), title, chapter_id)


def _slot(scene: Scene, chapter: Chapter, slot: MediaSlot, media: dict[str, Asset]) -> AssetSlot:
    chosen = effective_media(scene, chapter, slot, media)
    return AssetSlot(media[chosen.asset_id], chosen.source) if chosen.asset_id else AssetSlot(None, None)


def _line_view(line: DialogueLine, characters: dict[str, Character]) -> LineView:
    speaker = characters.get(line.character_id) if line.character_id else None
    return LineView(line, speaker.name if speaker else None, speaker.color if speaker else None)
