"""Scene tools: read one in full, add, rename and mark, move, delete."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated, Any, Literal

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
    ChapterId,
    CommandId,
    Deleted,
    NewPosition,
    OptionalFlag,
    Page,
    Position,
    SceneEntity,
    SceneId,
    scene_entity,
)
from romergo.actors import Actor
from romergo.services import Services
from romergo.story.views import AssetSlot, LineView

Title = Annotated[str, Field(description="The scene's title: one line, at most 200 characters.")]


class SceneHeader(BaseModel):
    id: str
    title: str
    chapter_id: str
    position: int
    is_start: bool
    is_ending: bool


class Slot(BaseModel):
    asset_id: str | None
    name: str | None
    source: Literal["scene", "chapter"] | None
    """Whether the scene has its own asset here or plays its chapter's; null when there is none."""


class LineItem(BaseModel):
    id: str
    position: int
    character_id: str | None
    speaker: str | None
    text: str


class ChoiceItem(BaseModel):
    id: str
    label: str
    target_scene_id: str | None
    target_title: str | None


class SceneData(BaseModel):
    scene: SceneHeader
    background: Slot
    music: Slot
    lines: list[LineItem]
    choices: list[ChoiceItem]


def slot(view: AssetSlot) -> Slot:
    asset = view.asset
    return Slot(asset_id=asset.id if asset else None, name=asset.name if asset else None, source=view.source)


GET_SCENE = ToolSpec(
    name="romergo_get_scene",
    category="read",
    title="Read a scene",
    description=(
        "Read one scene in full: title, start and ending marks, its background and music (with "
        "source 'scene' when set on the scene, 'chapter' when inherited from its chapter), its "
        "dialogue lines in order (speaker null means narration) and its choices with their target "
        "scenes. A long scene is cut with truncated: true; call again with page = next_page for "
        "the rest of its lines (the scene, media and choices repeat on every page)."
    ),
    annotations=READ_ONLY,
    target=("scene", "scene_id"),
)
ADD_SCENE = ToolSpec(
    name="romergo_add_scene",
    category="edit",
    title="Add a scene",
    description=(
        "Add a new, empty scene to a chapter, at `position` (0-based) or at the end. The first "
        "scene of a project becomes its start scene. Returns the scene with its new id; then add "
        "dialogue (romergo_add_dialogue_line) and choices (romergo_set_choices)."
    ),
    annotations=ADDS,
    target=("chapter", "chapter_id"),
    action=lambda args: f"Add a scene to chapter {args['chapter_id']}",
)
UPDATE_SCENE = ToolSpec(
    name="romergo_update_scene",
    category="edit",
    title="Rename or mark a scene",
    description=(
        "Change a scene's title and its marks. Only the arguments you give change; null leaves "
        "a field as it is. A project has one start scene: is_start = true moves the mark here "
        "from the old start scene. is_ending = true marks a scene where the story may end. "
        "Returns the scene as it is now."
    ),
    annotations=UPDATES,
    target=("scene", "scene_id"),
    action=lambda args: f"Change scene {args['scene_id']}",
)
MOVE_SCENE = ToolSpec(
    name="romergo_move_scene",
    category="edit",
    title="Move a scene",
    description=(
        "Move a scene to `position` (0-based) in a chapter of the same project: the same "
        "chapter to reorder, another one to move it there. Returns the scene as it is now."
    ),
    annotations=UPDATES,
    target=("scene", "scene_id"),
    action=lambda args: f"Move scene {args['scene_id']} to chapter {args['chapter_id']}",
)
DELETE_SCENE = ToolSpec(
    name="romergo_delete_scene",
    category="delete",
    title="Delete a scene",
    description=(
        "Delete a scene with its dialogue and choices. Choices elsewhere that led to it are left "
        "without a target (romergo_check_story reports them as dangling_target): point them "
        "somewhere else with romergo_set_choices. The history keeps what was deleted."
    ),
    annotations=REPLACES,
    target=("scene", "scene_id"),
    action=lambda args: f"Delete scene {args['scene_id']}",
)


