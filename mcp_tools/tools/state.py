"""Story state for the agent: the project's variables, and a simulated
play-through that says where a path goes, what the state is after each scene and where it gets
stuck: evidence for "why does this scene not work as expected?"."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Annotated

from mcp.types import CallToolResult
from pydantic import BaseModel, Field

from mcp_tools.declare import Call, Toolbox
from mcp_tools.envelope import Envelope
from mcp_tools.paging import paged_aside
from mcp_tools.tools.common import READ_ONLY, Page, PageSize, ProjectId, Revision, RoomListing, room_note
from romergo.story.state.playthrough import MAX_STEPS

Value = bool | int | float | str


class VariableItem(BaseModel):
    id: str
    name: str
    type: str
    initial: Value
    description: str
    revision: Revision


class VariableList(RoomListing):
    variables: list[VariableItem]


class OfferedChoice(BaseModel):
    label: str
    target_scene_id: str | None
    shown: bool
    condition: str | None


class PlayStep(BaseModel):
    scene_id: str
    title: str
    state: dict[str, Value]
    lines_shown: int
    lines_hidden: int
    choices: list[OfferedChoice]
    picked: str | None


class Simulation(BaseModel):
    steps: list[PlayStep]
    outcome: str
    message: str


tools = Toolbox()


@tools.tool(
    "read",
    "List story variables",
    "The project's variables (what the story remembers): name, type (flag, number or text), "
    "the value a play-through starts with, and a description. Conditions and effects use the "
    "names: has_key and courage >= 2; set courage = courage + 1. A long list is cut with "
    "truncated: true; call again with page = next_page for the rest.",
    READ_ONLY,
    target=("project", "project_id"),
)
async def romergo_list_variables(
    call: Call, project_id: ProjectId, page: Page = None, page_size: PageSize = None
) -> Annotated[CallToolResult, Envelope[VariableList]]:
    # The revisions first: a change in between makes them older than what is shown (a needless
    # merge at worst), never newer (which would hide that change from the merge).
    revisions = await call.services.reads.revisions(call.actor, project_id, ("variable",))
    rows = await call.services.variables.list_variables(call.actor, project_id)
    items = [
        VariableItem(
            id=v.id,
            name=v.name,
            type=v.type,
            initial=v.initial,
            description=v.description,
            revision=revisions.get(v.id, 0),
        )
        for v in rows
    ]

    def build(part: Sequence[VariableItem]) -> VariableList:
        return VariableList(variables=list(part), room=room_note(call.actor))

    keys = [item.id for item in items]
    return await paged_aside(f"list_variables:{project_id}", items, keys, build, page, page_size)


@tools.tool(
    "read",
    "Simulate a play-through",
    "Play the story as a player would, with its variables: from the start scene (or "
    "start_scene) and the initial values (state overrides some), entering each scene (its "
    "effects apply), showing the lines and choices whose conditions hold, and taking the given "
    "choices in order (a label, or a choice's number among those shown); without choices it "
    "takes the first shown one each time. Returns every step (the scene, the state after "
    "entering it, how many lines showed or were hidden, each choice with its condition and "
    "whether it showed, the "
    f"choice taken) and the outcome: ending, stuck (every choice hidden, or a dead end), hidden "
    f"(a given choice is hidden there), unknown choice, nowhere (a choice to no scene), out of "
    f"choices, loop (same scene and state again) or too long (after {MAX_STEPS} scenes). Use it "
    "to explain why a scene or choice does not appear. Not in a room limited to some chapters. "
    "A long play-through is cut with truncated: true (outcome and message on every page); call "
    "again with the same arguments and page = next_page for the rest.",
    READ_ONLY,
    target=("project", "project_id"),
    whole_project=True,
)
async def romergo_simulate_playthrough(
    call: Call,
    project_id: ProjectId,
    choices: Annotated[
        list[str] | None,
        Field(description="Choices to take in order: labels or 1-based numbers.", max_length=500),
    ] = None,
    start_scene: Annotated[
        str | None, Field(description="A scene id to start from; null: the start.")
    ] = None,
    state: Annotated[
        dict[str, Value] | None, Field(description="Values to start with instead of the initial ones.")
    ] = None,
    page: Page = None,
    page_size: PageSize = None,
) -> Annotated[CallToolResult, Envelope[Simulation]]:
    played = await call.services.reads.simulate(call.actor, project_id, choices, start_scene, state)
    steps = [
        PlayStep(
            scene_id=step.scene_id,
            title=step.title,
            state=step.state,
            lines_shown=step.lines_shown,
            lines_hidden=step.lines_hidden,
            choices=[
                OfferedChoice(
                    label=c.label, target_scene_id=c.target_scene_id, shown=c.shown, condition=c.condition
                )
                for c in step.choices
            ],
            picked=step.picked,
        )
        for step in played.steps
    ]

    def build(part: Sequence[PlayStep]) -> Simulation:
        return Simulation(steps=list(part), outcome=played.outcome, message=played.message)

    # The play-through follows from all the arguments, so a page of it belongs to them all.
    asked = json.dumps([project_id, choices, start_scene, state], sort_keys=True)
    keys = [f"{n}:{step.scene_id}" for n, step in enumerate(steps)]
    return await paged_aside(f"simulate_playthrough:{asked}", steps, keys, build, page, page_size)
