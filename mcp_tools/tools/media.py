"""Media tools: which background and music a scene or chapter uses."""

from __future__ import annotations

from typing import Annotated, Any

from mcp.server.mcpserver import Context, MCPServer
from mcp.types import CallToolResult
from pydantic import Field

from mcp_tools.envelope import Envelope, envelope
from mcp_tools.tooling import ToolSpec, add_tool, run_tool
from mcp_tools.tools.common import (
    UPDATES,
    ChapterEntity,
    ChapterId,
    CommandId,
    SceneEntity,
    SceneId,
    chapter_entity,
    scene_entity,
)
from romergo.actors import Actor
from romergo.services import Services

SET_BACKGROUND = ToolSpec(
    name="romergo_set_scene_background",
    category="media",
    title="Set a scene's background",
    description=(
        "Show a background image in a scene: asset_id of a background asset (find one with "
        "romergo_search_assets kind=background, or import it). null removes the scene's own "
        "background. Returns the scene as it is now."
    ),
    annotations=UPDATES,
    target=("scene", "scene_id"),
    action=lambda args: f"Set the background of scene {args['scene_id']} to {args['asset_id'] or 'none'}",
)
SET_SCENE_MUSIC = ToolSpec(
    name="romergo_set_scene_music",
    category="media",
    title="Set a scene's music",
    description=(
        "Play a music asset in a scene: asset_id of a music asset (romergo_search_assets "
        "kind=music). null means the scene plays its chapter's music. Returns the scene as it is now."
    ),
    annotations=UPDATES,
    target=("scene", "scene_id"),
    action=lambda args: (
        f"Set the music of scene {args['scene_id']} to {args['asset_id'] or 'the chapter music'}"
    ),
)
SET_CHAPTER_MUSIC = ToolSpec(
    name="romergo_set_chapter_music",
    category="media",
    title="Set a chapter's music",
    description=(
        "Set the music every scene of a chapter plays unless the scene has its own: asset_id of "
        "a music asset, or null for none. Returns the chapter as it is now."
    ),
    annotations=UPDATES,
    target=("chapter", "chapter_id"),
    action=lambda args: f"Set the music of chapter {args['chapter_id']} to {args['asset_id'] or 'none'}",
)


def register(server: MCPServer[Any], services: Services) -> None:

    async def romergo_set_scene_background(
        scene_id: SceneId,
        asset_id: Annotated[str | None, Field(description="A background asset's id, or null to clear it.")],
        ctx: Context[Any, Any],
        command_id: CommandId = None,
    ) -> Annotated[CallToolResult, Envelope[SceneEntity]]:
        arguments = {"scene_id": scene_id, "asset_id": asset_id, "command_id": command_id}

        async def body(actor: Actor) -> CallToolResult:
            return envelope(
                scene_entity(await services.scenes.set_scene_background(actor, scene_id, asset_id))
            )

        return await run_tool(services, SET_BACKGROUND, arguments, body, ctx)

    async def romergo_set_scene_music(
        scene_id: SceneId,
        asset_id: Annotated[
            str | None, Field(description="A music asset's id, or null to play the chapter's music.")
        ],
        ctx: Context[Any, Any],
        command_id: CommandId = None,
    ) -> Annotated[CallToolResult, Envelope[SceneEntity]]:
        arguments = {"scene_id": scene_id, "asset_id": asset_id, "command_id": command_id}

        async def body(actor: Actor) -> CallToolResult:
            return envelope(scene_entity(await services.scenes.set_scene_music(actor, scene_id, asset_id)))

        return await run_tool(services, SET_SCENE_MUSIC, arguments, body, ctx)

    async def romergo_set_chapter_music(
        chapter_id: ChapterId,
        asset_id: Annotated[str | None, Field(description="A music asset's id, or null for no music.")],
        ctx: Context[Any, Any],
        command_id: CommandId = None,
    ) -> Annotated[CallToolResult, Envelope[ChapterEntity]]:
        arguments = {"chapter_id": chapter_id, "asset_id": asset_id, "command_id": command_id}

        async def body(actor: Actor) -> CallToolResult:
            return envelope(
                chapter_entity(await services.chapters.set_chapter_music(actor, chapter_id, asset_id))
            )

        return await run_tool(services, SET_CHAPTER_MUSIC, arguments, body, ctx)

    add_tool(server, SET_BACKGROUND, romergo_set_scene_background)
    add_tool(server, SET_SCENE_MUSIC, romergo_set_scene_music)
    add_tool(server, SET_CHAPTER_MUSIC, romergo_set_chapter_music)
