"""A scene's choices keep their ids across set_choices, and a write that names the revision it read
merges the list with what changed since, choice by choice."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from romergo.common.actors import agent_actor
from romergo.story import ChoiceSpec
from romergo.story.based_on import EditConflict, attempt
from romergo.story.choice_lists import FIELDS, merge_choices
from tests.support.story import database_state, small_story

DATABASES = ("sqlite",)


async def scene_revision(services, actor, scene_id):
    return (await services.scenes.scene_view(actor, scene_id)).revisions[scene_id]


def spec(row, **changes) -> ChoiceSpec:
    values = {"label": row.label, "target_scene_id": row.target_scene_id, "id": row.id, **changes}
    return ChoiceSpec(values["label"], values["target_scene_id"], id=values["id"])


async def two_choices(services, actor):
    story = await small_story(services, actor)
    rows = await services.scenes.set_choices(
        actor,
        story.first_scene_id,
        [ChoiceSpec("Open the door", story.second_scene_id), ChoiceSpec("Wait", story.second_scene_id)],
    )
    return story, rows


async def test_a_choice_given_with_its_id_keeps_it_and_one_without_is_new(services, actor):
    story, (door, wait) = await two_choices(services, actor)
    rows = await services.scenes.set_choices(
        actor,
        story.first_scene_id,
        [spec(wait, label="Wait a while"), ChoiceSpec("Knock", story.second_scene_id)],
    )
    assert (rows[0].id, rows[0].label) == (wait.id, "Wait a while")
    assert rows[1].id not in (door.id, wait.id) and rows[1].label == "Knock"
    stored = (await services.scenes.scene_view(actor, story.first_scene_id)).choices
    assert [(c.choice.id, c.choice.label, c.choice.position) for c in stored] == [
        (wait.id, "Wait a while", 0),
        (rows[1].id, "Knock", 1),
    ]


@pytest.mark.parametrize("expected", [False, True])
async def test_an_id_not_of_the_scene_or_given_twice_is_refused_and_writes_nothing(services, actor, expected):
    story, (door, _) = await two_choices(services, actor)
    other = await services.scenes.set_choices(
        actor, story.second_scene_id, [ChoiceSpec("Back", story.first_scene_id)]
    )
    read = await scene_revision(services, actor, story.first_scene_id) if expected else None
    untouched = await database_state(services)
    for wanted, message in (
        ([spec(other[0])], "is not one of this scene's choices"),
        ([spec(door), spec(door, label="Again")], "may appear once"),
    ):
        with pytest.raises(Exception, match=rf"\[invalid_argument\] .*{message}"):
            await services.scenes.set_choices(actor, story.first_scene_id, wanted, expected_revision=read)
    assert await database_state(services) == untouched


async def test_a_choice_added_by_one_side_and_another_edited_by_the_other_are_both_kept(services, actor):
    story, (door, wait) = await two_choices(services, actor)
    read = await scene_revision(services, actor, story.first_scene_id)
    helper = agent_actor(actor.user_id, "cli_helper", "Helper")
    await services.scenes.set_choices(
        helper, story.first_scene_id, [spec(door), spec(wait), ChoiceSpec("Climb out", None)]
    )

    rows = await services.scenes.set_choices(
        actor, story.first_scene_id, [spec(door, label="Open it"), spec(wait)], expected_revision=read
    )
    assert [r.label for r in rows] == ["Open it", "Wait", "Climb out"]
    assert [r.id for r in rows][:2] == [door.id, wait.id]


async def test_different_fields_of_one_choice_changed_on_each_side_are_both_kept(services, actor):
    story, (door, wait) = await two_choices(services, actor)
    read = await scene_revision(services, actor, story.first_scene_id)
    helper = agent_actor(actor.user_id, "cli_helper", "Helper")
    await services.scenes.set_choices(
        helper, story.first_scene_id, [spec(door, target_scene_id=story.first_scene_id), spec(wait)]
    )
    rows = await services.scenes.set_choices(
        actor, story.first_scene_id, [spec(door, label="Open it"), spec(wait)], expected_revision=read
    )
    assert (rows[0].label, rows[0].target_scene_id) == ("Open it", story.first_scene_id)


@pytest.mark.parametrize("theirs", ["edited", "removed"])
async def test_one_choice_changed_on_both_sides_is_a_conflict_that_writes_nothing(services, actor, theirs):
    story, (door, wait) = await two_choices(services, actor)
    read = await scene_revision(services, actor, story.first_scene_id)
    helper = agent_actor(actor.user_id, "cli_helper", "Helper")
    if theirs == "edited":
        await services.scenes.set_choices(
            helper, story.first_scene_id, [spec(door, label="Kick it"), spec(wait)]
        )
    else:
        await services.scenes.set_choices(helper, story.first_scene_id, [spec(wait)])
    untouched = await database_state(services)

    outcome = await attempt(
        services.scenes.set_choices(
            actor, story.first_scene_id, [spec(door, label="Open it"), spec(wait)], expected_revision=read
        )
    )
    assert isinstance(outcome, EditConflict)
    [clash] = outcome.fields
    if theirs == "edited":
        assert (clash.field, clash.base, clash.mine, clash.theirs) == (
            f"choices[{door.id}].label",
            "Open the door",
            "Open it",
            "Kick it",
        )
    else:
        assert (clash.field, clash.mine["label"], clash.theirs) == (f"choices[{door.id}]", "Open it", None)
    assert await database_state(services) == untouched


async def test_a_choice_i_removed_and_they_edited_is_a_conflict(services, actor):
    story, (door, wait) = await two_choices(services, actor)
    read = await scene_revision(services, actor, story.first_scene_id)
    helper = agent_actor(actor.user_id, "cli_helper", "Helper")
    await services.scenes.set_choices(helper, story.first_scene_id, [spec(door, label="Kick it"), spec(wait)])
    outcome = await attempt(
        services.scenes.set_choices(actor, story.first_scene_id, [spec(wait)], expected_revision=read)
    )
    assert isinstance(outcome, EditConflict)
    assert [(f.field, f.mine, f.theirs["label"]) for f in outcome.fields] == [
        (f"choices[{door.id}]", None, "Kick it")
    ]


@pytest.mark.parametrize("seed", range(200))
def test_a_merge_of_choice_lists_keeps_every_side_s_change_or_names_the_conflict(seed):
    """Random edits, removals and additions on both sides of a list read at one revision: each
    choice's fields in the result come from a side that changed them (or the base), choices added on
    either side are there, and nothing is dropped without a conflict naming it."""
    rng = random.Random(seed)
    base = [ChoiceSpec(**{name: rng.choice("ab") for name in FIELDS}, id=f"c{n}") for n in range(4)]

    def side(name: str) -> list[ChoiceSpec]:
        out: list[ChoiceSpec] = []
        for choice in base:
            roll = rng.random()
            if roll < 0.2:
                continue  # removed
            if roll < 0.6:
                field = rng.choice(FIELDS)
                choice = replace(choice, **{field: rng.choice("abc")})
            out.append(choice)
        if rng.random() < 0.5:
            out.append(ChoiceSpec("n", None, id=f"new-{name}"))
        return out

    theirs, mine_listed = side("theirs"), side("mine")
    mine = [replace(c, id=None) if c.id == "new-mine" else c for c in mine_listed]
    merged, conflicts = merge_choices(base, theirs, mine)
    clashing = {c.field.split("]")[0] + "]" for c in conflicts}
    by_id = {c.id: c for c in merged}
    was = {c.id: c for c in base}
    now = {c.id: c for c in theirs}
    wrote = {c.id: c for c in mine_listed}
    for choice_id, read in was.items():
        key = f"choices[{choice_id}]"
        if key in clashing:
            continue
        mine_has, theirs_has = choice_id in wrote, choice_id in now
        if not mine_has or not theirs_has:
            assert choice_id not in by_id  # removed by a side, and the other left it as read
            continue
        for field in FIELDS:
            value = by_id[choice_id].fields()[field]
            mine_value, theirs_value = wrote[choice_id].fields()[field], now[choice_id].fields()[field]
            if mine_value != read.fields()[field]:
                assert value == mine_value
            else:
                assert value == theirs_value
    assert ("new-theirs" in now) == ("new-theirs" in by_id)
    assert ("new-mine" in wrote) == any(c.id is None for c in merged)
