"""Revisions on reads: every entity a page or a tool reads carries the id of its newest change."""

from __future__ import annotations

from romergo.story import ChoiceSpec
from tests.support.story import revisions, small_story

DATABASES = ("sqlite",)
"""The database side is the ledgers' contract, run on both (tests/storage/ledgers/test_story_*.py)."""


async def newest(services, project_id):
    """The id of each entity's newest revision, read the long way: the whole log."""
    found: dict[str, int] = {}
    for row in await revisions(services, project_id):
        assert row.id is not None
        found[row.entity_id] = row.id
    return found


async def test_a_scene_view_carries_the_revision_of_the_scene_and_of_each_line(services, actor):
    story = await small_story(services, actor)
    first = await services.lines.add_line(actor, story.first_scene_id, "Who is there?")
    second = await services.lines.add_line(actor, story.first_scene_id, "Only the wind.")
    before = await services.scenes.scene_view(actor, story.first_scene_id)
    log = await newest(services, story.project_id)
    assert before.revisions == {
        story.first_scene_id: log[story.first_scene_id],
        first.id: log[first.id],
        second.id: log[second.id],
    }

    await services.lines.update_line(actor, second.id, text="Only the wind, again.")
    after = await services.scenes.scene_view(actor, story.first_scene_id)
    assert after.revisions[second.id] > before.revisions[second.id]
    assert after.revisions[first.id] == before.revisions[first.id]
    assert after.revisions[story.first_scene_id] == before.revisions[story.first_scene_id]


async def test_choices_change_the_revision_of_their_scene(services, actor):
    story = await small_story(services, actor)
    before = (await services.scenes.scene_view(actor, story.first_scene_id)).revisions[story.first_scene_id]
    await services.scenes.set_choices(actor, story.first_scene_id, [ChoiceSpec("On", story.second_scene_id)])
    after = (await services.scenes.scene_view(actor, story.first_scene_id)).revisions[story.first_scene_id]
    assert after > before


async def test_outlines_and_chapters_carry_their_entities_revisions(services, actor):
    story = await small_story(services, actor)
    await services.scenes.update_scene(actor, story.second_scene_id, title="The end")
    log = await newest(services, story.project_id)
    outline = await services.reads.outline(actor, story.project_id)
    assert outline.revisions == {
        entity: log[entity]
        for entity in (story.chapter_id, story.first_scene_id, story.second_scene_id, story.hero_id)
    }
    chapter = await services.chapters.chapter_outline(actor, story.chapter_id)
    assert chapter.revisions == {
        entity: log[entity] for entity in (story.chapter_id, story.first_scene_id, story.second_scene_id)
    }
