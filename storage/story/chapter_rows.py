"""One chapter with its scenes in order, as `romergo_get_chapter` shows it: read on the driver
(`Database.read_rows`) like a scene, two prebuilt statements where the ORM spent most of the
call's server time around them."""

from __future__ import annotations

from sqlalchemy import String, and_, bindparam, func, or_, select, union_all

from storage.core_tables import PROJECT_MEMBERS, REVISIONS, core_table, record_maker, width
from storage.database import Database
from storage.driver import Rows
from storage.story.records import ChapterRecord, ChapterRows, ProjectRecord, SceneRecord
from storage.tables import Chapter, Project, Scene


async def chapter_rows(db: Database, reader_id: str, chapter_id: str) -> ChapterRows | None:
    """The chapter, if it lies in a project the reader is a member of and is not deleted, in one snapshot."""
    if not isinstance(chapter_id, str) or not chapter_id:
        return None
    return await db.read_rows(lambda rows: _chapter_rows(rows, reader_id, chapter_id))


def _chapter_rows(rows: Rows, reader_id: str, chapter_id: str) -> ChapterRows | None:
    # The revisions first (`storage.story.revisions.newest_revisions` says why).
    revisions = rows.all(_REVISIONS, {"chapter_id": chapter_id})
    head = rows.first(_HEAD, {"chapter_id": chapter_id, "member_id": reader_id})
    if head is None or head[-1] is None:  # the reader's role: none for one who is not a member
        return None
    project = _project(head[_CHAPTER_END:-1])
    if project.deleted_at is not None:
        return None
    chapter = _chapter(head[:_CHAPTER_END])
    scenes = [_scene(values) for values in rows.all(_SCENES_IN_ORDER, {"chapter_id": chapter.id})]
    return ChapterRows(chapter, project, scenes, {entity_id: number for entity_id, number in revisions})


_CHAPTERS, _PROJECTS, _SCENES = core_table(Chapter), core_table(Project), core_table(Scene)
_project, _chapter = record_maker(ProjectRecord, Project), record_maker(ChapterRecord, Chapter)
_scene = record_maker(SceneRecord, Scene)
_CHAPTER_END = width(Chapter)
_MEMBERSHIP = and_(
    PROJECT_MEMBERS.c.project_id == _PROJECTS.c.id, PROJECT_MEMBERS.c.user_id == bindparam("member_id")
)
_HEAD = (
    select(_CHAPTERS, _PROJECTS, PROJECT_MEMBERS.c.role)
    .join(_PROJECTS, _PROJECTS.c.id == _CHAPTERS.c.project_id)
    .outerjoin(PROJECT_MEMBERS, _MEMBERSHIP)
    .where(_CHAPTERS.c.id == bindparam("chapter_id"))
)
_SCENES_IN_ORDER = (
    select(_SCENES).where(_SCENES.c.chapter_id == bindparam("chapter_id")).order_by(_SCENES.c.position)
)
# The newest revision of the chapter and of each of its scenes: one range of `ix_revisions_entity`.
_REVISIONS = (
    select(REVISIONS.c.entity_id, func.max(REVISIONS.c.id))
    .where(
        REVISIONS.c.project_id
        == select(_CHAPTERS.c.project_id).where(_CHAPTERS.c.id == bindparam("chapter_id")).scalar_subquery(),
        or_(REVISIONS.c.entity_type == "chapter", REVISIONS.c.entity_type == "scene"),
        REVISIONS.c.entity_id.in_(
            union_all(
                select(bindparam("chapter_id", type_=String)),
                select(_SCENES.c.id).where(_SCENES.c.chapter_id == bindparam("chapter_id")),
            )
        ),
    )
    .group_by(REVISIONS.c.entity_type, REVISIONS.c.entity_id)
)