def register(server: MCPServer[Any], services: Services) -> None:

    async def romergo_get_scene(
        scene_id: SceneId, ctx: Context[Any, Any], page: Page = None
    ) -> Annotated[CallToolResult, Envelope[SceneData]]:
        async def body(actor: Actor) -> CallToolResult:
            view = await services.scenes.scene_view(actor, scene_id)
            scene = view.scene
            header = SceneHeader(
                id=scene.id,
                title=scene.title,
                chapter_id=scene.chapter_id,
                position=scene.position,
                is_start=scene.is_start,
                is_ending=scene.is_ending,
            )
            choices = [
                ChoiceItem(
                    id=c.choice.id,
                    label=c.choice.label,
                    target_scene_id=c.choice.target_scene_id,
                    target_title=c.target_title,
                )
                for c in view.choices
            ]

            def build(lines: Sequence[LineView]) -> SceneData:
                return SceneData(
                    scene=header,
                    background=slot(view.background),
                    music=slot(view.music),
                    lines=[
                        LineItem(
                            id=line.line.id,
                            position=line.line.position,
                            character_id=line.line.character_id,
                            speaker=line.speaker,
                            text=line.line.text,
                        )
                        for line in lines
                    ],
                    choices=choices,
                )

            keys = [line.line.id for line in view.lines]
            return paged(f"get_scene:{scene.id}", view.lines, keys, build, page)

        return await run_tool(services, GET_SCENE, {"scene_id": scene_id, "page": page}, body, ctx)

    async def romergo_add_scene(
        chapter_id: ChapterId,
        title: Title,
        ctx: Context[Any, Any],
        position: Position = None,
        command_id: CommandId = None,
    ) -> Annotated[CallToolResult, Envelope[SceneEntity]]:
        arguments = {"chapter_id": chapter_id, "title": title, "position": position, "command_id": command_id}

        async def body(actor: Actor) -> CallToolResult:
            return envelope(scene_entity(await services.scenes.add_scene(actor, chapter_id, title, position)))

        return await run_tool(services, ADD_SCENE, arguments, body, ctx)

    async def romergo_update_scene(
        scene_id: SceneId,
        ctx: Context[Any, Any],
        title: Annotated[str | None, Field(description="New title; null leaves it unchanged.")] = None,
        is_start: OptionalFlag = None,
        is_ending: OptionalFlag = None,
        command_id: CommandId = None,
    ) -> Annotated[CallToolResult, Envelope[SceneEntity]]:
        arguments = {
            "scene_id": scene_id,
            "title": title,
            "is_start": is_start,
            "is_ending": is_ending,
            "command_id": command_id,
        }

        async def body(actor: Actor) -> CallToolResult:
            scene = await services.scenes.update_scene(actor, scene_id, title, is_start, is_ending)
            return envelope(scene_entity(scene))

        return await run_tool(services, UPDATE_SCENE, arguments, body, ctx)

    async def romergo_move_scene(
        scene_id: SceneId,
        chapter_id: Annotated[str, Field(description="The chapter to put it in (its own, to reorder).")],
        position: NewPosition,
        ctx: Context[Any, Any],
        command_id: CommandId = None,
    ) -> Annotated[CallToolResult, Envelope[SceneEntity]]:
        arguments = {
            "scene_id": scene_id,
            "chapter_id": chapter_id,
            "position": position,
            "command_id": command_id,
        }

        async def body(actor: Actor) -> CallToolResult:
            return envelope(
                scene_entity(await services.scenes.move_scene(actor, scene_id, chapter_id, position))
            )

        return await run_tool(services, MOVE_SCENE, arguments, body, ctx)

    async def romergo_delete_scene(
        scene_id: SceneId, ctx: Context[Any, Any], command_id: CommandId = None
    ) -> Annotated[CallToolResult, Envelope[Deleted]]:
        async def body(actor: Actor) -> CallToolResult:
            await services.scenes.delete_scene(actor, scene_id)
            return envelope(Deleted(entity_type="scene", id=scene_id))

        arguments = {"scene_id": scene_id, "command_id": command_id}
        return await run_tool(services, DELETE_SCENE, arguments, body, ctx)

    for spec, fn in (
        (GET_SCENE, romergo_get_scene),
        (ADD_SCENE, romergo_add_scene),
        (UPDATE_SCENE, romergo_update_scene),
        (MOVE_SCENE, romergo_move_scene),
        (DELETE_SCENE, romergo_delete_scene),
    ):
        add_tool(server, spec, fn)
