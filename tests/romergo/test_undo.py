"""Undo and redo of an agent's command: the story comes back field by field, deleted entities with
their ids and children, conflicts refuse unless forced, and the undo itself can be undone."""

from __future__ import annotations

import pytest

from romergo.common.actors import agent_actor
from romergo.common.errors import RomergoError
from romergo.story import ChoiceSpec
from tests.support.story import TINY_PNG, database_state, revisions, small_story

DATABASES = ("sqlite",)
"""The database side is the story ledger's contract, run on both (tests/storage/ledgers/test_story_*.py)."""

COMMAND = "cmd_test"


def agent_for(actor, tool="romergo_tool", command_id=COMMAND):
    return agent_actor(actor.user_id, "client-a", "Agent").for_tool(tool, command_id)


async def story_state(services, actor, project_id):
    """The story as rows without their timestamps: every field an author or a reader sees."""
    data = await services.reads.project_data(actor, project_id)

    def fields(rows, *names):
        return sorted(tuple(getattr(row, name) for name in names) for row in rows)

    return {
        "chapters": fields(data.chapters, "id", "title", "position", "music_asset_id", "background_asset_id"),
        "scenes": fields(
            data.scenes,
            "id",
            "chapter_id",
            "title",
            "position",
            "is_start",
            "is_ending",
            "background_asset_id",
            "music_asset_id",
        ),
        "lines": fields(data.lines, "id", "scene_id", "position", "character_id", "text"),
        "choices": fields(data.choices, "id", "scene_id", "position", "label", "target_scene_id"),
        "characters": fields(data.characters, "id", "name", "color"),
        "assets": fields(data.assets, "id", "name"),
    }


@pytest.fixture
async def story(services, actor):
    story = await small_story(services, actor)
    await services.lines.add_line(actor, story.first_scene_id, "The wind howls.")
    await services.lines.add_line(actor, story.first_scene_id, "Who's there?", story.hero_id)
    await services.scenes.set_choices(
        actor, story.first_scene_id, [ChoiceSpec("Go on", story.second_scene_id)]
    )
    await services.lines.add_line(actor, story.second_scene_id, "The end.")
    return story


async def test_undo_restores_every_field_the_command_changed(services, actor, story):
    image = await services.assets.import_asset(actor, story.project_id, "background", "Dusk", TINY_PNG)
    before = await story_state(services, actor, story.project_id)
    agent = agent_for(actor)
    lines = (await services.scenes.scene_view(actor, story.first_scene_id)).lines
    await services.scenes.update_scene(agent, story.first_scene_id, title="Dawn", is_ending=True)
    await services.lines.update_line(agent, lines[1].line.id, "Who goes there?", None)
    await services.lines.delete_line(agent, lines[0].line.id)
    await services.lines.move_line(agent, lines[1].line.id, 0)
    await services.scenes.set_scene_background(agent, story.first_scene_id, image.id)
    await services.scenes.set_choices(
        agent, story.first_scene_id, [ChoiceSpec("Run", story.first_scene_id), ChoiceSpec("Stay", None)]
    )
    await services.characters.update_character(agent, story.hero_id, name="Heroine")
    assert await story_state(services, actor, story.project_id) != before

    outcome = await services.undo.undo(actor, f"command:{COMMAND}")

    assert (outcome.reverted, outcome.conflicts) == (4, [])
    assert await story_state(services, actor, story.project_id) == before
    undo_rows = [r for r in await revisions(services, story.project_id) if r.batch_id == outcome.batch_id]
    assert {(r.actor_type, r.command_id, r.reverts) for r in undo_rows} == {
        ("user", None, f"command:{COMMAND}")
    }


