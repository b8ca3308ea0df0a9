"""Chapters: add, rename, move, music and background, delete: one revision each; bad input writes nothing."""

from __future__ import annotations

import pytest

from romergo.common.actors import user_actor
from romergo.common.bus import project_topic
from romergo.common.errors import RomergoError
from romergo.story import ChoiceSpec, StoryChanged
from tests.support.story import TINY_PNG, TINY_WAV, database_state, revisions, small_story

DATABASES = ("sqlite",)
"""The database side is the story ledger's contract, run on both (tests/storage/ledgers/test_story_*.py)."""


async def titles_in_order(services, actor, project_id):
    outline = await services.reads.outline(actor, project_id)
    return [(c.chapter.title, c.chapter.position) for c in outline.chapters]


async def log_size(services, project_id):
    return len(await revisions(services, project_id))


async def written_since(services, project_id, seen):
    return (await revisions(services, project_id))[seen:]


async def test_chapters_are_added_at_the_end_with_one_created_revision_each(services, actor):
    project = await services.projects.create_project(actor, "Saga")
    seen = await log_size(services, project.id)

    one = await services.chapters.add_chapter(actor, project.id, "  One  ")
    await services.chapters.add_chapter(actor, project.id, "Two")
    three = await services.chapters.add_chapter(actor, project.id, "Three")

    assert await titles_in_order(services, actor, project.id) == [("One", 0), ("Two", 1), ("Three", 2)]
    written = await written_since(services, project.id, seen)
    assert [(r.entity_type, r.action, r.before) for r in written] == [("chapter", "created", None)] * 3
    assert written[0].entity_id == one.id
    assert written[2].after == {
        "id": three.id,
        "project_id": project.id,
        "title": "Three",
        "position": 2,
        "music_asset_id": None,
        "background_asset_id": None,
    }


async def test_a_chapter_inserted_at_a_position_pushes_the_others_down(services, actor):
    project = await services.projects.create_project(actor, "Saga")
    for title in ("A", "B", "C"):
        await services.chapters.add_chapter(actor, project.id, title)
    seen = await log_size(services, project.id)

    inserted = await services.chapters.add_chapter(actor, project.id, "Inserted", position=1)

    assert inserted.position == 1
    assert await titles_in_order(services, actor, project.id) == [
        ("A", 0),
        ("Inserted", 1),
        ("B", 2),
        ("C", 3),
    ]
    [revision] = await written_since(services, project.id, seen)
    assert (revision.entity_id, revision.action, revision.before) == (inserted.id, "created", None)
    assert revision.after["position"] == 1


async def test_inserting_at_zero_and_past_the_end(services, actor):
    project = await services.projects.create_project(actor, "Saga")
    await services.chapters.add_chapter(actor, project.id, "Middle")
    seen = await log_size(services, project.id)

    await services.chapters.add_chapter(actor, project.id, "First", position=0)
    last = await services.chapters.add_chapter(actor, project.id, "Last", position=99)

    assert last.position == 2
    assert await titles_in_order(services, actor, project.id) == [("First", 0), ("Middle", 1), ("Last", 2)]
    written = await written_since(services, project.id, seen)
    assert [(r.action, r.before, r.after["title"], r.after["position"]) for r in written] == [
        ("created", None, "First", 0),
        ("created", None, "Last", 2),
    ]


BAD_CHAPTERS = [
    ("", None, "must not be empty"),
    ("x" * 201, None, "limit is 200"),
    ("Two\nlines", None, "single line"),
    ("Fine", -1, "0 or more"),
    ("Fine", True, "whole number"),
    ("Fine", "1", "whole number"),
]


async def test_bad_chapter_input_is_refused_and_changes_nothing(services, actor):
    story = await small_story(services, actor)
    before = await database_state(services)

    for title, position, message in BAD_CHAPTERS:
        with pytest.raises(RomergoError) as refused:
            await services.chapters.add_chapter(actor, story.project_id, title, position)
        assert refused.value.code == "invalid_argument", (title, position)
        assert message in refused.value.message, (title, position)
    assert await database_state(services) == before


async def test_adding_to_a_missing_or_foreign_project_is_not_found(services, actor):
    story = await small_story(services, actor)
    stranger = user_actor((await services.accounts.create_user("stranger")).id)
    before = await database_state(services)

    for who, project_id in ((actor, "prj_nope"), (stranger, story.project_id)):
        with pytest.raises(RomergoError) as refused:
            await services.chapters.add_chapter(who, project_id, "Sneaky")
        assert refused.value.code == "not_found"
    assert await database_state(services) == before


