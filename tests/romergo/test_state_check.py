"""The story check understands state: conditions that never hold, variables read but
never set or never declared, choice sets that strand the player, scenes only such conditions lead
to, and the exploration's cut-off when the variables take too many values."""

from __future__ import annotations

from dataclasses import replace

from romergo.story import ChoiceSpec
from romergo.story.check import check_story
from romergo.story.state.check import MAX_STATES, explore
from romergo.story.state.playthrough import StateRules

DATABASES = ("sqlite",)
"""The database side is the story ledger's contract, run on both (tests/storage/ledgers/test_story_*.py)."""


async def rooms(services, actor, *titles):
    project = await services.projects.create_project(actor, "State")
    chapter = await services.chapters.add_chapter(actor, project.id, "One")
    scenes = [await services.scenes.add_scene(actor, chapter.id, title) for title in titles]
    for scene in scenes:
        await services.lines.add_line(actor, scene.id, f"In the {scene.title.lower()}.")
    await services.scenes.update_scene(actor, scenes[-1].id, is_ending=True)
    return project.id, {scene.title: scene.id for scene in scenes}


async def state_codes(services, actor, project_id):
    problems = await services.reads.check_story(actor, project_id)
    state = {
        "never_true_condition",
        "unset_variable",
        "unused_variable",
        "undeclared_variable",
        "invalid_expression",
        "stuck_choices",
        "blocked_scene",
        "state_check_cut_off",
    }
    return [(p.code, p.severity, p.message) for p in problems if p.code in state]


async def test_a_condition_nothing_can_make_true_and_the_scene_behind_it(services, actor):
    project_id, scenes = await rooms(services, actor, "Hall", "Vault", "Street")
    await services.variables.add_variable(actor, project_id, "vault_open", "flag")
    hall, vault, street = scenes["Hall"], scenes["Vault"], scenes["Street"]
    await services.scenes.set_choices(
        actor, hall, [ChoiceSpec("Enter the vault", vault, "vault_open"), ChoiceSpec("Leave", street)]
    )
    await services.lines.add_line(actor, hall, "The vault hums.", condition="vault_open")
    await services.scenes.set_choices(actor, vault, [ChoiceSpec("Out", street)])

    found = await state_codes(services, actor, project_id)

    assert [(code, severity) for code, severity, _ in found] == [
        ("unset_variable", "warning"),
        ("never_true_condition", "warning"),
        ("never_true_condition", "warning"),
        ("blocked_scene", "warning"),
    ]
    assert found[0][2] == '"vault_open" is read by conditions but no effect sets it: it is always false.'
    assert '"Enter the vault"' in found[1][2] and "(vault_open)" in found[1][2]
    assert "line 2" in found[2][2]
    assert 'Scene "Vault"' in found[3][2]

    # An effect on the way makes it possible: every one of those problems goes.
    await services.scenes.set_choices(
        actor,
        hall,
        [
            ChoiceSpec("Enter the vault", vault, "vault_open"),
            ChoiceSpec("Pull the lever", hall, "not vault_open", "set vault_open = true"),
            ChoiceSpec("Leave", street),
        ],
    )
    assert await state_codes(services, actor, project_id) == []


