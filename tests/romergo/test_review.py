"""What a command changed, as the author reviews it, and the history filtered and paged."""

from __future__ import annotations

import pytest

from romergo.common.actors import user_actor
from romergo.common.errors import RomergoError
from romergo.story import ChoiceSpec, HistoryFilter
from romergo.story.word_diff import Segment
from tests.support.channels import open_room
from tests.support.commands import carried_out
from tests.support.story import TINY_PNG

DATABASES = ("sqlite",)
"""The database side is the ledgers' contract, run on both (tests/storage/ledgers/test_story_*.py and
test_channels_*.py)."""


async def test_a_command_that_edits_three_entities_lists_exactly_those_three(services, actor):
    room = await open_room(services, actor)
    story = room.story
    line = await services.lines.add_line(actor, story.first_scene_id, "Let them see it, whoever they are.")
    command = await carried_out(
        room,
        "Tighten the opening",
        lambda agent: services.scenes.update_scene(agent, story.first_scene_id, title="Dawn"),
        lambda agent: services.lines.update_line(agent, line.id, "Let every ship see it."),
        lambda agent: services.lines.update_line(agent, line.id, "Let every ship see it!"),
        lambda agent: services.characters.update_character(agent, story.hero_id, name="Mara"),
    )
    await services.scenes.update_scene(actor, story.second_scene_id, title="Not the agent's")

    changes = await services.history.command_review(actor, command.command_id)

    assert [(c.entity_type, c.entity_id, c.action) for c in changes] == [
        ("scene", story.first_scene_id, "updated"),
        ("dialogue_line", line.id, "updated"),
        ("character", story.hero_id, "updated"),
    ]
    scene, spoken, hero = changes
    assert [(f.label, f.before, f.after) for f in scene.fields] == [("Title", "Opening", "Dawn")]
    assert spoken.scene_id == story.first_scene_id
    assert spoken.words == [
        Segment("same", "Let "),
        Segment("deleted", "them"),
        Segment("inserted", "every ship"),
        Segment("same", " see it"),
        Segment("deleted", ", whoever they are."),
        Segment("inserted", "!"),
    ]
    assert [(f.label, f.before, f.after) for f in hero.fields] == [("Name", "Hero", "Mara")]
    stranger = await services.accounts.create_user("stranger")
    assert await services.history.command_review(user_actor(stranger.id), command.command_id) == []


async def test_media_choices_moves_and_whole_scenes_are_described(services, actor):
    room = await open_room(services, actor)
    story = room.story
    image = await services.assets.import_asset(actor, story.project_id, "background", "Dusk", TINY_PNG)
    await services.scenes.set_choices(
        actor, story.first_scene_id, [ChoiceSpec("Go on", story.second_scene_id), ChoiceSpec("Wait", None)]
    )
    first = await services.lines.add_line(actor, story.first_scene_id, "One.")
    await services.lines.add_line(actor, story.first_scene_id, "Two.")
    await services.lines.add_line(actor, story.second_scene_id, "The end.")

    async def new_scene(agent):
        scene = await services.scenes.add_scene(agent, story.chapter_id, "Cellar")
        await services.lines.add_line(agent, scene.id, "Dark down here.")

    command = await carried_out(
        room,
        "Rework",
        lambda agent: services.scenes.set_scene_background(agent, story.first_scene_id, image.id),
        lambda agent: services.scenes.set_choices(
            agent,
            story.first_scene_id,
            [ChoiceSpec("Go on", story.first_scene_id), ChoiceSpec("Run", story.second_scene_id)],
        ),
        lambda agent: services.lines.move_line(agent, first.id, 1),
        lambda agent: services.scenes.delete_scene(agent, story.second_scene_id),
        new_scene,
    )

    changes = {
        (c.entity_type, c.title): c for c in await services.history.command_review(actor, command.command_id)
    }

    scene = changes[("scene", "Opening")]
    assert [(f.label, f.kind, f.before, f.after, f.after_id) for f in scene.fields] == [
        ("Background", "image", None, "Dusk", image.id)
    ]
    assert {(c.kind, c.label, c.before_target, c.after_target) for c in scene.choices} == {
        ("removed", "Wait", None, None),
        ("added", "Run", None, "Closing"),
        ("retargeted", "Go on", "Closing", "Opening"),
    }
    moved = changes[("dialogue_line", "One.")]
    assert (moved.action, moved.moved) == ("moved", "Moved from line 1 to line 2")
    deleted = changes[("scene", "Closing")]
    assert (deleted.action, deleted.holds, deleted.scene_id) == ("deleted", "1 line", None)
    created = changes[("scene", "Cellar")]
    assert created.action == "created"
    assert changes[("dialogue_line", "Dark down here.")].words == [Segment("inserted", "Dark down here.")]