async def test_rename_records_before_and_after_and_the_same_title_writes_nothing(services, actor):
    story = await small_story(services, actor)
    seen = await log_size(services, story.project_id)

    renamed = await services.chapters.update_chapter(actor, story.chapter_id, "The Beginning")

    assert renamed.title == "The Beginning"
    [revision] = await written_since(services, story.project_id, seen)
    assert (revision.entity_type, revision.entity_id, revision.action) == (
        "chapter",
        story.chapter_id,
        "updated",
    )
    assert revision.before["title"] == "One"
    assert revision.after["title"] == "The Beginning"
    assert {k: v for k, v in revision.before.items() if k != "title"} == {
        k: v for k, v in revision.after.items() if k != "title"
    }

    unchanged = await database_state(services)
    await services.chapters.update_chapter(actor, story.chapter_id, " The Beginning ")
    assert await database_state(services) == unchanged


async def test_rename_with_a_bad_title_changes_nothing(services, actor):
    story = await small_story(services, actor)
    before = await database_state(services)

    for title in ("   ", "y" * 201, None):
        with pytest.raises(RomergoError) as refused:
            await services.chapters.update_chapter(actor, story.chapter_id, title)
        assert refused.value.code == "invalid_argument"
    with pytest.raises(RomergoError) as missing:
        await services.chapters.update_chapter(actor, "chp_nope", "Fine")
    assert missing.value.code == "not_found"
    assert await database_state(services) == before


async def test_move_reorders_and_records_one_moved_revision(services, actor):
    project = await services.projects.create_project(actor, "Saga")
    a = await services.chapters.add_chapter(actor, project.id, "A")
    await services.chapters.add_chapter(actor, project.id, "B")
    c = await services.chapters.add_chapter(actor, project.id, "C")
    seen = await log_size(services, project.id)

    await services.chapters.move_chapter(actor, c.id, 0)

    assert await titles_in_order(services, actor, project.id) == [("C", 0), ("A", 1), ("B", 2)]
    [revision] = await written_since(services, project.id, seen)
    assert (revision.entity_id, revision.action) == (c.id, "moved")
    assert (revision.before["position"], revision.after["position"]) == (2, 0)

    # Past the end means last; the current place is no move at all.
    await services.chapters.move_chapter(actor, a.id, 50)
    assert await titles_in_order(services, actor, project.id) == [("C", 0), ("B", 1), ("A", 2)]
    unchanged = await database_state(services)
    await services.chapters.move_chapter(actor, a.id, 2)
    assert await database_state(services) == unchanged
    assert len(await written_since(services, project.id, seen)) == 2


async def test_deleting_a_chapter_renumbers_the_rest_with_one_revision(services, actor):
    project = await services.projects.create_project(actor, "Saga")
    a = await services.chapters.add_chapter(actor, project.id, "A")
    await services.chapters.add_chapter(actor, project.id, "B")
    await services.chapters.add_chapter(actor, project.id, "C")
    await services.scenes.add_scene(actor, a.id, "Opening")
    seen = await log_size(services, project.id)

    await services.chapters.delete_chapter(actor, a.id)

    assert await titles_in_order(services, actor, project.id) == [("B", 0), ("C", 1)]
    [revision] = await written_since(services, project.id, seen)
    assert (revision.entity_id, revision.action) == (a.id, "deleted")
    assert [scene["title"] for scene in revision.before["scenes"]] == ["Opening"]


async def test_a_move_hands_back_the_chapter_as_it_is_now(services, actor):
    project = await services.projects.create_project(actor, "Saga")
    a = await services.chapters.add_chapter(actor, project.id, "A")
    await services.chapters.add_chapter(actor, project.id, "B")

    moved = await services.chapters.move_chapter(actor, a.id, 1)
    stayed = await services.chapters.move_chapter(actor, a.id, 1)

    assert (moved.position, moved.title) == (1, "A")
    assert moved.updated_at >= a.updated_at
    assert stayed == moved


async def test_move_with_a_bad_position_changes_nothing(services, actor):
    story = await small_story(services, actor)
    before = await database_state(services)

    for position in (-1, 1.5, "0", False):
        with pytest.raises(RomergoError) as refused:
            await services.chapters.move_chapter(actor, story.chapter_id, position)
        assert refused.value.code == "invalid_argument"
    assert await database_state(services) == before


