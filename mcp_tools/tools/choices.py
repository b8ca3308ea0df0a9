"""Choice tools: `romergo_set_choices` replaces what a player may choose at the end of a scene."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from mcp.server.mcpserver import Context, MCPServer
from mcp.types import CallToolResult
from pydantic import BaseModel, Field

from mcp_tools.envelope import Envelope, envelope
from mcp_tools.tooling import ToolSpec, add_tool, run_tool
from mcp_tools.tools.common import REPLACES, ChoiceEntity, CommandId, SceneId, choice_entity
from romergo.actors import Actor
from romergo.services import Services
from romergo.story import ChoiceSpec
from romergo.story.scenes import MAX_CHOICES


class ChoiceInput(BaseModel):
    label: str = Field(description="What the player reads on the button: one line, at most 200 characters.")
    target_scene_id: str | None = Field(
        description="The scene this choice leads to (any scene of the same project); null for none yet."
    )


class SceneChoices(BaseModel):
    entity_type: Literal["scene"] = "scene"
    id: str
    choices: list[ChoiceEntity]


SET_CHOICES = ToolSpec(
    name="romergo_set_choices",
    category="edit",
    title="Set a scene's choices",
    description=(
        "Replace all choices of a scene with this list, in this order (at most "
        f"{MAX_CHOICES}). Choices not in the list are removed, so restate the ones to keep; an "
        "empty list removes them all (then mark the scene as an ending with romergo_update_scene, "
        "or the story check reports a dead end). Returns the scene's choices with their new ids."
    ),
    annotations=REPLACES,
    target=("scene", "scene_id"),
    action=lambda args: f"Replace the choices of scene {args['scene_id']} ({len(args['choices'])} choices)",
)


def register(server: MCPServer[Any], services: Services) -> None:
    async def romergo_set_choices(
        scene_id: SceneId,
        choices: Annotated[list[ChoiceInput], Field(max_length=MAX_CHOICES)],
        ctx: Context[Any, Any],
        command_id: CommandId = None,
    ) -> Annotated[CallToolResult, Envelope[SceneChoices]]:
        arguments = {
            "scene_id": scene_id,
            "choices": [choice.model_dump(mode="json") for choice in choices],
            "command_id": command_id,
        }

        async def body(actor: Actor) -> CallToolResult:
            specs = [ChoiceSpec(choice.label, choice.target_scene_id) for choice in choices]
            rows = await services.scenes.set_choices(actor, scene_id, specs)
            return envelope(SceneChoices(id=scene_id, choices=[choice_entity(row) for row in rows]))

        return await run_tool(services, SET_CHOICES, arguments, body, ctx)

    add_tool(server, SET_CHOICES, romergo_set_choices)
