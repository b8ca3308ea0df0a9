"""Project tools: `romergo_list_projects` and `romergo_get_project_outline`."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated, Any, Literal

from mcp.server.mcpserver import Context, MCPServer
from mcp.types import CallToolResult
from pydantic import BaseModel

from mcp_tools.envelope import Envelope, envelope
from mcp_tools.paging import paged
from mcp_tools.tooling import ToolSpec, add_tool, run_tool
from mcp_tools.tools.common import READ_ONLY, Page, ProjectId, SceneItem, scene_item
from romergo.actors import Actor
from romergo.clock import iso
from romergo.entities import Chapter, Character, Scene
from romergo.services import Services


class ProjectSummary(BaseModel):
    id: str
    title: str
    updated_at: str
    published: bool


class ProjectList(BaseModel):
    projects: list[ProjectSummary]


class ProjectRef(BaseModel):
    id: str
    title: str


class OutlineChapter(BaseModel):
    id: str
    title: str
    position: int
    music_asset_id: str | None
    scenes: list[SceneItem]


class CharacterItem(BaseModel):
    id: str
    name: str
    color: str


class OutlineData(BaseModel):
    project: ProjectRef
    chapters: list[OutlineChapter]
    characters: list[CharacterItem]


LIST_PROJECTS = ToolSpec(
    name="romergo_list_projects",
    category="read",
    title="List projects",
    description=(
        "List the user's Romergo story projects, most recently changed first: id, title, "
        "last change (ISO 8601 UTC) and whether the story is published."
    ),
    annotations=READ_ONLY,
)
GET_OUTLINE = ToolSpec(
    name="romergo_get_project_outline",
    category="read",
    title="Read a project's outline",
    description=(
        "Read the structure of a story: its chapters in order, each with its scenes (id, title, "
        "start and ending marks), and its characters (id, name, colour). Start here to find the "
        "ids other tools need. A long result is cut with truncated: true; call again with "
        "page = next_page for the rest (a chapter continued on the next page appears again there "
        "with the rest of its scenes)."
    ),
    annotations=READ_ONLY,
    target=("project", "project_id"),
)

Unit = (
    tuple[Literal["chapter"], Chapter]
    | tuple[Literal["scene"], Scene]
    | tuple[Literal["character"], Character]
)


def register(server: MCPServer[Any], services: Services) -> None:
    async def romergo_list_projects(
        ctx: Context[Any, Any],
    ) -> Annotated[CallToolResult, Envelope[ProjectList]]:
        async def body(actor: Actor) -> CallToolResult:
            rows = await services.projects.list_projects(actor)
            summaries = [
                ProjectSummary(
                    id=row.id, title=row.title, updated_at=iso(row.updated_at) or "", published=row.published
                )
                for row in rows
            ]
            return envelope(ProjectList(projects=summaries))

        return await run_tool(services, LIST_PROJECTS, {}, body, ctx)

    async def romergo_get_project_outline(
        project_id: ProjectId, ctx: Context[Any, Any], page: Page = None
    ) -> Annotated[CallToolResult, Envelope[OutlineData]]:
        async def body(actor: Actor) -> CallToolResult:
            outline = await services.reads.outline(actor, project_id)
            units: list[Unit] = []
            for chapter in outline.chapters:
                units.append(("chapter", chapter.chapter))
                units.extend(("scene", scene) for scene in chapter.scenes)
            units.extend(("character", character) for character in outline.characters)
            chapters = {chapter.chapter.id: chapter.chapter for chapter in outline.chapters}
            project = ProjectRef(id=outline.project.id, title=outline.project.title)

            def build(part: Sequence[Unit]) -> OutlineData:
                return _outline_page(project, part, chapters)

            keys = [unit[1].id for unit in units]
            return paged(f"get_project_outline:{project.id}", units, keys, build, page)

        arguments = {"project_id": project_id, "page": page}
        return await run_tool(services, GET_OUTLINE, arguments, body, ctx)

    add_tool(server, LIST_PROJECTS, romergo_list_projects)
    add_tool(server, GET_OUTLINE, romergo_get_project_outline)


def _outline_page(project: ProjectRef, units: Sequence[Unit], chapters: dict[str, Chapter]) -> OutlineData:
    """Rebuild the nested outline from a slice of its flattened units."""
    out: list[OutlineChapter] = []
    characters: list[CharacterItem] = []

    def open_chapter(chapter: Chapter) -> None:
        out.append(
            OutlineChapter(
                id=chapter.id,
                title=chapter.title,
                position=chapter.position,
                music_asset_id=chapter.music_asset_id,
                scenes=[],
            )
        )

    for unit in units:
        if unit[0] == "chapter":
            open_chapter(unit[1])
        elif unit[0] == "scene":
            scene = unit[1]
            if not out or out[-1].id != scene.chapter_id:
                open_chapter(chapters[scene.chapter_id])
            out[-1].scenes.append(scene_item(scene))
        else:
            character = unit[1]
            characters.append(CharacterItem(id=character.id, name=character.name, color=character.color))
    return OutlineData(project=project, chapters=out, characters=characters)