async def test_chapter_music_and_background_are_set_and_cleared(services, actor):
    story = await small_story(services, actor)
    music = await services.assets.import_asset(actor, story.project_id, "music", "Theme", TINY_WAV)
    backdrop = await services.assets.import_asset(actor, story.project_id, "background", "Sky", TINY_PNG)
    seen = await log_size(services, story.project_id)

    await services.chapters.set_chapter_music(actor, story.chapter_id, music.id)
    await services.chapters.set_chapter_background(actor, story.chapter_id, backdrop.id)
    await services.chapters.set_chapter_music(actor, story.chapter_id, None)

    written = await written_since(services, story.project_id, seen)
    assert [(r.entity_type, r.entity_id, r.action) for r in written] == [
        ("chapter", story.chapter_id, "updated")
    ] * 3
    assert (written[0].before["music_asset_id"], written[0].after["music_asset_id"]) == (None, music.id)
    assert (written[1].before["background_asset_id"], written[1].after["background_asset_id"]) == (
        None,
        backdrop.id,
    )
    assert written[1].after["music_asset_id"] == music.id
    assert (written[2].before["music_asset_id"], written[2].after["music_asset_id"]) == (music.id, None)

    # The scenes of the chapter now inherit its background.
    view = await services.scenes.scene_view(actor, story.first_scene_id)
    assert (view.background.asset.id, view.background.source) == (backdrop.id, "chapter")
    assert (view.music.asset, view.music.source) == (None, None)

    unchanged = await database_state(services)
    await services.chapters.set_chapter_background(actor, story.chapter_id, backdrop.id)
    assert await database_state(services) == unchanged


async def test_chapter_slots_check_the_asset_kind_and_project(services, actor):
    story = await small_story(services, actor)
    other = await small_story(services, actor, "Other")
    music = await services.assets.import_asset(actor, story.project_id, "music", "Theme", TINY_WAV)
    sound = await services.assets.import_asset(actor, story.project_id, "sound", "Bell", TINY_WAV)
    backdrop = await services.assets.import_asset(actor, story.project_id, "background", "Sky", TINY_PNG)
    foreign = await services.assets.import_asset(actor, other.project_id, "music", "Elsewhere", TINY_WAV)
    gone = await services.assets.import_asset(actor, story.project_id, "music", "Gone", TINY_WAV)
    await services.assets.delete_asset(actor, gone.id)
    before = await database_state(services)

    for call, asset_id, code in (
        (services.chapters.set_chapter_music, backdrop.id, "invalid_argument"),
        (services.chapters.set_chapter_music, sound.id, "invalid_argument"),
        (services.chapters.set_chapter_background, music.id, "invalid_argument"),
        (services.chapters.set_chapter_music, foreign.id, "not_found"),
        (services.chapters.set_chapter_music, gone.id, "not_found"),
        (services.chapters.set_chapter_music, "ast_nope", "not_found"),
    ):
        with pytest.raises(RomergoError) as refused:
            await call(actor, story.chapter_id, asset_id)
        assert refused.value.code == code, (call.__name__, asset_id)
    assert await database_state(services) == before


