"""Choice tools: `romergo_set_choices` replaces what a player may choose at the end of a scene."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, Field

from mcp_tools.declare import Call, Toolbox
from mcp_tools.tools.common import (
    REPLACES,
    ChoiceEntity,
    CommandId,
    ExpectedRevision,
    Replacing,
    Revision,
    SceneId,
    replaced_newer_change,
)
from romergo.story import ChoiceSpec
from romergo.story.revisions import collect_written
from romergo.story.scenes import MAX_CHOICES


class ChoiceInput(BaseModel):
    id: str | None = Field(
        default=None,
        description="The id of one of the scene's choices, to change that choice and keep its id; "
        "omit it (or null) for a new choice.",
    )
    label: str = Field(description="What the player reads on the button: one line, at most 200 characters.")
    target_scene_id: str | None = Field(
        description="The scene this choice leads to (any scene of the same project); null for none yet."
    )
    condition: str | None = Field(
        default=None,
        description='Offer the choice only when this holds, as in "has_key and courage >= 2"; null: always.',
    )
    effects: str | None = Field(
        default=None,
        description='Set variables when picked, as in "set courage = courage + 1; set has_key = true".',
    )


class SceneChoices(Replacing):
    entity_type: Literal["scene"] = "scene"
    id: str
    choices: list[ChoiceEntity]
    revision: Revision


tools = Toolbox()


@tools.tool(
    "edit",
    "Set a scene's choices",
    "Replace all choices of a scene with this list, in this order (at most "
    f"{MAX_CHOICES}). Choices not in the list are removed, so restate the ones to keep; an "
    "empty list removes them all (then mark the scene as an ending with romergo_update_scene, "
    "or the story check reports a dead end). A choice may carry a condition (offered only when "
    "it holds) and effects (variables set when it is picked), written with the names from "
    "romergo_list_variables. Give a kept choice its id (from romergo_get_scene): with "
    "expected_revision, the list is then merged choice by choice with changes made since. "
    "Returns the scene's choices with their ids.",
    REPLACES,
    target=("scene", "scene_id"),
    action=lambda args: f"Replace the choices of scene {args['scene_id']} ({len(args['choices'])} choices)",
    result=SceneChoices,
)
async def romergo_set_choices(
    call: Call,
    scene_id: SceneId,
    choices: Annotated[list[ChoiceInput], Field(max_length=MAX_CHOICES)],
    expected_revision: ExpectedRevision = None,
    command_id: CommandId = None,
) -> SceneChoices:
    specs = [ChoiceSpec(c.label, c.target_scene_id, c.condition, c.effects, c.id) for c in choices]
    with collect_written() as written:
        rows = await call.services.scenes.set_choices(
            call.actor, scene_id, specs, expected_revision=expected_revision
        )
    number = written.get(("scene", scene_id))
    if number is None:
        project_id = await call.services.reads.project_of(call.actor, "scene", scene_id)
        number = (await call.services.reads.revisions(call.actor, project_id, ("scene",))).get(scene_id, 0)
    return SceneChoices(
        id=scene_id,
        choices=[ChoiceEntity.model_validate(row) for row in rows],
        revision=number,
        replaced_newer_change=replaced_newer_change("scene", scene_id),
    )