async def test_deleted_entities_come_back_with_their_ids_and_children(services, actor, story):
    agent = agent_for(actor)
    into_second = await services.scenes.add_scene(actor, story.chapter_id, "Side")
    await services.scenes.set_choices(actor, into_second.id, [ChoiceSpec("Back", story.second_scene_id)])
    before = await story_state(services, actor, story.project_id)

    await services.scenes.delete_scene(agent, story.second_scene_id)
    await services.chapters.delete_chapter(agent, story.chapter_id)
    assert (await services.reads.outline(actor, story.project_id)).chapters == []

    outcome = await services.undo.undo(actor, f"command:{COMMAND}")

    assert outcome.reverted == 2
    assert await story_state(services, actor, story.project_id) == before
    # choices that pointed into the deleted scene lead to it again
    first = await services.scenes.scene_view(actor, story.first_scene_id)
    assert [c.choice.target_scene_id for c in first.choices] == [story.second_scene_id]


async def test_created_entities_are_removed(services, actor, story):
    before = await story_state(services, actor, story.project_id)
    agent = agent_for(actor)
    chapter = await services.chapters.add_chapter(agent, story.project_id, "Two")
    scene = await services.scenes.add_scene(agent, chapter.id, "New")
    await services.lines.add_line(agent, scene.id, "Fresh words.")
    await services.lines.add_line(agent, story.first_scene_id, "An extra line.", position=0)
    await services.characters.add_character(agent, story.project_id, "Stranger")

    outcome = await services.undo.undo(actor, f"command:{COMMAND}")

    assert outcome.reverted == 5
    assert await story_state(services, actor, story.project_id) == before


async def test_undo_of_the_undo_restores_the_agents_version(services, actor, story):
    agent = agent_for(actor)
    await services.scenes.update_scene(agent, story.first_scene_id, title="Dawn")
    await services.scenes.delete_scene(agent, story.second_scene_id)
    agents_version = await story_state(services, actor, story.project_id)

    await services.undo.undo(actor, f"command:{COMMAND}")
    assert (await services.undo.status(actor, f"command:{COMMAND}")).undone
    with pytest.raises(RomergoError, match="already undone"):
        await services.undo.undo(actor, f"command:{COMMAND}")

    await services.undo.undo(actor, f"command:{COMMAND}", redo=True)

    assert await story_state(services, actor, story.project_id) == agents_version
    assert not (await services.undo.status(actor, f"command:{COMMAND}")).undone
    with pytest.raises(RomergoError, match="Nothing to redo"):
        await services.undo.undo(actor, f"command:{COMMAND}", redo=True)
    # and once more: undo after the redo takes the agent's version back again
    await services.undo.undo(actor, f"command:{COMMAND}")
    assert (await services.undo.status(actor, f"command:{COMMAND}")).undone


async def test_a_later_change_is_a_conflict_refused_without_force(services, actor, story):
    agent = agent_for(actor)
    await services.scenes.update_scene(agent, story.first_scene_id, title="Dawn", is_ending=True)
    await services.lines.add_line(agent, story.second_scene_id, "Agent's line.")
    await services.scenes.update_scene(actor, story.first_scene_id, title="Daybreak")
    untouched = await database_state(services)

    refused = await services.undo.undo(actor, f"command:{COMMAND}")

    assert refused.reverted == 0
    assert [(c.entity_type, c.entity_id, c.title, c.actor_type) for c in refused.conflicts] == [
        ("scene", story.first_scene_id, "Daybreak", "user")
    ]
    assert await database_state(services) == untouched

    forced = await services.undo.undo(actor, f"command:{COMMAND}", force=True)

    assert forced.reverted == 2
    view = await services.scenes.scene_view(actor, story.first_scene_id)
    # only the fields the command changed go back: the title it set, and the ending mark
    assert (view.scene.title, view.scene.is_ending) == ("Opening", False)
    second = await services.scenes.scene_view(actor, story.second_scene_id)
    assert [v.line.text for v in second.lines] == ["The end."]


async def test_a_created_scene_holding_lines_written_since_is_a_conflict(services, actor, story):
    scene = await services.scenes.add_scene(agent_for(actor), story.chapter_id, "Agent's scene")
    await services.lines.add_line(actor, scene.id, "The author's own line.")

    refused = await services.undo.undo(actor, f"command:{COMMAND}")

    assert [(c.entity_type, c.entity_id) for c in refused.conflicts] == [("scene", scene.id)]
    assert (await services.scenes.scene_view(actor, scene.id)).lines[0].line.text == "The author's own line."


