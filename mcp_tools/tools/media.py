"""Media tools: which background and music a scene or chapter uses."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from mcp_tools.declare import Call, Toolbox
from mcp_tools.tools.common import (
    UPDATES,
    ChapterId,
    CommandId,
    ExpectedRevision,
    RevisedChapter,
    RevisedScene,
    SceneId,
    revised,
)
from romergo.story.revisions import collect_written

tools = Toolbox()


@tools.tool(
    "media",
    "Set a scene's background",
    "Show a background image in a scene: asset_id of a background asset (find one with "
    "romergo_search_assets kind=background, or import it). null removes the scene's own "
    "background. Returns the scene as it is now.",
    UPDATES,
    target=("scene", "scene_id"),
    action=lambda args: f"Set the background of scene {args['scene_id']} to {args['asset_id'] or 'none'}",
    result=RevisedScene,
)
async def romergo_set_scene_background(
    call: Call,
    scene_id: SceneId,
    asset_id: Annotated[str | None, Field(description="A background asset's id, or null to clear it.")],
    expected_revision: ExpectedRevision = None,
    command_id: CommandId = None,
) -> RevisedScene:
    with collect_written() as written:
        scene = await call.services.scenes.set_scene_background(
            call.actor, scene_id, asset_id, expected_revision=expected_revision
        )
    return await revised(call, RevisedScene, "scene", scene, written)


@tools.tool(
    "media",
    "Set a scene's music",
    "Play a music asset in a scene: asset_id of a music asset (romergo_search_assets "
    "kind=music). null means the scene plays its chapter's music. Returns the scene as it is now.",
    UPDATES,
    target=("scene", "scene_id"),
    action=lambda args: (
        f"Set the music of scene {args['scene_id']} to {args['asset_id'] or 'the chapter music'}"
    ),
    result=RevisedScene,
)
async def romergo_set_scene_music(
    call: Call,
    scene_id: SceneId,
    asset_id: Annotated[
        str | None, Field(description="A music asset's id, or null to play the chapter's music.")
    ],
    expected_revision: ExpectedRevision = None,
    command_id: CommandId = None,
) -> RevisedScene:
    with collect_written() as written:
        scene = await call.services.scenes.set_scene_music(
            call.actor, scene_id, asset_id, expected_revision=expected_revision
        )
    return await revised(call, RevisedScene, "scene", scene, written)


@tools.tool(
    "media",
    "Set a chapter's music",
    "Set the music every scene of a chapter plays unless the scene has its own: asset_id of "
    "a music asset, or null for none. Returns the chapter as it is now.",
    UPDATES,
    target=("chapter", "chapter_id"),
    action=lambda args: f"Set the music of chapter {args['chapter_id']} to {args['asset_id'] or 'none'}",
    result=RevisedChapter,
)
async def romergo_set_chapter_music(
    call: Call,
    chapter_id: ChapterId,
    asset_id: Annotated[str | None, Field(description="A music asset's id, or null for no music.")],
    expected_revision: ExpectedRevision = None,
    command_id: CommandId = None,
) -> RevisedChapter:
    with collect_written() as written:
        chapter = await call.services.chapters.set_chapter_music(
            call.actor, chapter_id, asset_id, expected_revision=expected_revision
        )
    return await revised(call, RevisedChapter, "chapter", chapter, written)