async def test_a_choices_condition_and_effects_are_reviewed_as_rules(services, actor):
    room = await open_room(services, actor)
    story = room.story
    await services.variables.add_variable(actor, story.project_id, "has_key", "flag")
    await services.variables.add_variable(actor, story.project_id, "visits", "number")
    await services.scenes.set_choices(
        actor,
        story.first_scene_id,
        [ChoiceSpec("Open the door", story.second_scene_id, condition="has_key"), ChoiceSpec("Wait", None)],
    )
    command = await carried_out(
        room,
        "Let anyone open the door, and count the waiting",
        lambda agent: services.scenes.set_choices(
            agent,
            story.first_scene_id,
            [
                ChoiceSpec("Open the door", story.second_scene_id),
                ChoiceSpec("Wait", None, effects="set visits = visits + 1"),
                ChoiceSpec("Knock", story.second_scene_id, condition="not has_key", effects="set visits = 0"),
            ],
        ),
    )

    (scene,) = await services.history.command_review(actor, command.command_id)

    assert {(c.kind, c.label, c.before_rule, c.after_rule) for c in scene.choices if c.kind != "added"} == {
        ("condition", "Open the door", "has_key", None),
        ("effects", "Wait", None, "set visits = visits + 1"),
    }
    (knock,) = [c for c in scene.choices if c.kind == "added"]
    assert (knock.label, knock.condition, knock.effects) == ("Knock", "not has_key", "set visits = 0")


async def test_history_filters_by_agent_command_and_scene_and_pages(services, actor):
    room = await open_room(services, actor)
    story = room.story
    command = await carried_out(
        room,
        "Rename both",
        lambda agent: services.scenes.update_scene(agent, story.first_scene_id, title="Dawn"),
        lambda agent: services.lines.add_line(agent, story.second_scene_id, "Agent's line."),
    )
    for number in range(5):
        await services.scenes.update_scene(actor, story.second_scene_id, title=f"Closing {number}")
    await services.undo_command(actor.user_id, command.command_id)

    by_agent = await services.history.history(actor, story.project_id, HistoryFilter(agent="client-worker"))
    assert [(e.change.entity_type, e.agent_name, e.tool) for e in by_agent.entries] == [
        ("dialogue_line", "worker", "romergo_change_1"),
        ("scene", "worker", "romergo_change_0"),
    ]
    assert by_agent.agents == {"client-worker": "worker"}
    assert {e.command.number for e in by_agent.entries if e.command} == {1}

    by_command = await services.history.history(
        actor, story.project_id, HistoryFilter(command_id=command.command_id)
    )
    undo_entries = [e for e in by_command.entries if e.undo_of]
    assert [(e.actor_type, e.undo_of.number if e.undo_of else None) for e in undo_entries] == [
        ("user", 1),
        ("user", 1),
    ]
    assert len(by_command.entries) == 4

    scene = await services.history.history(
        actor, story.project_id, HistoryFilter(scene_id=story.second_scene_id), limit=3
    )
    assert [e.change.entity_type for e in scene.entries] == ["dialogue_line", "scene", "scene"]
    assert scene.older is not None
    rest = await services.history.history(
        actor, story.project_id, HistoryFilter(scene_id=story.second_scene_id), before=scene.older, limit=50
    )
    titles = [e.change.title for e in scene.entries + rest.entries if e.change.entity_type == "scene"]
    assert titles == ["Closing 4", "Closing 3", "Closing 2", "Closing 1", "Closing 0", "Closing"]
    assert rest.older is None


async def test_state_changes_read_as_the_author_wrote_them(services, actor):
    room = await open_room(services, actor)
    story = room.story
    variable = await services.variables.add_variable(actor, story.project_id, "has_key", "flag")
    line = await services.lines.add_line(actor, story.first_scene_id, "A key glints.")
    command = await carried_out(
        room,
        "Let the story remember the key",
        lambda agent: services.variables.update_variable(
            agent, variable.id, "found_key", True, "The cellar key"
        ),
        lambda agent: services.scenes.update_scene(
            agent, story.second_scene_id, entry_effects="set found_key = true"
        ),
        lambda agent: services.lines.update_line(agent, line.id, condition="not found_key"),
    )

    changes = await services.history.command_review(actor, command.command_id)

    fields = {c.entity_type: [(f.label, f.before, f.after) for f in c.fields] for c in changes}
    assert fields["variable"] == [
        ("Name", "has_key", "found_key"),
        ("Starts as", "false", "true"),
        ("Description", None, "The cellar key"),
    ]
    assert fields["scene"] == [("On entering", None, "set found_key = true")]
    assert fields["dialogue_line"] == [("Shown only when", None, "not found_key")]


async def test_a_confirmation_names_exactly_the_ids_it_asks_for_in_its_owners_project(services, actor):
    room = await open_room(services, actor)
    story = room.story
    spoken = await services.lines.add_line(
        actor,
        story.first_scene_id,
        "The lamp   has not been lit since the night the Marguerite went down with all hands.",
        character_id=story.hero_id,
    )
    narrated = await services.lines.add_line(actor, story.first_scene_id, "Rain.")
    flag = await services.variables.add_variable(actor, story.project_id, "has_key", "flag")
    other = await services.projects.create_project(actor, "Another story")
    foreign = await services.variables.add_variable(actor, other.id, "elsewhere", "flag")

    names = await services.history.names_of(
        actor,
        story.project_id,
        {story.first_scene_id, spoken.id, narrated.id, flag.id, foreign.id, "scn_notaromergoidxxx", "plain"},
    )

    assert names == {
        story.first_scene_id: "Opening",
        spoken.id: "Hero: The lamp has not been lit since the night the…",
        narrated.id: "Rain.",
        flag.id: "has_key",
    }
    assert await services.history.names_of(actor, story.project_id, set()) == {}
    stranger = await services.accounts.create_user("stranger")
    with pytest.raises(RomergoError, match=r"\[not_found\]"):
        await services.history.names_of(user_actor(stranger.id), story.project_id, {flag.id})
