"""Scenes: add, marks, move, delete, media slots and choices — exact revisions; bad input changes nothing."""

from __future__ import annotations

import pytest

from romergo.common.actors import user_actor
from romergo.common.errors import RomergoError
from romergo.story import ChoiceSpec
from tests.support.story import TINY_PNG, TINY_WAV, database_state, revisions, small_story

DATABASES = ("sqlite",)
"""The database side is the story ledger's contract, run on both (tests/storage/ledgers/test_story_*.py)."""


async def log_size(services, project_id):
    return len(await revisions(services, project_id))


async def written_since(services, project_id, seen):
    return (await revisions(services, project_id))[seen:]


async def scene_order(services, actor, chapter_id):
    outline = await services.chapters.chapter_outline(actor, chapter_id)
    return [(scene.title, scene.position) for scene in outline.scenes]


async def choices_of(services, actor, scene_id):
    view = await services.scenes.scene_view(actor, scene_id)
    return [(c.choice.label, c.choice.target_scene_id, c.choice.position) for c in view.choices]


async def test_the_first_scene_of_a_project_becomes_its_start(services, actor):
    project = await services.projects.create_project(actor, "Saga")
    one = await services.chapters.add_chapter(actor, project.id, "One")
    two = await services.chapters.add_chapter(actor, project.id, "Two")
    seen = await log_size(services, project.id)

    first = await services.scenes.add_scene(actor, two.id, "  Prologue ")
    second = await services.scenes.add_scene(actor, two.id, "Next")
    elsewhere = await services.scenes.add_scene(actor, one.id, "First of chapter one")

    assert (first.title, first.is_start, second.is_start, elsewhere.is_start) == (
        "Prologue",
        True,
        False,
        False,
    )
    written = await written_since(services, project.id, seen)
    assert [(r.entity_type, r.entity_id, r.action, r.before) for r in written] == [
        ("scene", first.id, "created", None),
        ("scene", second.id, "created", None),
        ("scene", elsewhere.id, "created", None),
    ]
    assert written[0].after == {
        "id": first.id,
        "project_id": project.id,
        "chapter_id": two.id,
        "title": "Prologue",
        "position": 0,
        "is_start": True,
        "is_ending": False,
        "background_asset_id": None,
        "music_asset_id": None,
        "choices": [],
    }
    assert (written[1].after["position"], written[1].after["is_start"]) == (1, False)
    assert written[2].after["position"] == 0


async def test_a_scene_inserted_at_a_position_pushes_the_others_down(services, actor):
    story = await small_story(services, actor)
    seen = await log_size(services, story.project_id)

    inserted = await services.scenes.add_scene(actor, story.chapter_id, "Interlude", position=1)
    await services.scenes.add_scene(actor, story.chapter_id, "Cold open", position=0)

    assert await scene_order(services, actor, story.chapter_id) == [
        ("Cold open", 0),
        ("Opening", 1),
        ("Interlude", 2),
        ("Closing", 3),
    ]
    written = await written_since(services, story.project_id, seen)
    assert [(r.action, r.after["title"], r.after["position"]) for r in written] == [
        ("created", "Interlude", 1),
        ("created", "Cold open", 0),
    ]
    assert inserted.is_start is False


async def test_bad_scene_input_is_refused_and_changes_nothing(services, actor):
    story = await small_story(services, actor)
    before = await database_state(services)

    for chapter_id, title, position, code in (
        (story.chapter_id, "", None, "invalid_argument"),
        (story.chapter_id, "z" * 201, None, "invalid_argument"),
        (story.chapter_id, "Fine", -3, "invalid_argument"),
        (story.chapter_id, "Fine", "2", "invalid_argument"),
        ("chp_nope", "Fine", None, "not_found"),
    ):
        with pytest.raises(RomergoError) as refused:
            await services.scenes.add_scene(actor, chapter_id, title, position)
        assert refused.value.code == code, (chapter_id, title, position)
    assert await database_state(services) == before


