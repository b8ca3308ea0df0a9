"""Dialogue tools: add, change, move and delete the lines of a scene."""

from __future__ import annotations

from typing import Annotated, Any

from mcp.server.mcpserver import Context, MCPServer
from mcp.types import CallToolResult
from pydantic import Field

from mcp_tools.envelope import Envelope, envelope
from mcp_tools.tooling import ToolSpec, add_tool, run_tool
from mcp_tools.tools.common import (
    ADDS,
    REPLACES,
    UPDATES,
    CommandId,
    Deleted,
    LineEntity,
    LineId,
    NewPosition,
    Position,
    SceneId,
    line_entity,
)
from romergo.actors import Actor
from romergo.services import Services
from romergo.story import UNCHANGED

Text = Annotated[str, Field(description="What is said (or narrated): at most 2000 characters.")]

ADD_LINE = ToolSpec(
    name="romergo_add_dialogue_line",
    category="edit",
    title="Add a dialogue line",
    description=(
        "Add a line of dialogue to a scene, spoken by a character of the project (character_id "
        "from romergo_get_project_outline; add one with romergo_add_character) or, with "
        "character_id null, narration. Goes at `position` (0-based) or at the end. Returns the "
        "new line with its id."
    ),
    annotations=ADDS,
    target=("scene", "scene_id"),
    action=lambda args: f"Add a dialogue line to scene {args['scene_id']}",
)
UPDATE_LINE = ToolSpec(
    name="romergo_update_dialogue_line",
    category="edit",
    title="Change a dialogue line",
    description=(
        'Change a line\'s text or its speaker. null leaves a field unchanged. character_id = "" '
        "(empty text) turns the line into narration; a character's id makes that character "
        "speak it. Returns the line as it is now."
    ),
    annotations=UPDATES,
    target=("dialogue_line", "line_id"),
    action=lambda args: f"Change dialogue line {args['line_id']}",
)
MOVE_LINE = ToolSpec(
    name="romergo_move_dialogue_line",
    category="edit",
    title="Move a dialogue line",
    description="Move a line to `position` (0-based) within its scene. Returns the line as it is now.",
    annotations=UPDATES,
    target=("dialogue_line", "line_id"),
    action=lambda args: f"Move dialogue line {args['line_id']} to position {args['position']}",
)
DELETE_LINE = ToolSpec(
    name="romergo_delete_dialogue_line",
    category="edit",
    title="Delete a dialogue line",
    description="Delete one line of dialogue from its scene. The history keeps what was deleted.",
    annotations=REPLACES,
    target=("dialogue_line", "line_id"),
    action=lambda args: f"Delete dialogue line {args['line_id']}",
)


def register(server: MCPServer[Any], services: Services) -> None:

    async def romergo_add_dialogue_line(
        scene_id: SceneId,
        text: Text,
        ctx: Context[Any, Any],
        character_id: Annotated[
            str | None, Field(description='Who speaks it; null (or "") for narration.')
        ] = None,
        position: Position = None,
        command_id: CommandId = None,
    ) -> Annotated[CallToolResult, Envelope[LineEntity]]:
        arguments = {
            "scene_id": scene_id,
            "text": text,
            "character_id": character_id,
            "position": position,
            "command_id": command_id,
        }

        async def body(actor: Actor) -> CallToolResult:
            line = await services.lines.add_line(actor, scene_id, text, character_id or None, position)
            return envelope(line_entity(line))

        return await run_tool(services, ADD_LINE, arguments, body, ctx)

    async def romergo_update_dialogue_line(
        line_id: LineId,
        ctx: Context[Any, Any],
        text: Annotated[str | None, Field(description="New text; null leaves it unchanged.")] = None,
        character_id: Annotated[
            str | None,
            Field(description='New speaker; "" makes the line narration; null leaves the speaker.'),
        ] = None,
        command_id: CommandId = None,
    ) -> Annotated[CallToolResult, Envelope[LineEntity]]:
        arguments = {"line_id": line_id, "text": text, "character_id": character_id, "command_id": command_id}
        speaker = UNCHANGED if character_id is None else (character_id or None)

        async def body(actor: Actor) -> CallToolResult:
            return envelope(line_entity(await services.lines.update_line(actor, line_id, text, speaker)))

        return await run_tool(services, UPDATE_LINE, arguments, body, ctx)

    async def romergo_move_dialogue_line(
        line_id: LineId, position: NewPosition, ctx: Context[Any, Any], command_id: CommandId = None
    ) -> Annotated[CallToolResult, Envelope[LineEntity]]:
        arguments = {"line_id": line_id, "position": position, "command_id": command_id}

        async def body(actor: Actor) -> CallToolResult:
            return envelope(line_entity(await services.lines.move_line(actor, line_id, position)))

        return await run_tool(services, MOVE_LINE, arguments, body, ctx)

    async def romergo_delete_dialogue_line(
        line_id: LineId, ctx: Context[Any, Any], command_id: CommandId = None
    ) -> Annotated[CallToolResult, Envelope[Deleted]]:
        async def body(actor: Actor) -> CallToolResult:
            await services.lines.delete_line(actor, line_id)
            return envelope(Deleted(entity_type="dialogue_line", id=line_id))

        return await run_tool(
            services, DELETE_LINE, {"line_id": line_id, "command_id": command_id}, body, ctx
        )

    add_tool(server, ADD_LINE, romergo_add_dialogue_line)
    add_tool(server, UPDATE_LINE, romergo_update_dialogue_line)
    add_tool(server, MOVE_LINE, romergo_move_dialogue_line)
    add_tool(server, DELETE_LINE, romergo_delete_dialogue_line)
