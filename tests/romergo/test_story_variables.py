"""A story's variables and where they are used: declared with a type and an initial value,
checked in every condition and effect when saved, renamed everywhere at once (one undo), and never
deleted while something uses them."""

from __future__ import annotations

import pytest

from romergo.common.errors import RomergoError
from romergo.story import ChoiceSpec
from tests.support.story import database_state, revisions, small_story

DATABASES = ("sqlite",)
"""The database side is the story ledger's contract, run on both (tests/storage/ledgers/test_story_*.py)."""


async def story_with_state(services, actor):
    story = await small_story(services, actor)
    add = services.variables.add_variable
    key = await add(actor, story.project_id, "has_key", "flag", description="Found in the cellar")
    courage = await add(actor, story.project_id, "courage", "number", 1)
    return story, key, courage


async def test_variables_have_a_type_and_an_initial_value(services, actor):
    story, key, _ = await story_with_state(services, actor)
    name = await services.variables.add_variable(actor, story.project_id, "hero_name", "text", "Mara")
    listed = await services.variables.list_variables(actor, story.project_id)
    assert [(v.name, v.type, v.initial) for v in listed] == [
        ("courage", "number", 1),
        ("has_key", "flag", False),
        ("hero_name", "text", "Mara"),
    ]
    assert key.description == "Found in the cellar" and name.id.startswith("var_")


@pytest.mark.parametrize(
    ("name", "kind", "initial", "message"),
    [
        ("2fast", "flag", None, "letters, digits and underscores"),
        ("has key", "flag", None, "letters, digits and underscores"),
        ("and", "flag", None, "a word of the expression language"),
        ("HAS_KEY", "flag", None, 'a variable called "has_key" already'),
        ("gold", "colour", None, "a flag, a number or a text"),
        ("gold", "number", "ten", "must be a number"),
        ("gold", "number", True, "must be a number"),
        ("gold", "flag", 1, "must be true or false"),
        ("gold", "number", float("inf"), "finite"),
        ("gold", "text", "x" * 201, "limited to 200"),
    ],
)
async def test_bad_variables_are_refused_and_change_nothing(services, actor, name, kind, initial, message):
    story, _, _ = await story_with_state(services, actor)
    before = await database_state(services)
    with pytest.raises(RomergoError) as refused:
        await services.variables.add_variable(actor, story.project_id, name, kind, initial)
    assert message in refused.value.message
    assert await database_state(services) == before


async def test_conditions_and_effects_are_checked_when_saved(services, actor):
    story, _, _ = await story_with_state(services, actor)
    condition, effects = "has_key and courage >= 2", "set courage = courage + 1"
    spec = ChoiceSpec("Open the door", story.second_scene_id, condition, effects)
    (choice,) = await services.scenes.set_choices(actor, story.first_scene_id, [spec])
    assert (choice.condition, choice.effects) == (condition, effects)
    line = await services.lines.add_line(actor, story.second_scene_id, "You made it.", condition="has_key")
    scene = await services.scenes.update_scene(
        actor, story.second_scene_id, entry_effects="set has_key = false"
    )
    assert (line.condition, scene.entry_effects) == ("has_key", "set has_key = false")

    before = await database_state(services)
    for change, message in (
        (
            lambda: services.scenes.set_choices(
                actor, story.first_scene_id, [ChoiceSpec("Go", None, "has_kee and courage > 1")]
            ),
            "The condition of \"Go\" at character 1: there is no variable called 'has_kee': ⟨here⟩has_kee",
        ),
        (
            lambda: services.lines.update_line(actor, line.id, condition="courage + 1"),
            "The line's condition at character 9: a condition must be true or false, not a number",
        ),
        (
            lambda: services.scenes.update_scene(
                actor, story.first_scene_id, entry_effects="set courage = true"
            ),
            "'courage' is a number; this sets it to a flag",
        ),
    ):
        with pytest.raises(RomergoError) as refused:
            await change()
        assert refused.value.code == "invalid_argument" and message in refused.value.message
    assert await database_state(services) == before

    cleared = await services.lines.update_line(actor, line.id, condition="")
    assert cleared.condition is None