async def test_update_changes_only_the_given_fields(services, actor):
    story = await small_story(services, actor)
    seen = await log_size(services, story.project_id)

    scene = await services.scenes.update_scene(actor, story.second_scene_id, title="Finale")
    scene = await services.scenes.update_scene(actor, story.second_scene_id, is_ending=True)

    assert (scene.title, scene.is_ending, scene.is_start) == ("Finale", True, False)
    first, second = await written_since(services, story.project_id, seen)
    assert (first.entity_id, first.action) == (story.second_scene_id, "updated")
    assert (first.before["title"], first.after["title"]) == ("Closing", "Finale")
    assert first.before["is_ending"] is first.after["is_ending"] is False
    assert (second.before["is_ending"], second.after["is_ending"]) == (False, True)
    assert second.before["title"] == second.after["title"] == "Finale"

    unchanged = await database_state(services)
    await services.scenes.update_scene(actor, story.second_scene_id)
    await services.scenes.update_scene(actor, story.second_scene_id, title="Finale", is_ending=True)
    await services.scenes.update_scene(actor, story.first_scene_id, is_start=True)
    assert await database_state(services) == unchanged


async def test_marking_a_new_start_moves_the_mark_with_a_revision_for_each_scene(services, actor):
    story = await small_story(services, actor)
    other = await small_story(services, actor, "Other")
    seen = await log_size(services, story.project_id)
    seen_elsewhere = await log_size(services, other.project_id)

    await services.scenes.update_scene(actor, story.second_scene_id, is_start=True)

    old, new = await written_since(services, story.project_id, seen)
    assert (old.entity_id, old.action, old.before["is_start"], old.after["is_start"]) == (
        story.first_scene_id,
        "updated",
        True,
        False,
    )
    assert (new.entity_id, new.action, new.before["is_start"], new.after["is_start"]) == (
        story.second_scene_id,
        "updated",
        False,
        True,
    )
    data = await services.reads.project_data(actor, story.project_id)
    assert [s.id for s in data.scenes if s.is_start] == [story.second_scene_id]
    # Each project has its own start: the other project's is untouched.
    elsewhere = await services.reads.project_data(actor, other.project_id)
    assert [s.id for s in elsewhere.scenes if s.is_start] == [other.first_scene_id]
    assert await written_since(services, other.project_id, seen_elsewhere) == []


async def test_unmarking_the_start_leaves_the_story_without_one(services, actor):
    story = await small_story(services, actor)
    seen = await log_size(services, story.project_id)

    await services.scenes.update_scene(actor, story.first_scene_id, is_start=False)

    [revision] = await written_since(services, story.project_id, seen)
    assert (revision.entity_id, revision.before["is_start"], revision.after["is_start"]) == (
        story.first_scene_id,
        True,
        False,
    )
    problems = await services.reads.check_story(actor, story.project_id)
    assert "no_start_scene" in [p.code for p in problems]


async def test_bad_updates_change_nothing(services, actor):
    story = await small_story(services, actor)
    before = await database_state(services)

    for change in (
        {"is_start": "yes"},
        {"is_ending": 1},
        {"is_start": None, "is_ending": "false"},
        {"title": ""},
        {"title": 7},
        # A bad field spoils the whole update, even next to good ones.
        {"title": "Fine", "is_start": True, "is_ending": "yes"},
    ):
        with pytest.raises(RomergoError) as refused:
            await services.scenes.update_scene(actor, story.second_scene_id, **change)
        assert refused.value.code == "invalid_argument", change
    assert await database_state(services) == before


async def test_move_within_a_chapter_renumbers_it(services, actor):
    story = await small_story(services, actor)
    third = await services.scenes.add_scene(actor, story.chapter_id, "Coda")
    seen = await log_size(services, story.project_id)

    await services.scenes.move_scene(actor, story.first_scene_id, story.chapter_id, 2)

    assert await scene_order(services, actor, story.chapter_id) == [
        ("Closing", 0),
        ("Coda", 1),
        ("Opening", 2),
    ]
    [revision] = await written_since(services, story.project_id, seen)
    assert (revision.entity_id, revision.action) == (story.first_scene_id, "moved")
    assert (revision.before["position"], revision.after["position"]) == (0, 2)
    assert revision.before["chapter_id"] == revision.after["chapter_id"] == story.chapter_id

    unchanged = await database_state(services)
    await services.scenes.move_scene(actor, third.id, story.chapter_id, 1)
    assert await database_state(services) == unchanged


