"""Character tools: who may speak a line. Names are unique within a project."""

from __future__ import annotations

from typing import Annotated, Any

from mcp.server.mcpserver import Context, MCPServer
from mcp.types import CallToolResult
from pydantic import Field

from mcp_tools.envelope import Envelope, envelope
from mcp_tools.tooling import ToolSpec, add_tool, run_tool
from mcp_tools.tools.common import (
    ADDS,
    UPDATES,
    CharacterEntity,
    CharacterId,
    CommandId,
    ProjectId,
    character_entity,
)
from romergo.actors import Actor
from romergo.services import Services

COLOR = 'A colour like "#3a7bd5" (a # and six hex digits)'

ADD_CHARACTER = ToolSpec(
    name="romergo_add_character",
    category="edit",
    title="Add a character",
    description=(
        "Add a character who can speak dialogue lines. The name must be unique in the project "
        "(ignoring case; a clash is a conflict error). Without a colour one is picked. Returns "
        "the character with its id, for romergo_add_dialogue_line."
    ),
    annotations=ADDS,
    target=("project", "project_id"),
    action=lambda args: f"Add a character to project {args['project_id']}",
)
UPDATE_CHARACTER = ToolSpec(
    name="romergo_update_character",
    category="edit",
    title="Rename or recolour a character",
    description=(
        "Change a character's name or colour; null leaves a field unchanged. Their lines follow "
        "the change everywhere. Returns the character as it is now."
    ),
    annotations=UPDATES,
    target=("character", "character_id"),
    action=lambda args: f"Change character {args['character_id']}",
)


def register(server: MCPServer[Any], services: Services) -> None:
    async def romergo_add_character(
        project_id: ProjectId,
        name: Annotated[str, Field(description="The character's name: one line, at most 200 characters.")],
        ctx: Context[Any, Any],
        color: Annotated[str | None, Field(description=f"{COLOR}; null picks one.")] = None,
        command_id: CommandId = None,
    ) -> Annotated[CallToolResult, Envelope[CharacterEntity]]:
        arguments = {"project_id": project_id, "name": name, "color": color, "command_id": command_id}

        async def body(actor: Actor) -> CallToolResult:
            character = await services.characters.add_character(actor, project_id, name, color)
            return envelope(character_entity(character))

        return await run_tool(services, ADD_CHARACTER, arguments, body, ctx)

    async def romergo_update_character(
        character_id: CharacterId,
        ctx: Context[Any, Any],
        name: Annotated[str | None, Field(description="New name; null leaves it unchanged.")] = None,
        color: Annotated[str | None, Field(description=f"{COLOR}; null leaves it unchanged.")] = None,
        command_id: CommandId = None,
    ) -> Annotated[CallToolResult, Envelope[CharacterEntity]]:
        arguments = {"character_id": character_id, "name": name, "color": color, "command_id": command_id}

        async def body(actor: Actor) -> CallToolResult:
            character = await services.characters.update_character(actor, character_id, name, color)
            return envelope(character_entity(character))

        return await run_tool(services, UPDATE_CHARACTER, arguments, body, ctx)

    add_tool(server, ADD_CHARACTER, romergo_add_character)
    add_tool(server, UPDATE_CHARACTER, romergo_update_character)
