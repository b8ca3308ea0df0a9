"""Character tools: who may speak a line. Names are unique within a project."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from mcp_tools.declare import Call, Toolbox
from mcp_tools.tools.common import (
    ADDS,
    REPLACES,
    UPDATES,
    CharacterId,
    CommandId,
    Deleted,
    ExpectedRevision,
    ProjectId,
    RevisedCharacter,
    revised,
)
from romergo.story.revisions import collect_written

COLOR = 'A colour like "#3a7bd5" (a # and six hex digits)'

tools = Toolbox()


@tools.tool(
    "edit",
    "Add a character",
    "Add a character who can speak dialogue lines. The name must be unique in the project "
    "(ignoring case; a clash is a conflict error). Without a colour one is picked. Returns "
    "the character with its id, for romergo_add_dialogue_line.",
    ADDS,
    target=("project", "project_id"),
    action=lambda args: f"Add a character to project {args['project_id']}",
    result=RevisedCharacter,
)
async def romergo_add_character(
    call: Call,
    project_id: ProjectId,
    name: Annotated[str, Field(description="The character's name: one line, at most 200 characters.")],
    color: Annotated[str | None, Field(description=f"{COLOR}; null picks one.")] = None,
    command_id: CommandId = None,
) -> RevisedCharacter:
    with collect_written() as written:
        character = await call.services.characters.add_character(call.actor, project_id, name, color)
    return await revised(call, RevisedCharacter, "character", character, written)


@tools.tool(
    "edit",
    "Rename or recolour a character",
    "Change a character's name or colour; null leaves a field unchanged. Their lines follow "
    "the change everywhere. Returns the character as it is now.",
    UPDATES,
    target=("character", "character_id"),
    action=lambda args: f"Change character {args['character_id']}",
    result=RevisedCharacter,
)
async def romergo_update_character(
    call: Call,
    character_id: CharacterId,
    name: Annotated[str | None, Field(description="New name; null leaves it unchanged.")] = None,
    color: Annotated[str | None, Field(description=f"{COLOR}; null leaves it unchanged.")] = None,
    expected_revision: ExpectedRevision = None,
    command_id: CommandId = None,
) -> RevisedCharacter:
    with collect_written() as written:
        character = await call.services.characters.update_character(
            call.actor, character_id, name, color, expected_revision=expected_revision
        )
    return await revised(call, RevisedCharacter, "character", character, written)


@tools.tool(
    "delete",
    "Delete a character",
    "Delete a character who speaks no line any more. While any line is theirs the call is "
    "refused with a conflict error naming the scenes: give those lines to another speaker "
    '(romergo_update_dialogue_line, character_id) or make them narration (character_id = "") '
    "first. The history keeps what was deleted.",
    REPLACES,
    target=("character", "character_id"),
    action=lambda args: f"Delete character {args['character_id']}",
    result=Deleted,
)
async def romergo_delete_character(
    call: Call, character_id: CharacterId, command_id: CommandId = None
) -> Deleted:
    await call.services.characters.delete_character(call.actor, character_id)
    return Deleted(entity_type="character", id=character_id)