async def test_a_created_chapter_holding_scenes_written_since_is_a_conflict(services, actor, story):
    chapter = await services.chapters.add_chapter(agent_for(actor), story.project_id, "Agent's chapter")
    scene = await services.scenes.add_scene(agent_for(actor), chapter.id, "Agent's scene")
    own = await services.scenes.add_scene(actor, chapter.id, "The author's own scene")
    untouched = await database_state(services)

    refused = await services.undo.undo(actor, f"command:{COMMAND}")

    assert [(c.entity_type, c.entity_id) for c in refused.conflicts] == [("chapter", chapter.id)]
    assert await database_state(services) == untouched
    assert (await services.scenes.scene_view(actor, own.id)).scene.title == "The author's own scene"
    assert (await services.scenes.scene_view(actor, scene.id)).scene.chapter_id == chapter.id


async def test_a_created_chapter_whose_scenes_all_came_with_it_is_taken_back(services, actor, story):
    before = await story_state(services, actor, story.project_id)
    chapter = await services.chapters.add_chapter(agent_for(actor), story.project_id, "Agent's chapter")
    await services.scenes.add_scene(agent_for(actor), chapter.id, "Agent's scene")

    outcome = await services.undo.undo(actor, f"command:{COMMAND}")

    assert (outcome.reverted, outcome.conflicts) == (2, [])
    assert await story_state(services, actor, story.project_id) == before


async def test_undo_is_the_owners_only_and_needs_changes(services, actor, story):
    await services.scenes.update_scene(agent_for(actor), story.first_scene_id, title="Dawn")
    stranger = await services.accounts.create_user("stranger")
    from romergo.common.actors import user_actor

    untouched = await database_state(services)
    with pytest.raises(RomergoError) as refused:
        await services.undo.undo(user_actor(stranger.id), f"command:{COMMAND}")
    assert refused.value.code == "not_found"
    with pytest.raises(RomergoError) as empty:
        await services.undo.undo(actor, "command:cmd_nothing")
    assert empty.value.code == "conflict"
    with pytest.raises(RomergoError) as malformed:
        await services.undo.undo(actor, "everything")
    assert malformed.value.code == "invalid_argument"
    assert await database_state(services) == untouched


async def test_a_deleted_asset_comes_back_into_the_slots_it_filled(services, actor, story):
    image = await services.assets.import_asset(actor, story.project_id, "background", "Dusk", TINY_PNG)
    await services.scenes.set_scene_background(actor, story.first_scene_id, image.id)
    await services.chapters.set_chapter_background(actor, story.chapter_id, image.id)
    before = await story_state(services, actor, story.project_id)

    await services.assets.delete_asset(agent_for(actor), image.id)
    assert (await services.scenes.scene_view(actor, story.first_scene_id)).scene.background_asset_id is None

    outcome = await services.undo.undo(actor, f"command:{COMMAND}")

    assert outcome.reverted == 3  # the asset, the scene's slot and the chapter's slot
    assert await story_state(services, actor, story.project_id) == before


async def test_undo_clears_story_state_the_command_set_where_there_was_none(services, actor, story):
    await services.variables.add_variable(actor, story.project_id, "gold", "number", 0, "Gold")
    agent = agent_for(actor)
    lines = (await services.scenes.scene_view(actor, story.first_scene_id)).lines
    await services.scenes.update_scene(agent, story.first_scene_id, entry_effects="set gold = 1")
    await services.lines.update_line(agent, lines[0].line.id, condition="gold > 0")

    outcome = await services.undo.undo(actor, f"command:{COMMAND}")

    assert (outcome.reverted, outcome.conflicts) == (2, [])
    scene = await services.scenes.scene_view(actor, story.first_scene_id)
    assert scene.scene.entry_effects is None
    assert scene.lines[0].line.condition is None
