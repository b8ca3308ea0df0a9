"""Dialogue tools: add, change, move and delete the lines of a scene."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from mcp_tools.declare import Call, Toolbox
from mcp_tools.tools.common import (
    ADDS,
    REPLACES,
    UPDATES,
    CommandId,
    Deleted,
    ExpectedRevision,
    LineId,
    NewPosition,
    Position,
    RevisedLine,
    SceneId,
    revised,
)
from romergo.story import UNCHANGED
from romergo.story.revisions import collect_written

Text = Annotated[str, Field(description="What is said (or narrated): at most 2000 characters.")]
Condition = Annotated[
    str | None,
    Field(
        description='Show the line only when this holds, as in "has_key and courage >= 2" '
        '(names from romergo_list_variables); "" clears it; null leaves it.'
    ),
]

tools = Toolbox()


@tools.tool(
    "edit",
    "Add a dialogue line",
    "Add a line of dialogue to a scene, spoken by a character of the project (character_id "
    "from romergo_get_project_outline; add one with romergo_add_character) or, with "
    "character_id null, narration. Goes at `position` (0-based) or at the end. A condition "
    "shows the line only when it holds. Returns the new line with its id.",
    ADDS,
    target=("scene", "scene_id"),
    action=lambda args: f"Add a dialogue line to scene {args['scene_id']}",
    result=RevisedLine,
)
async def romergo_add_dialogue_line(
    call: Call,
    scene_id: SceneId,
    text: Text,
    character_id: Annotated[
        str | None, Field(description='Who speaks it; null (or "") for narration.')
    ] = None,
    position: Position = None,
    condition: Condition = None,
    command_id: CommandId = None,
) -> RevisedLine:
    with collect_written() as written:
        line = await call.services.lines.add_line(
            call.actor, scene_id, text, character_id or None, position, condition=condition
        )
    return await revised(call, RevisedLine, "dialogue_line", line, written)


@tools.tool(
    "edit",
    "Change a dialogue line",
    'Change a line\'s text, its speaker or its condition. null leaves a field unchanged. character_id = "" '
    "(empty text) turns the line into narration; a character's id makes that character "
    "speak it. Returns the line as it is now.",
    UPDATES,
    target=("dialogue_line", "line_id"),
    action=lambda args: f"Change dialogue line {args['line_id']}",
    result=RevisedLine,
)
async def romergo_update_dialogue_line(
    call: Call,
    line_id: LineId,
    text: Annotated[str | None, Field(description="New text; null leaves it unchanged.")] = None,
    character_id: Annotated[
        str | None,
        Field(description='New speaker; "" makes the line narration; null leaves the speaker.'),
    ] = None,
    condition: Condition = None,
    expected_revision: ExpectedRevision = None,
    command_id: CommandId = None,
) -> RevisedLine:
    speaker = UNCHANGED if character_id is None else (character_id or None)
    with collect_written() as written:
        line = await call.services.lines.update_line(
            call.actor, line_id, text, speaker, condition=condition, expected_revision=expected_revision
        )
    return await revised(call, RevisedLine, "dialogue_line", line, written)


@tools.tool(
    "edit",
    "Move a dialogue line",
    "Move a line to `position` (0-based) within its scene. Returns the line as it is now.",
    UPDATES,
    target=("dialogue_line", "line_id"),
    action=lambda args: f"Move dialogue line {args['line_id']} to position {args['position']}",
    result=RevisedLine,
)
async def romergo_move_dialogue_line(
    call: Call, line_id: LineId, position: NewPosition, command_id: CommandId = None
) -> RevisedLine:
    with collect_written() as written:
        line = await call.services.lines.move_line(call.actor, line_id, position)
    return await revised(call, RevisedLine, "dialogue_line", line, written)


@tools.tool(
    "edit",
    "Delete a dialogue line",
    "Delete one line of dialogue from its scene. The history keeps what was deleted.",
    REPLACES,
    target=("dialogue_line", "line_id"),
    action=lambda args: f"Delete dialogue line {args['line_id']}",
    result=Deleted,
)
async def romergo_delete_dialogue_line(call: Call, line_id: LineId, command_id: CommandId = None) -> Deleted:
    await call.services.lines.delete_line(call.actor, line_id)
    return Deleted(entity_type="dialogue_line", id=line_id)