async def test_move_across_chapters_renumbers_both_sides(services, actor):
    story = await small_story(services, actor)
    middle = await services.scenes.add_scene(actor, story.chapter_id, "Middle", position=1)
    two = await services.chapters.add_chapter(actor, story.project_id, "Two")
    await services.scenes.add_scene(actor, two.id, "X")
    await services.scenes.add_scene(actor, two.id, "Y")
    seen = await log_size(services, story.project_id)

    moved = await services.scenes.move_scene(actor, middle.id, two.id, 1)

    assert (moved.chapter_id, moved.position) == (two.id, 1)
    assert await scene_order(services, actor, story.chapter_id) == [("Opening", 0), ("Closing", 1)]
    assert await scene_order(services, actor, two.id) == [("X", 0), ("Middle", 1), ("Y", 2)]
    [revision] = await written_since(services, story.project_id, seen)
    assert (revision.entity_id, revision.action) == (middle.id, "moved")
    assert (revision.before["chapter_id"], revision.before["position"]) == (story.chapter_id, 1)
    assert (revision.after["chapter_id"], revision.after["position"]) == (two.id, 1)


async def test_moving_the_last_scene_out_and_to_the_end_of_another_chapter(services, actor):
    story = await small_story(services, actor)
    two = await services.chapters.add_chapter(actor, story.project_id, "Two")
    await services.scenes.add_scene(actor, two.id, "X")
    seen = await log_size(services, story.project_id)

    await services.scenes.move_scene(actor, story.first_scene_id, two.id, 40)
    await services.scenes.move_scene(actor, story.second_scene_id, two.id, 0)

    assert await scene_order(services, actor, story.chapter_id) == []
    assert await scene_order(services, actor, two.id) == [("Closing", 0), ("X", 1), ("Opening", 2)]
    written = await written_since(services, story.project_id, seen)
    assert [
        (
            r.entity_id,
            r.action,
            r.before["chapter_id"],
            r.before["position"],
            r.after["chapter_id"],
            r.after["position"],
        )
        for r in written
    ] == [
        (story.first_scene_id, "moved", story.chapter_id, 0, two.id, 1),
        (story.second_scene_id, "moved", story.chapter_id, 0, two.id, 0),
    ]
    # Moving keeps the start mark where it was.
    assert written[0].before["is_start"] is written[0].after["is_start"] is True


async def test_bad_moves_change_nothing(services, actor):
    story = await small_story(services, actor)
    other = await small_story(services, actor, "Other")
    before = await database_state(services)

    for chapter_id, position, code in (
        (other.chapter_id, 0, "not_found"),
        ("chp_nope", 0, "not_found"),
        (story.chapter_id, -1, "invalid_argument"),
        (story.chapter_id, "1", "invalid_argument"),
    ):
        with pytest.raises(RomergoError) as refused:
            await services.scenes.move_scene(actor, story.first_scene_id, chapter_id, position)
        assert refused.value.code == code, (chapter_id, position)
    assert await database_state(services) == before