async def test_renaming_a_variable_rewrites_every_use_as_one_undoable_change(services, actor):
    story, key, _ = await story_with_state(services, actor)
    specs = [
        ChoiceSpec("Open", story.second_scene_id, "has_key and not has_keys_too", "set has_key = false"),
        ChoiceSpec("Wait", None),
    ]
    await services.variables.add_variable(actor, story.project_id, "has_keys_too", "flag")
    await services.scenes.set_choices(actor, story.first_scene_id, specs)
    line = await services.lines.add_line(actor, story.second_scene_id, "Click.", condition="has_key")
    await services.scenes.update_scene(actor, story.second_scene_id, entry_effects="set has_key = true")

    renamed = await services.variables.update_variable(actor, key.id, name="found_key")

    data = await services.reads.project_data(actor, story.project_id)
    view = await services.scenes.scene_view(actor, story.first_scene_id)
    opened = view.choices[0].choice
    assert (opened.condition, opened.effects) == ("found_key and not has_keys_too", "set found_key = false")
    assert (
        next(s for s in data.scenes if s.id == story.second_scene_id).entry_effects == "set found_key = true"
    )
    assert (await services.scenes.scene_view(actor, story.second_scene_id)).lines[
        0
    ].line.condition == "found_key"

    batch = await _last_batch(services, story.project_id)
    outcome = await services.undo.undo(actor, f"batch:{batch}")
    assert outcome.reverted == 4 and not outcome.conflicts  # the variable, two scenes, one line
    back = await services.scenes.scene_view(actor, story.first_scene_id)
    assert back.choices[0].choice.condition == "has_key and not has_keys_too"
    assert [v.name for v in await services.variables.list_variables(actor, story.project_id)] == [
        "courage",
        "has_key",
        "has_keys_too",
    ]
    assert renamed.name == "found_key" and line.condition == "has_key"


async def test_a_scene_using_a_variable_on_entry_and_in_its_choices_keeps_both_renames(services, actor):
    """The scene is written twice in one change (its effects, then its choices): the second write
    starts from the first."""
    story, key, _ = await story_with_state(services, actor)
    await services.scenes.update_scene(actor, story.first_scene_id, entry_effects="set has_key = true")
    await services.scenes.set_choices(actor, story.first_scene_id, [ChoiceSpec("Open", None, "has_key")])

    await services.variables.update_variable(actor, key.id, name="found_key")

    view = await services.scenes.scene_view(actor, story.first_scene_id)
    assert (view.scene.entry_effects, view.choices[0].choice.condition) == (
        "set found_key = true",
        "found_key",
    )
    changed = [(r.entity_type, r.entity_id) for r in await revisions(services, story.project_id)][-3:]
    assert changed == [("scene", story.first_scene_id), ("scene", story.first_scene_id), ("variable", key.id)]
    await services.undo.undo(actor, f"batch:{await _last_batch(services, story.project_id)}")
    back = await services.scenes.scene_view(actor, story.first_scene_id)
    assert (back.scene.entry_effects, back.choices[0].choice.condition) == ("set has_key = true", "has_key")


async def test_a_used_variable_cannot_be_deleted_until_nothing_uses_it(services, actor):
    story, key, courage = await story_with_state(services, actor)
    await services.scenes.set_choices(actor, story.first_scene_id, [ChoiceSpec("Open", None, "has_key")])
    with pytest.raises(RomergoError) as refused:
        await services.variables.delete_variable(actor, key.id)
    assert refused.value.code == "conflict" and 'the choice "Open"' in refused.value.message
    await services.variables.delete_variable(actor, courage.id)  # "courage" is used nowhere
    await services.scenes.set_choices(actor, story.first_scene_id, [ChoiceSpec("Open", None)])
    await services.variables.delete_variable(actor, key.id)
    assert await services.variables.list_variables(actor, story.project_id) == []


async def _last_batch(services, project_id):
    from tests.support.story import revisions

    return (await revisions(services, project_id))[-1].batch_id
