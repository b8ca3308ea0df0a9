"""A replace given the revisions its search saw changes only the texts still as they were then:
a text someone edited since, or one the search did not show, is skipped and reported, not
replaced blindly."""

from __future__ import annotations

from romergo.common.actors import agent_actor
from romergo.story import ChoiceSpec
from romergo.story.patterns import SearchQuery
from romergo.story.search import Target
from tests.support.story import database_state, small_story

LAMP = SearchQuery("lamp")


DATABASES = ("sqlite",)


async def lamp_story(services, actor):
    story = await small_story(services, actor)
    lit = await services.lines.add_line(actor, story.first_scene_id, "The lamp is lit.")
    held = await services.lines.add_line(actor, story.second_scene_id, "She holds the lamp.")
    await services.scenes.set_choices(
        actor, story.first_scene_id, [ChoiceSpec("Follow the lamp", story.second_scene_id)]
    )
    return story, lit, held


async def texts(services, actor, project_id):
    data = await services.reads.project_data(actor, project_id)
    return {line.id: line.text for line in data.lines}, [c.label for c in data.choices]


async def test_the_search_carries_the_revision_of_each_hits_entity(services, actor):
    story, lit, held = await lamp_story(services, actor)
    results = await services.search.search(actor, story.project_id, LAMP)
    view = await services.scenes.scene_view(actor, story.first_scene_id)
    assert results.revisions[lit.id] == view.revisions[lit.id]
    assert results.revisions[story.first_scene_id] == view.revisions[story.first_scene_id]  # the choice
    assert set(results.revisions) == {lit.id, held.id, story.first_scene_id}


async def test_a_text_edited_since_the_search_is_skipped_and_the_rest_replaced(services, actor):
    story, lit, held = await lamp_story(services, actor)
    results = await services.search.search(actor, story.project_id, LAMP)
    helper = agent_actor(actor.user_id, "cli_helper", "Helper")
    await services.lines.update_line(helper, held.id, text="She holds the old lamp.")

    done = await services.search.replace(actor, story.project_id, LAMP, "torch", seen=results.revisions)

    assert done.skipped == [Target("line", held.id)]
    assert sorted((t.field, t.entity_id) for t in done.changed) == sorted(
        [("line", lit.id), ("choice_label", (await choice_id(services, actor, story)))]
    )
    lines, labels = await texts(services, actor, story.project_id)
    assert lines[held.id] == "She holds the old lamp."  # the helper's edit stands
    assert lines[lit.id] == "The torch is lit." and labels == ["Follow the torch"]


async def test_a_text_the_search_did_not_show_is_skipped(services, actor):
    story, lit, _ = await lamp_story(services, actor)
    results = await services.search.search(actor, story.project_id, LAMP)
    late = await services.lines.add_line(actor, story.first_scene_id, "Another lamp.")
    done = await services.search.replace(actor, story.project_id, LAMP, "torch", seen=results.revisions)
    assert Target("line", late.id) in done.skipped and Target("line", lit.id) in done.changed
    lines, _ = await texts(services, actor, story.project_id)
    assert lines[late.id] == "Another lamp."


async def test_when_every_text_changed_since_nothing_is_written(services, actor):
    story, lit, held = await lamp_story(services, actor)
    results = await services.search.search(actor, story.project_id, LAMP, fields=["line"])
    for line in (lit, held):
        await services.lines.update_line(actor, line.id, text=f"{line.text} Again, the lamp.")
    untouched = await database_state(services)
    done = await services.search.replace(
        actor, story.project_id, LAMP, "torch", fields=["line"], seen=results.revisions
    )
    assert (done.texts, done.batch_id, len(done.skipped)) == (0, None, 2)
    assert await database_state(services) == untouched


async def test_without_the_search_s_revisions_a_replace_works_on_what_the_story_holds(services, actor):
    story, _, held = await lamp_story(services, actor)
    await services.lines.update_line(actor, held.id, text="She holds the old lamp.")
    done = await services.search.replace(actor, story.project_id, LAMP, "torch")
    assert done.skipped == [] and done.texts == 3


async def choice_id(services, actor, story) -> str:
    return (await services.scenes.scene_view(actor, story.first_scene_id)).choices[0].choice.id
