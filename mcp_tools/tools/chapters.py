"""Chapter tools: read one with its scenes, add, rename, delete."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated, Any

from mcp.server.mcpserver import Context, MCPServer
from mcp.types import CallToolResult
from pydantic import BaseModel, Field

from mcp_tools.envelope import Envelope, envelope
from mcp_tools.paging import paged
from mcp_tools.tooling import ToolSpec, add_tool, run_tool
from mcp_tools.tools.common import (
    ADDS,
    READ_ONLY,
    REPLACES,
    UPDATES,
    ChapterEntity,
    ChapterId,
    CommandId,
    Deleted,
    Page,
    Position,
    ProjectId,
    SceneItem,
    chapter_entity,
    scene_item,
)
from romergo.actors import Actor
from romergo.entities import Scene
from romergo.services import Services

Title = Annotated[str, Field(description="The chapter's title: one line, at most 200 characters.")]


class ChapterData(BaseModel):
    id: str
    project_id: str
    title: str
    position: int
    music_asset_id: str | None
    background_asset_id: str | None
    scenes: list[SceneItem]


GET_CHAPTER = ToolSpec(
    name="romergo_get_chapter",
    category="read",
    title="Read a chapter",
    description=(
        "Read one chapter: its title, position, music and its scenes in order (id, title, start "
        "and ending marks). Use romergo_get_scene for a scene's dialogue and choices. A long "
        "result is cut with truncated: true; call again with page = next_page for the rest."
    ),
    annotations=READ_ONLY,
    target=("chapter", "chapter_id"),
)
ADD_CHAPTER = ToolSpec(
    name="romergo_add_chapter",
    category="edit",
    title="Add a chapter",
    description=(
        "Add a new, empty chapter to a project, at `position` (0-based) or at the end. Returns "
        "the new chapter with its id. Add scenes to it with romergo_add_scene."
    ),
    annotations=ADDS,
    target=("project", "project_id"),
    action=lambda args: f"Add a chapter to project {args['project_id']}",
)
UPDATE_CHAPTER = ToolSpec(
    name="romergo_update_chapter",
    category="edit",
    title="Rename a chapter",
    description="Rename a chapter. Returns the chapter as it is now.",
    annotations=UPDATES,
    target=("chapter", "chapter_id"),
    action=lambda args: f"Rename chapter {args['chapter_id']}",
)
DELETE_CHAPTER = ToolSpec(
    name="romergo_delete_chapter",
    category="delete",
    title="Delete a chapter",
    description=(
        "Delete a chapter together with all its scenes, their dialogue and choices. Choices in "
        "other chapters that led into these scenes are left without a target (romergo_check_story "
        "reports them as dangling_target). The history keeps what was deleted."
    ),
    annotations=REPLACES,
    target=("chapter", "chapter_id"),
    action=lambda args: f"Delete chapter {args['chapter_id']} with all its scenes",
)


def register(server: MCPServer[Any], services: Services) -> None:

    async def romergo_get_chapter(
        chapter_id: ChapterId, ctx: Context[Any, Any], page: Page = None
    ) -> Annotated[CallToolResult, Envelope[ChapterData]]:
        async def body(actor: Actor) -> CallToolResult:
            outline = await services.chapters.chapter_outline(actor, chapter_id)
            chapter = outline.chapter

            def build(scenes: Sequence[Scene]) -> ChapterData:
                return ChapterData(
                    **chapter_entity(chapter).model_dump(exclude={"entity_type"}),
                    scenes=[scene_item(scene) for scene in scenes],
                )

            scenes = outline.scenes
            return paged(f"get_chapter:{chapter.id}", scenes, [s.id for s in scenes], build, page)

        return await run_tool(services, GET_CHAPTER, {"chapter_id": chapter_id, "page": page}, body, ctx)

    async def romergo_add_chapter(
        project_id: ProjectId,
        title: Title,
        ctx: Context[Any, Any],
        position: Position = None,
        command_id: CommandId = None,
    ) -> Annotated[CallToolResult, Envelope[ChapterEntity]]:
        arguments = {"project_id": project_id, "title": title, "position": position, "command_id": command_id}

        async def body(actor: Actor) -> CallToolResult:
            return envelope(
                chapter_entity(await services.chapters.add_chapter(actor, project_id, title, position))
            )

        return await run_tool(services, ADD_CHAPTER, arguments, body, ctx)

    async def romergo_update_chapter(
        chapter_id: ChapterId, title: Title, ctx: Context[Any, Any], command_id: CommandId = None
    ) -> Annotated[CallToolResult, Envelope[ChapterEntity]]:
        arguments = {"chapter_id": chapter_id, "title": title, "command_id": command_id}

        async def body(actor: Actor) -> CallToolResult:
            return envelope(chapter_entity(await services.chapters.update_chapter(actor, chapter_id, title)))

        return await run_tool(services, UPDATE_CHAPTER, arguments, body, ctx)

    async def romergo_delete_chapter(
        chapter_id: ChapterId, ctx: Context[Any, Any], command_id: CommandId = None
    ) -> Annotated[CallToolResult, Envelope[Deleted]]:
        async def body(actor: Actor) -> CallToolResult:
            await services.chapters.delete_chapter(actor, chapter_id)
            return envelope(Deleted(entity_type="chapter", id=chapter_id))

        arguments = {"chapter_id": chapter_id, "command_id": command_id}
        return await run_tool(services, DELETE_CHAPTER, arguments, body, ctx)

    add_tool(server, GET_CHAPTER, romergo_get_chapter)
    add_tool(server, ADD_CHAPTER, romergo_add_chapter)
    add_tool(server, UPDATE_CHAPTER, romergo_update_chapter)
    add_tool(server, DELETE_CHAPTER, romergo_delete_chapter)
