"""Duplicating a scene or a chapter: a full copy right after the original, each row a revision."""

from __future__ import annotations

import pytest

from romergo.common.actors import user_actor
from romergo.common.errors import RomergoError
from romergo.story import ChoiceSpec
from tests.support import media
from tests.support.story import database_state, revisions, small_story

DATABASES = ("sqlite",)
"""The database side is the story ledger's contract, run on both (tests/storage/ledgers/test_story_*.py)."""


async def furnished(services, actor):
    """The small story, with a line, a background and choices in and out of its chapter."""
    story = await small_story(services, actor)
    other = await services.chapters.add_chapter(actor, story.project_id, "Two")
    elsewhere = await services.scenes.add_scene(actor, other.id, "Elsewhere")
    sky = await services.assets.import_asset(actor, story.project_id, "background", "Sky", media.png())
    await services.scenes.set_scene_background(actor, story.first_scene_id, sky.id)
    await services.lines.add_line(actor, story.first_scene_id, "Hello.", story.hero_id)
    await services.scenes.set_choices(
        actor,
        story.first_scene_id,
        [ChoiceSpec("Onwards", story.second_scene_id), ChoiceSpec("Away", elsewhere.id)],
    )
    return story, elsewhere.id, sky.id


async def test_a_scene_copy_follows_its_original_with_everything_it_owns(services, actor):
    story, elsewhere_id, sky_id = await furnished(services, actor)
    seen = len(await revisions(services, story.project_id))
    copy = await services.copies.duplicate_scene(actor, story.first_scene_id)

    data = await services.reads.project_data(actor, story.project_id)
    assert [s.title for s in data.scenes_of(story.chapter_id)] == ["Opening", "Opening (copy)", "Closing"]
    assert (copy.is_start, copy.background_asset_id) == (False, sky_id)
    assert [(line.text, line.character_id) for line in data.lines_of(copy.id)] == [("Hello.", story.hero_id)]
    assert [(c.label, c.target_scene_id) for c in data.choices_of(copy.id)] == [
        ("Onwards", story.second_scene_id),
        ("Away", elsewhere_id),
    ]
    written = (await revisions(services, story.project_id))[seen:]
    assert [(r.entity_type, r.entity_id, r.action) for r in written] == [
        ("scene", copy.id, "created"),
        ("dialogue_line", data.lines_of(copy.id)[0].id, "created"),
    ]
    assert [c["label"] for c in written[0].after["choices"]] == ["Onwards", "Away"]


async def test_a_chapter_copy_points_its_own_choices_at_its_own_scenes(services, actor):
    story, elsewhere_id, _ = await furnished(services, actor)
    copy = await services.copies.duplicate_chapter(actor, story.chapter_id)

    data = await services.reads.project_data(actor, story.project_id)
    assert [c.title for c in data.chapters_in_order()] == ["One", "One (copy)", "Two"]
    opening, closing = data.scenes_of(copy.id)
    assert [opening.title, closing.title] == ["Opening", "Closing"]
    assert not opening.is_start and data.lines_of(opening.id)[0].text == "Hello."
    assert [c.target_scene_id for c in data.choices_of(opening.id)] == [closing.id, elsewhere_id]
    originals = data.scenes_of(story.chapter_id)
    assert [c.target_scene_id for c in data.choices_of(originals[0].id)] == [
        story.second_scene_id,
        elsewhere_id,
    ]


async def test_a_copy_title_stays_within_the_limit(services, actor):
    story = await small_story(services, actor)
    long_title = "A" * services.settings.limits.max_title_chars
    await services.scenes.update_scene(actor, story.first_scene_id, title=long_title)
    copy = await services.copies.duplicate_scene(actor, story.first_scene_id)
    assert len(copy.title) == len(long_title) and copy.title.endswith(" (copy)")


async def test_copying_a_missing_or_foreign_scene_or_chapter_changes_nothing(services, actor):
    story = await small_story(services, actor)
    stranger = user_actor((await services.accounts.create_user("stranger")).id, "stranger")
    before = await database_state(services)
    for attempt in (
        services.copies.duplicate_scene(actor, "scn_missing"),
        services.copies.duplicate_chapter(actor, "chp_missing"),
        services.copies.duplicate_scene(stranger, story.first_scene_id),
        services.copies.duplicate_chapter(stranger, story.chapter_id),
    ):
        with pytest.raises(RomergoError) as refused:
            await attempt
        assert refused.value.code == "not_found"
    assert await database_state(services) == before


async def test_a_copy_keeps_the_scenes_state(services, actor):
    story = await small_story(services, actor)
    await services.variables.add_variable(actor, story.project_id, "has_key", "flag")
    await services.scenes.update_scene(actor, story.first_scene_id, entry_effects="set has_key = true")
    await services.scenes.set_choices(
        actor,
        story.first_scene_id,
        [ChoiceSpec("Unlock", story.second_scene_id, "has_key", "set has_key = false")],
    )
    await services.lines.add_line(actor, story.first_scene_id, "The key turns.", condition="has_key")

    copy = await services.copies.duplicate_scene(actor, story.first_scene_id)

    data = await services.reads.project_data(actor, story.project_id)
    assert copy.entry_effects == "set has_key = true"
    assert [(c.condition, c.effects) for c in data.choices_of(copy.id)] == [
        ("has_key", "set has_key = false")
    ]
    assert [line.condition for line in data.lines_of(copy.id) if line.text == "The key turns."] == ["has_key"]
