"""Project tools: `romergo_list_projects` and `romergo_get_project_outline`."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Annotated, Literal

from mcp.types import CallToolResult
from pydantic import BaseModel, ConfigDict

from mcp_tools.declare import Call, Toolbox
from mcp_tools.envelope import Envelope
from mcp_tools.paging import paged_aside
from mcp_tools.tools.common import (
    READ_ONLY,
    Page,
    PageSize,
    ProjectId,
    Revision,
    RoomListing,
    SceneItem,
    room_note,
)
from romergo.common.clock import iso
from romergo.story.records import ChapterRecord, CharacterRecord, SceneRecord

MemberRole = Literal["owner", "editor", "viewer"]


class ProjectSummary(BaseModel):
    id: str
    title: str
    updated_at: str
    published: bool
    role: MemberRole
    """The caller's role in the project: what they may do there."""


class ProjectList(BaseModel):
    projects: list[ProjectSummary]


class ProjectRef(BaseModel):
    model_config = ConfigDict(from_attributes=True)

    id: str
    title: str


class OutlineChapter(BaseModel):
    id: str
    title: str
    position: int
    music_asset_id: str | None
    revision: Revision
    scenes: list[SceneItem]


class CharacterItem(BaseModel):
    model_config = ConfigDict(from_attributes=True)

    id: str
    name: str
    color: str
    revision: Revision = 0


class OutlineData(RoomListing):
    project: ProjectRef
    chapters: list[OutlineChapter]
    characters: list[CharacterItem]
    role: MemberRole
    """The caller's role in the project."""


Unit = (
    tuple[Literal["chapter"], ChapterRecord]
    | tuple[Literal["scene"], SceneRecord]
    | tuple[Literal["character"], CharacterRecord]
)
tools = Toolbox()


@tools.tool(
    "read",
    "List projects",
    "List the Romergo story projects the user is a member of, most recently changed first: id, "
    "title, last change (ISO 8601 UTC), whether the story is published, and the user's role "
    "(owner, editor or viewer: a viewer only reads). A long list is cut with "
    "truncated: true; call again with page = next_page for the rest.",
    READ_ONLY,
)
async def romergo_list_projects(
    call: Call, page: Page = None, page_size: PageSize = None
) -> Annotated[CallToolResult, Envelope[ProjectList]]:
    rows = await call.services.projects.projects_with_roles(call.actor)
    summaries = [
        ProjectSummary(
            id=row.id,
            title=row.title,
            updated_at=iso(row.updated_at) or "",
            published=row.published,
            role=role.value,
        )
        for row, role in rows
    ]

    def build(part: Sequence[ProjectSummary]) -> ProjectList:
        return ProjectList(projects=list(part))

    # The caller is part of the call: another user's token is not a page of this list.
    keys = [summary.id for summary in summaries]
    return await paged_aside(f"list_projects:{call.actor.user_id}", summaries, keys, build, page, page_size)


@tools.tool(
    "read",
    "Read a project's outline",
    "Read the structure of a story: its chapters in order, each with its scenes (id, title, "
    "start and ending marks), its characters (id, name, colour), and your role in it (owner, "
    "editor or viewer: a viewer only reads). Start here to find the "
    "ids other tools need. A long result is cut with truncated: true; call again with "
    "page = next_page for the rest (a chapter continued on the next page appears again there "
    "with the rest of its scenes). In a room limited to some chapters, only those are listed "
    "(room says so).",
    READ_ONLY,
    target=("project", "project_id"),
)
async def romergo_get_project_outline(
    call: Call, project_id: ProjectId, page: Page = None, page_size: PageSize = None
) -> Annotated[CallToolResult, Envelope[OutlineData]]:
    outline = await call.services.reads.outline(call.actor, project_id)
    units: list[Unit] = []
    for chapter in outline.chapters:
        units.append(("chapter", chapter.chapter))
        units.extend(("scene", scene) for scene in chapter.scenes)
    units.extend(("character", character) for character in outline.characters)
    chapters = {chapter.chapter.id: chapter.chapter for chapter in outline.chapters}
    project = ProjectRef.model_validate(outline.project)
    assert outline.role is not None, "an outline is read for a member"
    role = outline.role.value

    def build(part: Sequence[Unit]) -> OutlineData:
        page = _outline_page(project, part, chapters, outline.revisions, role)
        return page.model_copy(update={"room": room_note(call.actor)})

    keys = [unit[1].id for unit in units]
    return await paged_aside(f"get_project_outline:{project.id}", units, keys, build, page, page_size)


def _outline_page(
    project: ProjectRef,
    units: Sequence[Unit],
    chapters: dict[str, ChapterRecord],
    revisions: Mapping[str, int],
    role: str,
) -> OutlineData:
    """Rebuild the nested outline from a slice of its flattened units."""
    out: list[OutlineChapter] = []
    characters: list[CharacterItem] = []

    def open_chapter(chapter: ChapterRecord) -> None:
        out.append(
            OutlineChapter(
                id=chapter.id,
                title=chapter.title,
                position=chapter.position,
                music_asset_id=chapter.music_asset_id,
                revision=revisions.get(chapter.id, 0),
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
            out[-1].scenes.append(SceneItem.of(scene, revisions))
        else:
            character = unit[1]
            item = CharacterItem.model_validate(character)
            characters.append(item.model_copy(update={"revision": revisions.get(character.id, 0)}))
    return OutlineData(project=project, chapters=out, characters=characters, role=role)