async def test_delete_takes_lines_and_choices_and_leaves_choices_into_it_dangling(services, actor):
    story = await small_story(services, actor)
    coda = await services.scenes.add_scene(actor, story.chapter_id, "Coda")
    line = await services.lines.add_line(actor, story.second_scene_id, "Goodbye.", story.hero_id)
    await services.scenes.set_choices(
        actor, story.second_scene_id, [ChoiceSpec("Again", story.first_scene_id)]
    )
    await services.scenes.set_choices(actor, story.first_scene_id, [ChoiceSpec("On", story.second_scene_id)])
    seen = await log_size(services, story.project_id)

    await services.scenes.delete_scene(actor, story.second_scene_id)

    [revision] = await written_since(services, story.project_id, seen)
    assert (revision.entity_type, revision.entity_id, revision.action, revision.after) == (
        "scene",
        story.second_scene_id,
        "deleted",
        None,
    )
    assert revision.before["title"] == "Closing"
    assert revision.before["lines"] == [
        {
            "id": line.id,
            "scene_id": story.second_scene_id,
            "position": 0,
            "character_id": story.hero_id,
            "text": "Goodbye.",
        }
    ]
    assert [(c["label"], c["target_scene_id"]) for c in revision.before["choices"]] == [
        ("Again", story.first_scene_id)
    ]

    assert await scene_order(services, actor, story.chapter_id) == [("Opening", 0), ("Coda", 1)]
    data = await services.reads.project_data(actor, story.project_id)
    assert data.lines == []
    assert [(c.scene_id, c.target_scene_id) for c in data.choices] == [
        (story.first_scene_id, story.second_scene_id)
    ]
    view = await services.scenes.scene_view(actor, story.first_scene_id)
    assert view.choices[0].target_title is None
    assert coda.id in {s.id for s in data.scenes}


async def test_deleting_a_missing_or_foreign_scene_is_not_found(services, actor):
    story = await small_story(services, actor)
    stranger = user_actor((await services.accounts.create_user("stranger")).id)
    before = await database_state(services)

    for who, scene_id in ((actor, "scn_nope"), (stranger, story.first_scene_id)):
        with pytest.raises(RomergoError) as refused:
            await services.scenes.delete_scene(who, scene_id)
        assert refused.value.code == "not_found"
    assert await database_state(services) == before


async def test_background_and_music_are_set_and_cleared(services, actor):
    story = await small_story(services, actor)
    backdrop = await services.assets.import_asset(actor, story.project_id, "background", "Sky", TINY_PNG)
    theme = await services.assets.import_asset(actor, story.project_id, "music", "Theme", TINY_WAV)
    tune = await services.assets.import_asset(actor, story.project_id, "music", "Tune", TINY_WAV)
    await services.chapters.set_chapter_music(actor, story.chapter_id, theme.id)
    seen = await log_size(services, story.project_id)

    await services.scenes.set_scene_background(actor, story.first_scene_id, backdrop.id)
    await services.scenes.set_scene_music(actor, story.first_scene_id, tune.id)
    view = await services.scenes.scene_view(actor, story.first_scene_id)
    assert (view.background.asset.id, view.background.source) == (backdrop.id, "scene")
    assert (view.music.asset.id, view.music.source) == (tune.id, "scene")

    await services.scenes.set_scene_music(actor, story.first_scene_id, None)
    view = await services.scenes.scene_view(actor, story.first_scene_id)
    assert (view.music.asset.id, view.music.source) == (theme.id, "chapter")

    written = await written_since(services, story.project_id, seen)
    assert [(r.entity_id, r.action) for r in written] == [(story.first_scene_id, "updated")] * 3
    assert (written[0].before["background_asset_id"], written[0].after["background_asset_id"]) == (
        None,
        backdrop.id,
    )
    assert (written[1].before["music_asset_id"], written[1].after["music_asset_id"]) == (None, tune.id)
    assert (written[2].before["music_asset_id"], written[2].after["music_asset_id"]) == (tune.id, None)
    assert written[2].after["background_asset_id"] == backdrop.id


async def test_scene_slots_refuse_the_wrong_kind_and_other_projects_assets(services, actor):
    story = await small_story(services, actor)
    other = await small_story(services, actor, "Other")
    backdrop = await services.assets.import_asset(actor, story.project_id, "background", "Sky", TINY_PNG)
    theme = await services.assets.import_asset(actor, story.project_id, "music", "Theme", TINY_WAV)
    foreign_backdrop = await services.assets.import_asset(
        actor, other.project_id, "background", "Far", TINY_PNG
    )
    foreign_theme = await services.assets.import_asset(actor, other.project_id, "music", "Far tune", TINY_WAV)
    before = await database_state(services)

    for call, asset_id, code in (
        (services.scenes.set_scene_background, theme.id, "invalid_argument"),
        (services.scenes.set_scene_music, backdrop.id, "invalid_argument"),
        (services.scenes.set_scene_background, foreign_backdrop.id, "not_found"),
        (services.scenes.set_scene_music, foreign_theme.id, "not_found"),
        (services.scenes.set_scene_background, "ast_nope", "not_found"),
    ):
        with pytest.raises(RomergoError) as refused:
            await call(actor, story.first_scene_id, asset_id)
        assert refused.value.code == code, (call.__name__, asset_id)
    assert await database_state(services) == before


