"""`romergo_preview_scene`: a scene as a player meets it, as plain text lines."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated

from mcp.types import CallToolResult
from pydantic import BaseModel

from mcp_tools.declare import Call, Toolbox
from mcp_tools.envelope import Envelope
from mcp_tools.paging import paged_aside
from mcp_tools.tools.common import READ_ONLY, Page, PageSize, SceneId
from romergo.story.views import AssetSlot, LineView, SceneView


class Preview(BaseModel):
    scene_id: str
    title: str
    screen: list[str]
    """What the player sees, one entry per line of text, in order."""


tools = Toolbox()


@tools.tool(
    "read",
    "Preview a scene",
    "See a scene as a player meets it, as text: the background and music that play, each "
    "dialogue line as 'Speaker: text' (narration without a speaker), then the numbered "
    "choices, or a note that the story ends or stops there. Use it to proofread; use "
    "romergo_get_scene for ids. A long scene is cut with truncated: true; call again with "
    "page = next_page for the rest.",
    READ_ONLY,
    target=("scene", "scene_id"),
)
async def romergo_preview_scene(
    call: Call, scene_id: SceneId, page: Page = None, page_size: PageSize = None
) -> Annotated[CallToolResult, Envelope[Preview]]:
    view = await call.services.scenes.scene_view(call.actor, scene_id)
    shown = screen_of(view)

    def build(part: Sequence[str]) -> Preview:
        return Preview(scene_id=view.scene.id, title=view.scene.title, screen=list(part))

    # Keys: each shown line with its place, so any change between pages is noticed.
    keys = [f"{index}:{text}" for index, text in enumerate(shown)]
    return await paged_aside(f"preview_scene:{view.scene.id}", shown, keys, build, page, page_size)


def screen_of(view: SceneView) -> list[str]:
    shown = [f"Background: {_media(view.background)}", f"Music: {_media(view.music)}", ""]
    shown.extend(_line(line) for line in view.lines)
    shown.append("")
    if view.choices:
        shown.extend(f"{number}. {c.choice.label}" for number, c in enumerate(view.choices, start=1))
    elif view.scene.is_ending:
        shown.append("(The story ends here.)")
    else:
        shown.append("(No choices: the story stops here without an ending.)")
    return shown


def _media(slot: AssetSlot) -> str:
    if slot.asset is None:
        return "none"
    return slot.asset.name + (" (from the chapter)" if slot.source == "chapter" else "")


def _line(view: LineView) -> str:
    if view.speaker is not None:
        return f"{view.speaker}: {view.line.text}"
    if view.line.character_id is not None:
        return f"(unknown speaker): {view.line.text}"
    return view.line.text
