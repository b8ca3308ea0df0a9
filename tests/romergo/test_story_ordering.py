"""One step up or down in the outline: scenes cross chapter borders, lists stop at their ends."""

from __future__ import annotations

from romergo.story.ordering import ScenePlace, list_step, scene_step
from tests.support.story import small_story


async def test_scene_steps_within_and_across_chapters(services, actor):
    story = await small_story(services, actor)
    second = await services.chapters.add_chapter(actor, story.project_id, "Two")
    later = await services.scenes.add_scene(actor, second.id, "Later")
    outline = await services.reads.outline(actor, story.project_id)

    assert scene_step(outline, story.first_scene_id, "up") is None
    assert scene_step(outline, story.first_scene_id, "down") == ScenePlace(story.chapter_id, 1)
    assert scene_step(outline, story.second_scene_id, "up") == ScenePlace(story.chapter_id, 0)
    # Past the bottom of chapter One: the start of chapter Two; past the top of Two: the end of One.
    assert scene_step(outline, story.second_scene_id, "down") == ScenePlace(second.id, 0)
    assert scene_step(outline, later.id, "up") == ScenePlace(story.chapter_id, 2)
    assert scene_step(outline, later.id, "down") is None
    assert scene_step(outline, "scn_unknown", "down") is None


async def test_a_step_into_an_empty_chapter_and_back_restores_the_order(services, actor):
    story = await small_story(services, actor)
    empty = await services.chapters.add_chapter(actor, story.project_id, "Empty")

    outline = await services.reads.outline(actor, story.project_id)
    step = scene_step(outline, story.second_scene_id, "down")
    assert step == ScenePlace(empty.id, 0)
    await services.scenes.move_scene(actor, story.second_scene_id, step.chapter_id, step.position)

    outline = await services.reads.outline(actor, story.project_id)
    back = scene_step(outline, story.second_scene_id, "up")
    assert back == ScenePlace(story.chapter_id, 1)
    await services.scenes.move_scene(actor, story.second_scene_id, back.chapter_id, back.position)
    outline = await services.reads.outline(actor, story.project_id)
    assert [s.id for s in outline.chapters[0].scenes] == [story.first_scene_id, story.second_scene_id]
    assert outline.chapters[1].scenes == []


def test_list_steps_stop_at_both_ends():
    ids = ["a", "b", "c"]
    assert list_step(ids, "a", "up") is None
    assert list_step(ids, "a", "down") == 1
    assert list_step(ids, "c", "up") == 1
    assert list_step(ids, "c", "down") is None
    assert list_step(ids, "x", "down") is None