async def test_set_choices_replaces_them_in_the_given_order(services, actor):
    story = await small_story(services, actor)
    coda = await services.scenes.add_scene(actor, story.chapter_id, "Coda")
    seen = await log_size(services, story.project_id)

    rows = await services.scenes.set_choices(
        actor,
        story.first_scene_id,
        [ChoiceSpec("Onward", story.second_scene_id), ChoiceSpec("Skip", coda.id)],
    )
    assert [(r.label, r.target_scene_id, r.position) for r in rows] == [
        ("Onward", story.second_scene_id, 0),
        ("Skip", coda.id, 1),
    ]
    await services.scenes.set_choices(
        actor,
        story.first_scene_id,
        [ChoiceSpec("  Skip ahead ", coda.id), ChoiceSpec("Onward", story.second_scene_id)],
    )

    assert await choices_of(services, actor, story.first_scene_id) == [
        ("Skip ahead", coda.id, 0),
        ("Onward", story.second_scene_id, 1),
    ]
    first, second = await written_since(services, story.project_id, seen)
    assert [(r.entity_type, r.entity_id, r.action) for r in (first, second)] == [
        ("scene", story.first_scene_id, "updated")
    ] * 2
    assert first.before["choices"] == []
    assert first.after["choices"] == [
        {"id": rows[0].id, "label": "Onward", "target_scene_id": story.second_scene_id, "position": 0},
        {"id": rows[1].id, "label": "Skip", "target_scene_id": coda.id, "position": 1},
    ]
    assert second.before["choices"] == first.after["choices"]
    assert [(c["label"], c["position"]) for c in second.after["choices"]] == [
        ("Skip ahead", 0),
        ("Onward", 1),
    ]

    await services.scenes.set_choices(actor, story.first_scene_id, [])
    assert await choices_of(services, actor, story.first_scene_id) == []
    assert len(await written_since(services, story.project_id, seen)) == 3


async def test_setting_identical_choices_again_writes_nothing(services, actor):
    story = await small_story(services, actor)
    specs = [ChoiceSpec("Onward", story.second_scene_id), ChoiceSpec("Stay", story.first_scene_id)]
    rows = await services.scenes.set_choices(actor, story.first_scene_id, specs)
    seen = await log_size(services, story.project_id)
    before = await database_state(services)

    again = await services.scenes.set_choices(actor, story.first_scene_id, list(specs))

    assert await written_since(services, story.project_id, seen) == []
    # Nothing changed, so the choices keep their ids: the last revision still describes the scene.
    assert [r.id for r in again] == [r.id for r in rows]
    assert await database_state(services) == before


async def test_choices_into_another_project_are_refused_and_nothing_is_written(services, actor):
    story = await small_story(services, actor)
    other = await small_story(services, actor, "Other")
    await services.scenes.set_choices(
        actor, story.first_scene_id, [ChoiceSpec("Keep", story.second_scene_id)]
    )
    before = await database_state(services)

    for target in (other.first_scene_id, "scn_nope"):
        with pytest.raises(RomergoError) as refused:
            await services.scenes.set_choices(
                actor,
                story.first_scene_id,
                [ChoiceSpec("Fine", story.second_scene_id), ChoiceSpec("Away", target)],
            )
        assert refused.value.code == "not_found"
    assert await database_state(services) == before


async def test_at_most_twenty_choices(services, actor):
    story = await small_story(services, actor)
    twenty = [ChoiceSpec(f"Choice {n}", story.second_scene_id) for n in range(20)]
    seen = await log_size(services, story.project_id)

    await services.scenes.set_choices(actor, story.first_scene_id, twenty)
    assert len(await written_since(services, story.project_id, seen)) == 1
    before = await database_state(services)

    with pytest.raises(RomergoError) as refused:
        await services.scenes.set_choices(
            actor, story.first_scene_id, [*twenty, ChoiceSpec("One too many", story.second_scene_id)]
        )

    assert refused.value.code == "invalid_argument"
    assert "20" in refused.value.message
    assert await database_state(services) == before