async def test_delete_takes_scenes_lines_and_choices_and_remembers_them(services, actor):
    project = await services.projects.create_project(actor, "Saga")
    keep = await services.chapters.add_chapter(actor, project.id, "Keep")
    doomed = await services.chapters.add_chapter(actor, project.id, "Doomed")
    after_it = await services.chapters.add_chapter(actor, project.id, "After")
    hero = await services.characters.add_character(actor, project.id, "Hero")
    start = await services.scenes.add_scene(actor, keep.id, "Start")
    hall = await services.scenes.add_scene(actor, doomed.id, "Hall")
    vault = await services.scenes.add_scene(actor, doomed.id, "Vault")
    await services.lines.add_line(actor, hall.id, "Echoes.")
    await services.lines.add_line(actor, hall.id, "Who goes there?", hero.id)
    await services.scenes.set_choices(
        actor, hall.id, [ChoiceSpec("Down", vault.id), ChoiceSpec("Back", start.id)]
    )
    await services.scenes.set_choices(actor, start.id, [ChoiceSpec("Enter the hall", hall.id)])
    seen = await log_size(services, project.id)

    await services.chapters.delete_chapter(actor, doomed.id)

    [revision] = await written_since(services, project.id, seen)
    assert (revision.entity_type, revision.entity_id, revision.action, revision.after) == (
        "chapter",
        doomed.id,
        "deleted",
        None,
    )
    snapshot = revision.before
    assert (snapshot["title"], snapshot["position"]) == ("Doomed", 1)
    assert [s["title"] for s in snapshot["scenes"]] == ["Hall", "Vault"]
    hall_tree = snapshot["scenes"][0]
    assert [(line["text"], line["character_id"]) for line in hall_tree["lines"]] == [
        ("Echoes.", None),
        ("Who goes there?", hero.id),
    ]
    assert [(c["label"], c["target_scene_id"]) for c in hall_tree["choices"]] == [
        ("Down", vault.id),
        ("Back", start.id),
    ]
    assert snapshot["scenes"][1]["lines"] == [] and snapshot["scenes"][1]["choices"] == []

    data = await services.reads.project_data(actor, project.id)
    assert [(c.title, c.position) for c in sorted(data.chapters, key=lambda c: c.position)] == [
        ("Keep", 0),
        ("After", 1),
    ]
    assert [s.id for s in data.scenes] == [start.id]
    assert data.lines == []
    # The choice in the other chapter stays, pointing at a scene that is gone.
    [dangling] = data.choices
    assert (dangling.scene_id, dangling.target_scene_id) == (start.id, hall.id)
    problems = await services.reads.check_story(actor, project.id)
    assert [(p.code, p.scene_id) for p in problems if p.code == "dangling_target"] == [
        ("dangling_target", start.id)
    ]
    with pytest.raises(RomergoError) as refused:
        await services.scenes.scene_view(actor, hall.id)
    assert refused.value.code == "not_found"
    assert after_it.id in {c.id for c in data.chapters}


async def test_deleting_a_missing_or_foreign_chapter_is_not_found(services, actor):
    story = await small_story(services, actor)
    stranger = user_actor((await services.accounts.create_user("stranger")).id)
    before = await database_state(services)

    for who, chapter_id in ((actor, "chp_nope"), (stranger, story.chapter_id), (actor, "")):
        with pytest.raises(RomergoError) as refused:
            await services.chapters.delete_chapter(who, chapter_id)
        assert refused.value.code == "not_found"
    assert await database_state(services) == before


async def test_a_change_is_announced_after_the_commit_and_a_refusal_is_not(services, actor):
    story = await small_story(services, actor)
    heard: list[StoryChanged] = []
    services.bus.listen(project_topic(story.project_id), heard.append)

    with pytest.raises(RomergoError):
        await services.chapters.update_chapter(actor, story.chapter_id, "")
    assert heard == []

    await services.chapters.update_chapter(actor, story.chapter_id, "Renamed")
    [event] = heard
    assert event.project_id == story.project_id
    assert [(c.entity_type, c.entity_id, c.action) for c in event.changes] == [
        ("chapter", story.chapter_id, "updated")
    ]
    assert event.actor == actor


async def test_a_chapter_outline_carries_the_records_a_transaction_reads(services, actor):
    """Read on the driver: the chapter and its scenes in order, as a transaction reads them."""
    story = await small_story(services, actor)
    await services.scenes.update_scene(actor, story.second_scene_id, is_ending=True)

    outline = await services.chapters.chapter_outline(actor, story.chapter_id)

    assert [scene.id for scene in outline.scenes] == [story.first_scene_id, story.second_scene_id]
    async with services.db.read() as session:
        story_reads = services.reads.ledger.within(session)
        assert await story_reads.chapter(story.chapter_id) == outline.chapter
        assert await story_reads.scenes_of(story.chapter_id) == outline.scenes
    assert outline.scenes[1].is_ending is True and outline.chapter.updated_at.tzinfo is not None


@pytest.mark.parametrize("whose", ["missing", "not a string", "another author's", "in a deleted story"])
async def test_a_chapter_outline_the_reader_cannot_see_is_not_found(services, actor, whose):
    story = await small_story(services, actor)
    reader = actor
    chapter_id: object = story.chapter_id
    if whose == "missing":
        chapter_id = "chp_missing"
    elif whose == "not a string":
        chapter_id = None
    elif whose == "another author's":
        reader = user_actor((await services.accounts.create_user("stranger")).id, "stranger")
    else:
        await services.projects.delete_project(actor, story.project_id)

    with pytest.raises(RomergoError) as refused:
        await services.chapters.chapter_outline(reader, chapter_id)

    assert refused.value.code == "not_found"
    assert refused.value.message.startswith("Chapter ")
