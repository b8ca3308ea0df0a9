"""Variable tools: add, change and delete what the story remembers.

A variable belongs to the whole story (any chapter's conditions may read it, a rename rewrites
every use), so changing one needs a room over the whole project: in a room limited to some
chapters these tools are refused, as the other whole-project tools are.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field

from mcp_tools.declare import Call, Toolbox
from mcp_tools.tools.common import (
    ADDS,
    REPLACES,
    UPDATES,
    CommandId,
    Deleted,
    ExpectedRevision,
    ProjectId,
    RevisedVariable,
    revised,
)
from romergo.story.revisions import collect_written
from romergo.story.state.variables import UNSET

Value = bool | int | float | str
VariableId = Annotated[str, Field(description="The variable's id (from romergo_list_variables).")]
Name = Annotated[
    str,
    Field(
        description="Letters, digits and underscores, not starting with a digit, as in has_key or courage."
    ),
]

tools = Toolbox()


@tools.tool(
    "edit",
    "Add a story variable",
    "Add a variable the story remembers: a flag (true/false), a number or a text, with the value "
    'a play-through starts with (false, 0 or "" when null). Names are unique in the project '
    "ignoring case. Then use it in conditions and effects (romergo_set_choices, "
    "romergo_update_scene's entry_effects, a line's condition). Not in a room limited to some "
    "chapters. Returns the variable with its id.",
    ADDS,
    target=("project", "project_id"),
    action=lambda args: f"Add the story variable {args['name']!r} to project {args['project_id']}",
    result=RevisedVariable,
    whole_project=True,
)
async def romergo_add_variable(
    call: Call,
    project_id: ProjectId,
    name: Name,
    type: Annotated[Literal["flag", "number", "text"], Field(description="flag, number or text.")],
    initial: Annotated[
        Value | None, Field(description="The starting value, of the variable's type; null: the default.")
    ] = None,
    description: Annotated[str, Field(description="What it tracks, for the author (at most 500).")] = "",
    command_id: CommandId = None,
) -> RevisedVariable:
    with collect_written() as written:
        variable = await call.services.variables.add_variable(
            call.actor, project_id, name, type, initial, description
        )
    return await revised(call, RevisedVariable, "variable", variable, written)


@tools.tool(
    "edit",
    "Change a story variable",
    "Rename a variable, change its starting value or its description; null leaves a field "
    "unchanged. A new name is written into every condition and effect that uses it, in the same "
    "change. The type cannot change. Not in a room limited to some chapters. Returns the "
    "variable as it is now.",
    UPDATES,
    target=("variable", "variable_id"),
    action=lambda args: f"Change the story variable {args['variable_id']}",
    result=RevisedVariable,
    whole_project=True,
)
async def romergo_update_variable(
    call: Call,
    variable_id: VariableId,
    name: Annotated[str | None, Field(description="New name; null leaves it unchanged.")] = None,
    initial: Annotated[
        Value | None, Field(description="New starting value, of its type; null leaves it unchanged.")
    ] = None,
    description: Annotated[str | None, Field(description="New description; null leaves it.")] = None,
    expected_revision: ExpectedRevision = None,
    command_id: CommandId = None,
) -> RevisedVariable:
    start: Any = UNSET if initial is None else initial
    with collect_written() as written:
        variable = await call.services.variables.update_variable(
            call.actor, variable_id, name, start, description, expected_revision=expected_revision
        )
    return await revised(call, RevisedVariable, "variable", variable, written)


@tools.tool(
    "edit",
    "Delete a story variable",
    "Delete a variable that nothing uses any more; while a condition or effect uses it the call "
    "is refused (a conflict error naming where). The history keeps what was deleted. Not in a "
    "room limited to some chapters.",
    REPLACES,
    target=("variable", "variable_id"),
    action=lambda args: f"Delete the story variable {args['variable_id']}",
    result=Deleted,
    whole_project=True,
)
async def romergo_delete_variable(
    call: Call, variable_id: VariableId, command_id: CommandId = None
) -> Deleted:
    await call.services.variables.delete_variable(call.actor, variable_id)
    return Deleted(entity_type="variable", id=variable_id)
