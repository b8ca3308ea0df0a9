"""The play model: the same walk through the live project and through its published snapshot."""

from __future__ import annotations

from romergo.demo.seed import seed_demo
from romergo.demo.story import TITLE
from romergo.story import ChoiceSpec
from romergo.story.playback import PlayChoice, PlayLine, from_project, from_snapshot
from tests.support.story import TINY_PNG, TINY_WAV, small_story

# The play model is built in the core from records the story ledger reads, whose contract tests
# run on both databases.
DATABASES = ("sqlite",)


async def test_from_project_resolves_speakers_media_and_choices(services, actor):
    story = await small_story(services, actor)
    image = await services.assets.import_asset(actor, story.project_id, "background", "Sky", TINY_PNG)
    tune = await services.assets.import_asset(actor, story.project_id, "music", "Tune", TINY_WAV)
    await services.chapters.set_chapter_music(actor, story.chapter_id, tune.id)
    await services.scenes.set_scene_background(actor, story.first_scene_id, image.id)
    await services.lines.add_line(actor, story.first_scene_id, "Hello.", story.hero_id)
    await services.lines.add_line(actor, story.first_scene_id, "Wind blows.")
    await services.scenes.set_choices(
        actor, story.first_scene_id, [ChoiceSpec("Go on", story.second_scene_id)]
    )
    await services.scenes.update_scene(actor, story.second_scene_id, is_ending=True)

    played = from_project(await services.reads.project_data(actor, story.project_id))

    assert played.title == "Test Story"
    assert played.start_scene_id == story.first_scene_id
    first = played.scene(story.first_scene_id)
    assert first.background_asset_id == image.id
    assert first.music_asset_id == tune.id  # the chapter's music plays in the scene
    hero_color = first.lines[0].color
    assert first.lines == [PlayLine("Hero", hero_color, "Hello."), PlayLine(None, None, "Wind blows.")]
    assert first.choices == [PlayChoice("Go on", story.second_scene_id)]
    assert played.scene(story.second_scene_id).is_ending
    assert played.scene("scn_missing") is None


async def test_a_deleted_target_or_asset_is_not_offered(services, actor):
    story = await small_story(services, actor)
    image = await services.assets.import_asset(actor, story.project_id, "background", "Sky", TINY_PNG)
    await services.scenes.set_scene_background(actor, story.first_scene_id, image.id)
    await services.scenes.set_choices(
        actor, story.first_scene_id, [ChoiceSpec("Go on", story.second_scene_id)]
    )
    await services.scenes.delete_scene(actor, story.second_scene_id)
    await services.assets.delete_asset(actor, image.id)

    first = from_project(await services.reads.project_data(actor, story.project_id)).scene(
        story.first_scene_id
    )

    assert first.choices == [PlayChoice("Go on", None)]
    assert first.background_asset_id is None


async def test_the_published_snapshot_plays_like_the_project(services, author, actor):
    project, _ = await seed_demo(services, author.id)
    data = await services.reads.project_data(actor, project.id)
    await services.publishing.publish_project(actor, project.id)
    snapshot = await services.publishing.published_snapshot(
        (await services.projects.get_project(actor, project.id)).share_id
    )

    live, frozen = from_project(data), from_snapshot(snapshot)

    assert frozen.title == live.title == TITLE
    assert [s.id for s in frozen.scenes] == [s.id for s in live.scenes]
    for mine, theirs in zip(live.scenes, frozen.scenes, strict=True):
        assert (mine.lines, mine.choices, mine.is_ending) == (theirs.lines, theirs.choices, theirs.is_ending)
        assert (mine.background_asset_id, mine.music_asset_id) == (
            theirs.background_asset_id,
            theirs.music_asset_id,
        )
    assert frozen.start_scene_id == live.start_scene_id
