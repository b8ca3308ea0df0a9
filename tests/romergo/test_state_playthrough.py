"""Playing with state: a key found in one scene opens a choice later; the path, the
state after each step, and where a path gets stuck, as the player and the agent's simulation see it."""

from __future__ import annotations

import pytest

from romergo.common.errors import RomergoError
from romergo.story import ChoiceSpec
from romergo.story.state.playthrough import StateRules, simulate

DATABASES = ("sqlite",)
"""The database side is the story ledger's contract, run on both (tests/storage/ledgers/test_story_*.py)."""


async def key_story(services, actor):
    """Hall → Cellar (sets has_key on entry) → Hall; Door opens only with the key; Garden is an ending."""
    project = await services.projects.create_project(actor, "Keys")
    chapter = await services.chapters.add_chapter(actor, project.id, "One")
    add = services.scenes.add_scene
    hall, cellar, door, garden = [
        await add(actor, chapter.id, t) for t in ("Hall", "Cellar", "Door", "Garden")
    ]
    await services.variables.add_variable(actor, project.id, "has_key", "flag")
    await services.variables.add_variable(actor, project.id, "visits", "number", 0)
    await services.scenes.update_scene(actor, cellar.id, entry_effects="set has_key = true")
    await services.scenes.update_scene(actor, garden.id, is_ending=True)
    await services.lines.add_line(actor, hall.id, "A dusty hall.")
    await services.lines.add_line(actor, hall.id, "The key glints in your hand.", condition="has_key")
    await services.scenes.set_choices(
        actor,
        hall.id,
        [
            ChoiceSpec("Go down", cellar.id, effects="set visits = visits + 1"),
            ChoiceSpec("Open the door", door.id, condition="has_key"),
        ],
    )
    await services.scenes.set_choices(actor, cellar.id, [ChoiceSpec("Back up", hall.id)])
    await services.scenes.set_choices(actor, door.id, [ChoiceSpec("Step out", garden.id)])
    return project.id, {s.title: s.id for s in (hall, cellar, door, garden)}


async def play(services, actor, project_id, **arguments):
    data = await services.reads.project_data(actor, project_id)
    rules = StateRules.of(data)
    return simulate(data, rules, **arguments)


async def test_the_key_found_in_the_cellar_opens_the_door(services, actor):
    project_id, _ = await key_story(services, actor)
    played = await play(services, actor, project_id, choices=["Go down", "Back up", "Open the door", "1"])
    assert [(s.title, s.picked) for s in played.steps] == [
        ("Hall", "Go down"),
        ("Cellar", "Back up"),
        ("Hall", "Open the door"),
        ("Door", "Step out"),
        ("Garden", None),
    ]
    assert played.outcome == "ending"
    assert [s.state for s in played.steps][:3] == [
        {"has_key": False, "visits": 0},
        {"has_key": True, "visits": 1},
        {"has_key": True, "visits": 1},
    ]
    first_hall, second_hall = played.steps[0], played.steps[2]
    assert [(c.label, c.shown) for c in first_hall.choices] == [("Go down", True), ("Open the door", False)]
    assert (first_hall.lines_shown, first_hall.lines_hidden) == (1, 1)
    assert (second_hall.lines_shown, second_hall.lines_hidden) == (2, 0)


async def test_where_a_path_gets_stuck_and_why(services, actor):
    project_id, scenes = await key_story(services, actor)
    hidden = await play(services, actor, project_id, choices=["Open the door"])
    assert (hidden.outcome, hidden.message) == (
        "hidden",
        'In "Hall" the choice "Open the door" is hidden: its condition does not hold.',
    )
    unknown = await play(services, actor, project_id, choices=["Dance"])
    assert unknown.outcome == "unknown choice"
    first_only = await play(services, actor, project_id)  # always the first shown choice
    # "Go down" counts visits, so no state comes back: the walk is cut off, not called a loop.
    assert first_only.outcome == "too long" and len(first_only.steps) == 201
    assert [step.title for step in first_only.steps[:4]] == ["Hall", "Cellar", "Hall", "Cellar"]
    assert first_only.steps[-1].state["visits"] == 100
    with_key = await play(
        services, actor, project_id, start_scene=scenes["Hall"], state={"has_key": True}, choices=["2", "1"]
    )
    assert with_key.outcome == "ending"

    hall = [ChoiceSpec("Go down", scenes["Cellar"]), ChoiceSpec("Open the door", scenes["Door"], "has_key")]
    await services.scenes.set_choices(actor, scenes["Hall"], hall)
    looping = await play(services, actor, project_id)
    assert looping.outcome == "loop"
    assert [step.title for step in looping.steps] == ["Hall", "Cellar", "Hall", "Cellar"]

    late = [ChoiceSpec("Step out", scenes["Garden"], "visits > 3")]
    await services.scenes.set_choices(actor, scenes["Door"], late)
    stuck = await play(services, actor, project_id, state={"has_key": True}, choices=["Open the door"])
    assert stuck.outcome == "stuck" and "Every choice here is hidden" in stuck.message


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"state": {"gold": 1}}, "no variable called 'gold'"),
        ({"state": {"has_key": 1}}, "'has_key' is a flag"),
        ({"start_scene": "scn_nope"}, "no such start scene"),
    ],
)
async def test_bad_simulation_arguments_are_refused(services, actor, arguments, message):
    project_id, _ = await key_story(services, actor)
    with pytest.raises(RomergoError, match=message):
        await play(services, actor, project_id, **arguments)