async def test_a_choice_set_whose_options_can_all_hide_at_once_strands_the_player(services, actor):
    project_id, scenes = await rooms(services, actor, "Hall", "Cellar", "Garden")
    await services.variables.add_variable(actor, project_id, "has_key", "flag")
    await services.variables.add_variable(actor, project_id, "visits", "number", 0)
    hall, cellar, garden = scenes["Hall"], scenes["Cellar"], scenes["Garden"]
    await services.scenes.update_scene(
        actor, cellar, entry_effects="set has_key = true; set visits = visits + 1"
    )
    await services.scenes.set_choices(
        actor,
        hall,
        [
            ChoiceSpec("Go down", cellar, "not has_key"),
            ChoiceSpec("Open the door", garden, "has_key and visits > 1"),
        ],
    )
    await services.scenes.set_choices(actor, cellar, [ChoiceSpec("Back up", hall)])

    found = await state_codes(services, actor, project_id)

    # Back from the cellar once, both choices are hidden: the key is found and visits is 1. And
    # since visits never passes 1, the door never opens and the garden behind it is never reached.
    assert [(code, severity) for code, severity, _ in found] == [
        ("stuck_choices", "error"),
        ("never_true_condition", "warning"),
        ("blocked_scene", "warning"),
    ]
    assert 'In scene "Hall"' in found[0][2] and "(with has_key = true, visits = 1)" in found[0][2]
    assert '"Open the door"' in found[1][2] and 'Scene "Garden"' in found[2][2]

    # Going down again (once more, while visits is below 2) unsticks it, and the door opens.
    await services.scenes.set_choices(
        actor,
        hall,
        [
            ChoiceSpec("Go down", cellar, "visits < 2"),
            ChoiceSpec("Open the door", garden, "has_key and visits > 1"),
        ],
    )
    assert await state_codes(services, actor, project_id) == []


async def test_names_the_story_does_not_declare_and_variables_nothing_uses(services, actor):
    project_id, scenes = await rooms(services, actor, "Hall", "Garden")
    await services.variables.add_variable(actor, project_id, "courage", "number")
    await services.variables.add_variable(actor, project_id, "spare", "text")
    await services.scenes.set_choices(
        actor, scenes["Hall"], [ChoiceSpec("On", scenes["Garden"], "courage >= 0")]
    )
    data = await services.reads.project_data(actor, project_id)
    # Rows written before a rule existed (an old import, a hand-edited database): the check must
    # still read them, and say what is wrong.
    [choice] = data.choices
    broken = replace(
        data,
        choices=[replace(choice, condition="courage >= 0 and ghost", effects="set courage = true")],
    )

    problems = [(p.code, p.severity, p.message) for p in check_story(broken)]

    assert ("undeclared_variable", "error") in [(c, s) for c, s, _ in problems]
    undeclared = next(m for c, _, m in problems if c == "undeclared_variable")
    assert '"ghost"' in undeclared and 'the choice "On" in scene "Hall"' in undeclared
    invalid = next(m for c, _, m in problems if c == "invalid_expression")
    assert "'courage' is a number; this sets it to a flag" in invalid
    assert ("unused_variable", "info", 'The variable "spare" is not used anywhere.') in problems
    assert "stuck_choices" in [c for c, _, _ in problems]  # a broken condition never holds


async def test_a_counter_without_bounds_stops_the_exploration_with_a_clear_note(services, actor):
    project_id, scenes = await rooms(services, actor, "Well", "Surface")
    await services.variables.add_variable(actor, project_id, "depth", "number", 0)
    well, surface = scenes["Well"], scenes["Surface"]
    await services.scenes.set_choices(
        actor,
        well,
        [
            ChoiceSpec("Climb down further", well, None, "set depth = depth + 1"),
            ChoiceSpec("Climb out", surface, "depth > 1000000"),
        ],
    )

    found = await state_codes(services, actor, project_id)

    # "Climb out" never shows within the limit, but the check cannot prove it never will: it says
    # it stopped instead of claiming so.
    assert [(code, severity) for code, severity, _ in found] == [("state_check_cut_off", "info")]
    assert f"{MAX_STATES:,}" in found[0][2]

    data = await services.reads.project_data(actor, project_id)
    small = explore(data, StateRules.of(data), well, limit=50)
    assert (small.complete, small.states) == (False, 50)
    bounded = await services.variables.add_variable(actor, project_id, "lit", "flag")
    assert bounded.name == "lit"


async def test_a_story_without_state_gets_no_state_problems_and_plays_nothing(services, actor):
    project_id, scenes = await rooms(services, actor, "Hall", "Garden")
    await services.scenes.set_choices(actor, scenes["Hall"], [ChoiceSpec("On", scenes["Garden"])])
    assert await state_codes(services, actor, project_id) == []
