"""The story ledger's writes of a new story's many rows, on both databases: scenes and choices
written at once are the records the transaction's reads give back, in their places."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from storage.story.ledger import DatabaseStoryLedger
from storage.story.records import ChapterRecord, ChoiceRecord, SceneRecord
from tests.support.story import small_story

WHEN = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)


def _scene(project_id: str, chapter_id: str, position: int, **marks: bool) -> SceneRecord:
    return SceneRecord(
        f"scn_{chapter_id}_{position}",
        project_id,
        chapter_id,
        f"Scene {position}",
        position,
        marks.get("is_start", False),
        marks.get("is_ending", False),
        "ast_back" if position == 0 else None,
        None,
        "set gold = 1" if position == 1 else None,
        WHEN,
        WHEN,
    )


async def test_scenes_and_choices_written_at_once_are_read_back_in_their_places(services, actor):
    story = await small_story(services, actor)
    ledger = DatabaseStoryLedger(services.db)
    chapter = ChapterRecord("chp_many", story.project_id, "Many", 1, None, None, WHEN, WHEN)
    scenes = [_scene(story.project_id, chapter.id, n, is_start=n == 2, is_ending=n == 1) for n in range(3)]
    choices = [
        ChoiceRecord("cho_on", story.project_id, scenes[0].id, 0, "On", scenes[1].id, "gold > 0", None),
        ChoiceRecord("cho_lost", story.project_id, scenes[0].id, 1, "Lost", "scn_gone", None, "set gold = 2"),
        ChoiceRecord("cho_back", story.project_id, scenes[1].id, 0, "Back", story.first_scene_id, None, None),
    ]
    async with services.db.write() as session:
        writes = ledger.within(session)
        await writes.add_chapter(chapter)
        await writes.add_scenes(scenes)
        await writes.add_choices(choices)
        await writes.add_scenes([])
        await writes.add_choices([])
    async with services.db.read() as session:
        reads = ledger.within(session)
        assert await reads.scenes_of(chapter.id) == scenes
        assert await reads.scene(scenes[1].id) == scenes[1]
        assert await reads.choices_of(scenes[0].id) == choices[:2]
        assert await reads.choices_of(scenes[1].id) == choices[2:]
        assert await reads.choices_of(scenes[2].id) == []
        starts = sorted(s.id for s in await reads.start_scenes(story.project_id))
        assert starts == sorted([story.first_scene_id, scenes[2].id])
        # The rows of the story that was there stay as they were.
        assert [s.id for s in await reads.scenes_of(story.chapter_id)] == [
            story.first_scene_id,
            story.second_scene_id,
        ]


async def test_a_failed_transaction_writes_none_of_the_rows_written_at_once(services, actor):
    story = await small_story(services, actor)
    ledger = DatabaseStoryLedger(services.db)
    scene = _scene(story.project_id, story.chapter_id, 5)
    choice = ChoiceRecord("cho_away", story.project_id, scene.id, 0, "Away", None, None, None)
    with pytest.raises(RuntimeError):
        async with services.db.write() as session:
            writes = ledger.within(session)
            await writes.add_scenes([scene])
            await writes.add_choices([choice])
            raise RuntimeError("refused")
    async with services.db.read() as session:
        reads = ledger.within(session)
        assert await reads.scene(scene.id) is None
        assert await reads.choices_of(scene.id) == []
