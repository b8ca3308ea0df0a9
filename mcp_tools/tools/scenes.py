"""Scene tools: read one in full, add, rename and mark, move, delete."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Annotated, Literal

from mcp.types import CallToolResult
from pydantic import BaseModel, ConfigDict, Field

from mcp_tools.declare import Call, Toolbox
from mcp_tools.envelope import Envelope
from mcp_tools.paging import paged_aside
from mcp_tools.tools.common import (
    ADDS,
    READ_ONLY,
    REPLACES,
    UPDATES,
    ChapterId,
    CommandId,
    Deleted,
    ExpectedRevision,
    NewPosition,
    OptionalFlag,
    Page,
    PageSize,
    Position,
    RevisedScene,
    Revision,
    SceneId,
    revised,
)
from romergo.story.records import ChoiceWithTarget
from romergo.story.revisions import collect_written
from romergo.story.views import AssetSlot, LineView

Title = Annotated[str, Field(description="The scene's title: one line, at most 200 characters.")]


class SceneHeader(BaseModel):
    model_config = ConfigDict(from_attributes=True)

    id: str
    title: str
    chapter_id: str
    position: int
    is_start: bool
    is_ending: bool
    entry_effects: str | None
    revision: int = Field(
        0,
        description="The scene's revision, which also covers its choices, media and entry effects "
        "(0: never changed since it was made or imported). Pass it as expected_revision when you "
        "change any of them.",
    )


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
    condition: str | None
    revision: Revision

    @classmethod
    def of(cls, view: LineView, revisions: Mapping[str, int]) -> LineItem:
        line = view.line
        return cls(
            id=line.id,
            position=line.position,
            character_id=line.character_id,
            speaker=view.speaker,
            text=line.text,
            condition=line.condition,
            revision=revisions.get(line.id, 0),
        )


class ChoiceItem(BaseModel):
    id: str
    label: str
    target_scene_id: str | None
    target_title: str | None
    condition: str | None
    effects: str | None

    @classmethod
    def of(cls, view: ChoiceWithTarget) -> ChoiceItem:
        choice = view.choice
        return cls(
            id=choice.id,
            label=choice.label,
            target_scene_id=choice.target_scene_id,
            target_title=view.target_title,
            condition=choice.condition,
            effects=choice.effects,
        )


class LineBeingEdited(BaseModel):
    line_id: str
    by: str = Field(description="The author typing in it (their display name).")


class SceneData(BaseModel):
    scene: SceneHeader
    background: Slot
    music: Slot
    lines: list[LineItem]
    choices: list[ChoiceItem]
    being_edited: list[LineBeingEdited] = Field(
        default_factory=list,
        description="Lines the author has open in the editor right now: their draft is based on "
        "what they read, so wait or ask before changing one of these.",
    )


def slot(view: AssetSlot) -> Slot:
    asset = view.asset
    return Slot(asset_id=asset.id if asset else None, name=asset.name if asset else None, source=view.source)


tools = Toolbox()


@tools.tool(
    "read",
    "Read a scene",
    "Read one scene in full: title, start and ending marks, its background and music (with "
    "source 'scene' when set on the scene, 'chapter' when inherited from its chapter), its "
    "dialogue lines in order (speaker null means narration) and its choices with their target "
    "scenes. Lines and choices carry their condition (shown only when it holds) and choices their "
    "effects; entry_effects apply when a player enters the scene (null: none). A long scene "
    "is cut with truncated: true; call again with page = next_page for "
    "the rest of its lines (the scene, media and choices repeat on every page).",
    READ_ONLY,
    target=("scene", "scene_id"),
)
async def romergo_get_scene(
    call: Call, scene_id: SceneId, page: Page = None, page_size: PageSize = None
) -> Annotated[CallToolResult, Envelope[SceneData]]:
    view = await call.services.scenes.scene_view(call.actor, scene_id)
    header = SceneHeader.model_validate(view.scene).model_copy(
        update={"revision": view.revisions.get(view.scene.id, 0)}
    )
    choices = [ChoiceItem.of(choice) for choice in view.choices]
    background, music = slot(view.background), slot(view.music)
    editing = call.services.on_scene.on(view.scene.id).being_edited()
    being_edited = [LineBeingEdited(line_id=line.line_id, by=line.by) for line in editing]

    def build(lines: Sequence[LineView]) -> SceneData:
        items = [LineItem.of(line, view.revisions) for line in lines]
        return SceneData(
            scene=header,
            background=background,
            music=music,
            lines=items,
            choices=choices,
            being_edited=being_edited,
        )

    keys = [line.line.id for line in view.lines]
    return await paged_aside(f"get_scene:{view.scene.id}", view.lines, keys, build, page, page_size)


@tools.tool(
    "edit",
    "Add a scene",
    "Add a new, empty scene to a chapter, at `position` (0-based) or at the end. The first "
    "scene of a project becomes its start scene. Returns the scene with its new id; then add "
    "dialogue (romergo_add_dialogue_line) and choices (romergo_set_choices).",
    ADDS,
    target=("chapter", "chapter_id"),
    action=lambda args: f"Add a scene to chapter {args['chapter_id']}",
    result=RevisedScene,
)
async def romergo_add_scene(
    call: Call, chapter_id: ChapterId, title: Title, position: Position = None, command_id: CommandId = None
) -> RevisedScene:
    with collect_written() as written:
        scene = await call.services.scenes.add_scene(call.actor, chapter_id, title, position)
    return await revised(call, RevisedScene, "scene", scene, written)


@tools.tool(
    "edit",
    "Rename or mark a scene",
    "Change a scene's title and its marks. Only the arguments you give change; null leaves "
    "a field as it is. A project has one start scene: is_start = true moves the mark here "
    "from the old start scene. is_ending = true marks a scene where the story may end. "
    "entry_effects set variables when a player enters the scene (set has_key = true; "
    'set courage = courage + 1); "" clears them. Returns the scene as it is now.',
    UPDATES,
    target=("scene", "scene_id"),
    action=lambda args: f"Change scene {args['scene_id']}",
    result=RevisedScene,
)
async def romergo_update_scene(
    call: Call,
    scene_id: SceneId,
    title: Annotated[str | None, Field(description="New title; null leaves it unchanged.")] = None,
    is_start: OptionalFlag = None,
    is_ending: OptionalFlag = None,
    entry_effects: Annotated[
        str | None,
        Field(
            description='Effects on entering, as in "set seen_cellar = true"; "" clears; null leaves them.'
        ),
    ] = None,
    expected_revision: ExpectedRevision = None,
    command_id: CommandId = None,
) -> RevisedScene:
    with collect_written() as written:
        scene = await call.services.scenes.update_scene(
            call.actor,
            scene_id,
            title,
            is_start,
            is_ending,
            entry_effects=entry_effects,
            expected_revision=expected_revision,
        )
    return await revised(call, RevisedScene, "scene", scene, written)


@tools.tool(
    "edit",
    "Move a scene",
    "Move a scene to `position` (0-based) in a chapter of the same project: the same "
    "chapter to reorder, another one to move it there. Returns the scene as it is now.",
    UPDATES,
    target=("scene", "scene_id"),
    also=(("chapter", "chapter_id"),),
    action=lambda args: f"Move scene {args['scene_id']} to chapter {args['chapter_id']}",
    result=RevisedScene,
)
async def romergo_move_scene(
    call: Call,
    scene_id: SceneId,
    chapter_id: Annotated[str, Field(description="The chapter to put it in (its own, to reorder).")],
    position: NewPosition,
    command_id: CommandId = None,
) -> RevisedScene:
    with collect_written() as written:
        scene = await call.services.scenes.move_scene(call.actor, scene_id, chapter_id, position)
    return await revised(call, RevisedScene, "scene", scene, written)


@tools.tool(
    "delete",
    "Delete a scene",
    "Delete a scene with its dialogue and choices. Choices elsewhere that led to it are left "
    "without a target (romergo_check_story reports them as dangling_target): point them "
    "somewhere else with romergo_set_choices. The history keeps what was deleted.",
    REPLACES,
    target=("scene", "scene_id"),
    action=lambda args: f"Delete scene {args['scene_id']}",
    result=Deleted,
)
async def romergo_delete_scene(call: Call, scene_id: SceneId, command_id: CommandId = None) -> Deleted:
    await call.services.scenes.delete_scene(call.actor, scene_id)
    return Deleted(entity_type="scene", id=scene_id)


@tools.tool(
    "edit",
    "Duplicate a scene",
    "Copy a scene right after it in its chapter, with everything it owns: media, dialogue "
    "(same speakers and conditions), choices (same targets, conditions and effects) and entry "
    'effects. The copy is titled "<title> (copy)" and is never the start. Returns the copy.',
    ADDS,
    target=("scene", "scene_id"),
    action=lambda args: f"Duplicate scene {args['scene_id']}",
    result=RevisedScene,
)
async def romergo_duplicate_scene(
    call: Call, scene_id: SceneId, command_id: CommandId = None
) -> RevisedScene:
    with collect_written() as written:
        scene = await call.services.copies.duplicate_scene(call.actor, scene_id)
    return await revised(call, RevisedScene, "scene", scene, written)
