"""The story ledger's transaction on both databases: records read and written in one unit of work,
what each read finds (and does not), and that its writes and the rows a unit of work still changes
itself are one story in one transaction."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime

import pytest

from romergo.story import ChoiceSpec
from storage.story.ledger import DatabaseStoryLedger
from storage.story.records import (
    ChapterRecord,
    CharacterRecord,
    ChoiceRecord,
    LineRecord,
    SceneRecord,
    VariableRecord,
)
from storage.tables import Character
from tests.support.story import small_story

WHEN = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)


async def test_a_character_is_added_read_saved_and_removed(services, actor):
    story = await small_story(services, actor)
    ledger = DatabaseStoryLedger(services.db)
    villain = CharacterRecord("chr_villain", story.project_id, "Villain", "#000000", WHEN, WHEN)

    async with services.db.write() as session:
        await ledger.within(session).add_character(villain)
    async with services.db.write() as session:
        writes = ledger.within(session)
        assert await writes.character(villain.id) == villain
        assert await writes.count_characters(story.project_id) == 2
        await writes.save_character(replace(villain, name="Rogue", color="#ffffff"))
    async with services.db.read() as session:
        reads = ledger.within(session)
        assert (await reads.character(villain.id)) == replace(villain, name="Rogue", color="#ffffff")
        assert sorted(c.name for c in await reads.characters(story.project_id)) == ["Hero", "Rogue"]
    async with services.db.write() as session:
        await ledger.within(session).remove_character(villain.id)
    async with services.db.read() as session:
        reads = ledger.within(session)
        assert await reads.character(villain.id) is None
        assert await reads.count_characters(story.project_id) == 1


async def test_reads_find_nothing_for_a_missing_id_and_saving_one_is_refused(services, actor):
    story = await small_story(services, actor)
    ledger = DatabaseStoryLedger(services.db)
    ghost = CharacterRecord("chr_missing", story.project_id, "Ghost", "#000000", WHEN, WHEN)
    async with services.db.write() as session:
        writes = ledger.within(session)
        for missing in ("chr_missing", ""):
            assert await writes.character(missing) is None
            assert await writes.variable(missing) is None
            assert await writes.scene(missing) is None
        assert await writes.characters("prj_missing") == []
        assert await writes.count_characters("prj_missing") == 0
        with pytest.raises(LookupError):
            await writes.save_character(ghost)


async def test_a_change_stated_as_a_record_is_the_row_the_same_transaction_holds(services, actor):
    """A service that still changes rows and one that writes records share one transaction."""
    story = await small_story(services, actor)
    ledger = DatabaseStoryLedger(services.db)
    async with services.db.write() as session:
        row = await session.get(Character, story.hero_id)
        assert row is not None
        writes = ledger.within(session)
        hero = await writes.character(story.hero_id)
        assert hero is not None
        await writes.save_character(replace(hero, name="Heroine"))
        assert row.name == "Heroine"
        row.color = "#123456"
        assert (await writes.character(story.hero_id)) == replace(hero, name="Heroine", color="#123456")


async def test_a_failed_transaction_writes_none_of_its_records(services, actor):
    story = await small_story(services, actor)
    ledger = DatabaseStoryLedger(services.db)
    gold = VariableRecord("var_gold", story.project_id, "gold", "number", 3, "", WHEN, WHEN)
    with pytest.raises(RuntimeError):
        async with services.db.write() as session:
            await ledger.within(session).add_variable(gold)
            raise RuntimeError("refused")
    async with services.db.read() as session:
        assert await ledger.within(session).variables(story.project_id) == []


async def test_variables_are_read_saved_and_removed_in_their_project_only(services, actor):
    story = await small_story(services, actor)
    other = await small_story(services, actor, "Other")
    ledger = DatabaseStoryLedger(services.db)
    gold = VariableRecord("var_gold", story.project_id, "gold", "number", 3, "Coins", WHEN, WHEN)
    key = VariableRecord("var_key", other.project_id, "has_key", "flag", False, "", WHEN, WHEN)
    async with services.db.write() as session:
        writes = ledger.within(session)
        await writes.add_variable(gold)
        await writes.add_variable(key)
    async with services.db.write() as session:
        writes = ledger.within(session)
        assert await writes.variables(story.project_id) == [gold]
        await writes.save_variable(replace(gold, initial=[1, "two"], description=""))
    async with services.db.write() as session:
        writes = ledger.within(session)
        assert await writes.variable(gold.id) == replace(gold, initial=[1, "two"], description="")
        await writes.remove_variable(gold.id)
        await writes.remove_variable("var_missing")  # nothing to take away
    async with services.db.read() as session:
        assert await ledger.within(session).variables(story.project_id) == []
        assert await ledger.within(session).variables(other.project_id) == [key]


async def test_the_scenes_where_a_character_speaks_are_named_once_each_in_story_order(services, actor):
    story = await small_story(services, actor)
    ledger = DatabaseStoryLedger(services.db)
    later = await services.chapters.add_chapter(actor, story.project_id, "Two")
    third = await services.scenes.add_scene(actor, later.id, "Aftermath")
    for scene_id in (third.id, story.second_scene_id, story.second_scene_id):
        await services.lines.add_line(actor, scene_id, "Hm.", story.hero_id)
    await services.lines.add_line(actor, story.first_scene_id, "Narration.")
    async with services.db.read() as session:
        reads = ledger.within(session)
        assert await reads.scenes_where_speaking(story.hero_id) == ["Closing", "Aftermath"]
        assert await reads.scenes_where_speaking("chr_missing") == []


async def test_what_mentions_a_variable_is_found_in_its_project_and_written_back(services, actor):
    story = await small_story(services, actor)
    other = await small_story(services, actor, "Other")
    ledger = DatabaseStoryLedger(services.db)
    for project_id in (story.project_id, other.project_id):
        await services.variables.add_variable(actor, project_id, "gold", "number")
    await services.scenes.update_scene(actor, story.second_scene_id, entry_effects="set gold = gold + 1")
    line = await services.lines.add_line(actor, story.first_scene_id, "Rich!", condition="gold > 2")
    await services.lines.add_line(actor, story.first_scene_id, "Plain.")
    await services.scenes.set_choices(
        actor,
        story.first_scene_id,
        [
            ChoiceSpec("Pay", story.second_scene_id, condition="gold > 0", effects="set gold = gold - 1"),
            ChoiceSpec("Walk", None),
        ],
    )
    await services.scenes.update_scene(actor, other.second_scene_id, entry_effects="set gold = 1")

    async with services.db.write() as session:
        writes = ledger.within(session)
        found = await writes.variable_mentions(story.project_id, "gold")
        assert [scene.id for scene in found.scenes] == [story.second_scene_id]
        assert [row.id for row in found.lines] == [line.id]
        assert [choice.label for choice in found.choices] == ["Pay"]
        assert (await writes.variable_mentions(story.project_id, "silver")).scenes == []
        choices = await writes.choices_of(story.first_scene_id)
        assert [choice.label for choice in choices] == ["Pay", "Walk"]
        await writes.save_choice(replace(choices[1], label="Stroll"))
        await writes.save_scene(replace(found.scenes[0], entry_effects=None))
        await writes.save_line(replace(found.lines[0], condition=None, text="Poor."))
    async with services.db.read() as session:
        reads = ledger.within(session)
        assert [choice.label for choice in await reads.choices_of(story.first_scene_id)] == ["Pay", "Stroll"]
        scene = await reads.scene(story.second_scene_id)
        assert scene is not None and scene.entry_effects is None
        assert [row.text for row in (await reads.variable_mentions(story.project_id, "gold")).lines] == []
        assert [s.id for s in (await reads.variable_mentions(other.project_id, "gold")).scenes] == [
            other.second_scene_id
        ]


async def test_lines_are_added_read_in_order_saved_and_removed_in_their_scene_only(services, actor):
    story = await small_story(services, actor)
    ledger = DatabaseStoryLedger(services.db)
    first, second = (
        LineRecord(f"lin_{n}", story.project_id, story.first_scene_id, n, None, f"Line {n}", None, WHEN, WHEN)
        for n in (0, 1)
    )
    async with services.db.write() as session:
        writes = ledger.within(session)
        await writes.add_line(second)
        await writes.add_line(first)
    async with services.db.write() as session:
        writes = ledger.within(session)
        assert await writes.lines_of(story.first_scene_id) == [first, second]
        assert await writes.lines_of(story.second_scene_id) == []
        await writes.save_line(replace(first, position=1, character_id=story.hero_id))
        await writes.save_line(replace(second, position=0, condition="gold > 1"))
    async with services.db.write() as session:
        writes = ledger.within(session)
        assert [(line.id, line.position) for line in await writes.lines_of(story.first_scene_id)] == [
            (second.id, 0),
            (first.id, 1),
        ]
        assert await writes.line(first.id) == replace(first, position=1, character_id=story.hero_id)
        await writes.remove_line(second.id)
        await writes.remove_line("lin_missing")
    async with services.db.read() as session:
        reads = ledger.within(session)
        assert await reads.line(second.id) is None
        assert await reads.line("") is None
        assert [line.id for line in await reads.lines_of(story.first_scene_id)] == [first.id]
        with pytest.raises(LookupError):
            await reads.save_line(second)


async def test_chapters_are_added_read_in_order_saved_and_removed_with_their_scenes(services, actor):
    story = await small_story(services, actor)
    ledger = DatabaseStoryLedger(services.db)
    epilogue = ChapterRecord("chp_epilogue", story.project_id, "Epilogue", 1, None, None, WHEN, WHEN)
    line = LineRecord("lin_last", story.project_id, story.second_scene_id, 0, None, "Bye", None, WHEN, WHEN)
    async with services.db.write() as session:
        writes = ledger.within(session)
        await writes.add_chapter(epilogue)
        await writes.add_line(line)
    async with services.db.write() as session:
        writes = ledger.within(session)
        first, second = await writes.chapters_of(story.project_id)
        assert (first.id, second) == (story.chapter_id, epilogue)
        assert [s.id for s in await writes.scenes_of(story.chapter_id)] == [
            story.first_scene_id,
            story.second_scene_id,
        ]
        await writes.save_chapter(replace(epilogue, position=0, title="Prologue", music_asset_id=None))
        await writes.save_chapter(replace(first, position=1))
        await writes.remove_scene(story.second_scene_id)
        await writes.remove_scene("scn_missing")
    async with services.db.write() as session:
        writes = ledger.within(session)
        assert [(c.id, c.title) for c in await writes.chapters_of(story.project_id)] == [
            (epilogue.id, "Prologue"),
            (story.chapter_id, first.title),
        ]
        assert await writes.scene(story.second_scene_id) is None
        assert await writes.line(line.id) is None
        assert await writes.chapters_of("prj_missing") == []
        for scene in await writes.scenes_of(story.chapter_id):
            await writes.remove_scene(scene.id)
        await writes.remove_chapter(story.chapter_id)
    async with services.db.read() as session:
        reads = ledger.within(session)
        assert await reads.chapter(story.chapter_id) is None
        assert await reads.scenes_of(story.chapter_id) == []
        assert [c.id for c in await reads.chapters_of(story.project_id)] == [epilogue.id]


async def test_scenes_and_their_choices_are_added_marked_and_removed(services, actor):
    story = await small_story(services, actor)
    ledger = DatabaseStoryLedger(services.db)
    side = SceneRecord(
        "scn_side", story.project_id, story.chapter_id, "Side", 2, False, False, None, None, None, WHEN, WHEN
    )
    back = ChoiceRecord("cho_back", story.project_id, side.id, 0, "Back", story.first_scene_id, None, None)
    async with services.db.write() as session:
        writes = ledger.within(session)
        assert await writes.has_scenes(story.project_id)
        assert not await writes.has_scenes("prj_missing")
        assert [s.id for s in await writes.start_scenes(story.project_id)] == [story.first_scene_id]
        await writes.add_scene(replace(side, is_start=True))
        await writes.add_choice(back)
    async with services.db.write() as session:
        writes = ledger.within(session)
        starts = sorted(s.id for s in await writes.start_scenes(story.project_id))
        assert starts == sorted([story.first_scene_id, side.id])
        assert await writes.choices_of(side.id) == [back]
        assert [s.id for s in await writes.scenes_of(story.chapter_id)][-1] == side.id
        await writes.remove_choice(back.id)
        await writes.remove_choice("cho_missing")
    async with services.db.read() as session:
        reads = ledger.within(session)
        assert await reads.choices_of(side.id) == []
        assert await reads.scene(side.id) == replace(side, is_start=True)


async def test_the_chapters_where_a_character_speaks_or_an_asset_is_shown(services, actor):
    story = await small_story(services, actor)
    ledger = DatabaseStoryLedger(services.db)
    line = LineRecord(
        "lin_hero", story.project_id, story.second_scene_id, 0, story.hero_id, "Hi", None, WHEN, WHEN
    )
    async with services.db.write() as session:
        writes = ledger.within(session)
        assert await writes.chapters_where_speaking(story.hero_id) == set()
        await writes.add_line(line)
        assert await writes.chapters_where_speaking(story.hero_id) == {story.chapter_id}
        assert await writes.chapters_where_speaking("chr_missing") == set()
        assert await writes.chapters_using(story.project_id, "ast_music") == set()
        scene = await writes.scene(story.second_scene_id)
        assert scene is not None
        await writes.save_scene(replace(scene, music_asset_id="ast_music"))
        assert await writes.chapters_using(story.project_id, "ast_music") == {story.chapter_id}
        assert await writes.chapters_using("prj_elsewhere", "ast_music") == set()