async def test_bad_choice_labels_change_nothing(services, actor):
    story = await small_story(services, actor)
    await services.scenes.set_choices(
        actor, story.first_scene_id, [ChoiceSpec("Keep", story.second_scene_id)]
    )
    before = await database_state(services)

    for label in ("", "   ", "l" * 201, "two\nlines", None, "bell\x07"):
        with pytest.raises(RomergoError) as refused:
            await services.scenes.set_choices(
                actor,
                story.first_scene_id,
                [ChoiceSpec("Fine", story.second_scene_id), ChoiceSpec(label, None)],
            )
        assert refused.value.code == "invalid_argument", label
    assert await database_state(services) == before


async def test_a_scene_view_carries_the_records_a_transaction_reads(services, actor):
    """The view is read on the driver: its records hold what a transaction reads of each entity,
    value for value, with speakers, choice targets and the chapter's inherited music."""
    story = await small_story(services, actor)
    line = await services.lines.add_line(actor, story.first_scene_id, "Hello.", story.hero_id)
    await services.lines.add_line(actor, story.first_scene_id, "Narration.")
    backdrop = await services.assets.import_asset(actor, story.project_id, "background", "Sky", TINY_PNG)
    theme = await services.assets.import_asset(actor, story.project_id, "music", "Theme", TINY_WAV)
    await services.scenes.set_scene_background(actor, story.first_scene_id, backdrop.id)
    await services.chapters.set_chapter_music(actor, story.chapter_id, theme.id)
    await services.scenes.set_choices(
        actor, story.first_scene_id, [ChoiceSpec("On", story.second_scene_id), ChoiceSpec("Nowhere", None)]
    )
    await services.scenes.update_scene(actor, story.first_scene_id, is_ending=True)

    view = await services.scenes.scene_view(actor, story.first_scene_id)

    async with services.db.read() as session:
        story_reads = services.reads.ledger.within(session)
        stored = (
            await story_reads.project(view.project.id),
            await story_reads.chapter(view.chapter.id),
            await story_reads.scene(view.scene.id),
            *[await story_reads.character(character.id) for character in view.characters],
            await story_reads.asset(backdrop.id),
        )
    assert stored == (view.project, view.chapter, view.scene, *view.characters, view.background.asset)
    assert view.scene.is_ending is True and view.scene.created_at.tzinfo is not None
    assert [(lv.line.text, lv.speaker) for lv in view.lines] == [("Hello.", "Hero"), ("Narration.", None)]
    assert view.lines[0].line.id == line.id
    assert [(c.choice.label, c.target_title, c.target_chapter_id) for c in view.choices] == [
        ("On", "Closing", story.chapter_id),
        ("Nowhere", None, None),
    ]
    assert (view.background.asset and view.background.asset.id, view.background.source) == (
        backdrop.id,
        "scene",
    )
    assert (view.music.asset and view.music.asset.id, view.music.source) == (theme.id, "chapter")


@pytest.mark.parametrize("whose", ["missing", "not a string", "another author's", "in a deleted story"])
async def test_a_scene_view_of_a_scene_the_reader_cannot_see_is_not_found(services, actor, whose):
    story = await small_story(services, actor)
    stranger = user_actor((await services.accounts.create_user("stranger")).id, "stranger")
    reader = actor
    scene_id: object = story.first_scene_id
    if whose == "missing":
        scene_id = "scn_missing"
    elif whose == "not a string":
        scene_id = 42
    elif whose == "another author's":
        reader = stranger
    else:
        await services.projects.delete_project(actor, story.project_id)

    with pytest.raises(RomergoError) as refused:
        await services.scenes.scene_view(reader, scene_id)

    assert refused.value.code == "not_found"
    assert refused.value.message.startswith("Scene ")
