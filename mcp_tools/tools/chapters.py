"""Chapter tools: read one with its scenes, add, rename, delete."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated

from mcp.types import CallToolResult
from pydantic import BaseModel, Field

from mcp_tools.declare import Call, Toolbox
from mcp_tools.envelope import Envelope
from mcp_tools.paging import paged_aside
from mcp_tools.tools.common import (
    ADDS,
    READ_ONLY,
    REPLACES,
    UPDATES,
    ChapterEntity,
    ChapterId,
    CommandId,
    Deleted,
    ExpectedRevision,
    Page,
    PageSize,
    Position,
    ProjectId,
    RevisedChapter,
    Revision,
    SceneItem,
    revised,
)
from romergo.story.records import SceneRecord
from romergo.story.revisions import collect_written

Title = Annotated[str, Field(description="The chapter's title: one line, at most 200 characters.")]


class ChapterData(BaseModel):
    id: str
    project_id: str
    title: str
    position: int
    music_asset_id: str | None
    background_asset_id: str | None
    revision: Revision
    scenes: list[SceneItem]


tools = Toolbox()


@tools.tool(
    "read",
    "Read a chapter",
    "Read one chapter: its title, position, music and its scenes in order (id, title, start "
    "and ending marks). Use romergo_get_scene for a scene's dialogue and choices. A long "
    "result is cut with truncated: true; call again with page = next_page for the rest.",
    READ_ONLY,
    target=("chapter", "chapter_id"),
)
async def romergo_get_chapter(
    call: Call, chapter_id: ChapterId, page: Page = None, page_size: PageSize = None
) -> Annotated[CallToolResult, Envelope[ChapterData]]:
    outline = await call.services.chapters.chapter_outline(call.actor, chapter_id)
    chapter = ChapterEntity.model_validate(outline.chapter).model_dump(exclude={"entity_type"})
    revisions = outline.revisions

    def build(scenes: Sequence[SceneRecord]) -> ChapterData:
        return ChapterData(
            **chapter,
            revision=revisions.get(outline.chapter.id, 0),
            scenes=[SceneItem.of(scene, revisions) for scene in scenes],
        )

    scenes = outline.scenes
    return await paged_aside(
        f"get_chapter:{outline.chapter.id}", scenes, [s.id for s in scenes], build, page, page_size
    )


@tools.tool(
    "edit",
    "Add a chapter",
    "Add a new, empty chapter to a project, at `position` (0-based) or at the end. Returns "
    "the new chapter with its id. Add scenes to it with romergo_add_scene.",
    ADDS,
    target=("project", "project_id"),
    whole_project=True,
    action=lambda args: f"Add a chapter to project {args['project_id']}",
    result=RevisedChapter,
)
async def romergo_add_chapter(
    call: Call, project_id: ProjectId, title: Title, position: Position = None, command_id: CommandId = None
) -> RevisedChapter:
    with collect_written() as written:
        chapter = await call.services.chapters.add_chapter(call.actor, project_id, title, position)
    return await revised(call, RevisedChapter, "chapter", chapter, written)


@tools.tool(
    "edit",
    "Rename a chapter",
    "Rename a chapter. Returns the chapter as it is now.",
    UPDATES,
    target=("chapter", "chapter_id"),
    action=lambda args: f"Rename chapter {args['chapter_id']}",
    result=RevisedChapter,
)
async def romergo_update_chapter(
    call: Call,
    chapter_id: ChapterId,
    title: Title,
    expected_revision: ExpectedRevision = None,
    command_id: CommandId = None,
) -> RevisedChapter:
    with collect_written() as written:
        chapter = await call.services.chapters.update_chapter(
            call.actor, chapter_id, title, expected_revision=expected_revision
        )
    return await revised(call, RevisedChapter, "chapter", chapter, written)


@tools.tool(
    "delete",
    "Delete a chapter",
    "Delete a chapter together with all its scenes, their dialogue and choices. Choices in "
    "other chapters that led into these scenes are left without a target (romergo_check_story "
    "reports them as dangling_target). The history keeps what was deleted.",
    REPLACES,
    target=("chapter", "chapter_id"),
    action=lambda args: f"Delete chapter {args['chapter_id']} with all its scenes",
    result=Deleted,
)
async def romergo_delete_chapter(call: Call, chapter_id: ChapterId, command_id: CommandId = None) -> Deleted:
    await call.services.chapters.delete_chapter(call.actor, chapter_id)
    return Deleted(entity_type="chapter", id=chapter_id)


@tools.tool(
    "edit",
    "Duplicate a chapter",
    "Copy a chapter right after it, with all its scenes and what they own. Choices between the "
    "chapter's own scenes lead to the copies, so the copied chapter plays by itself; choices "
    'out of it keep their targets. The copy is titled "<title> (copy)". Returns the copy; '
    "romergo_get_chapter lists its scenes. Not in a room limited to some chapters (the copy "
    "would lie outside it).",
    ADDS,
    target=("chapter", "chapter_id"),
    action=lambda args: f"Duplicate chapter {args['chapter_id']}",
    result=RevisedChapter,
    whole_project=True,
)
async def romergo_duplicate_chapter(
    call: Call, chapter_id: ChapterId, command_id: CommandId = None
) -> RevisedChapter:
    with collect_written() as written:
        chapter = await call.services.copies.duplicate_chapter(call.actor, chapter_id)
    return await revised(call, RevisedChapter, "chapter", chapter, written)
