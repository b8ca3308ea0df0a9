"""What undo asks of the story ledger's transaction, on both databases: any kind of entity read and
saved by its type, the entities lying in another in order, and the revisions of a change set, of
what took it back and of what came after."""

from __future__ import annotations

from dataclasses import replace

import pytest

from romergo.common.actors import agent_actor
from storage.story.ledger import DatabaseStoryLedger
from storage.story.records import AssetRecord, ChapterRecord, CharacterRecord, LineRecord, SceneRecord
from tests.support.story import TINY_PNG, revisions, small_story


async def test_an_entity_of_any_kind_is_read_by_its_type(services, actor):
    story = await small_story(services, actor)
    ledger = DatabaseStoryLedger(services.db)
    image = await services.assets.import_asset(actor, story.project_id, "background", "Dusk", TINY_PNG)
    await services.assets.delete_asset(actor, image.id)

    async with services.db.read() as session:
        reads = ledger.within(session)
        scene = await reads.entity("scene", story.first_scene_id)
        chapter = await reads.entity("chapter", story.chapter_id)
        hero = await reads.entity("character", story.hero_id)
        hidden = await reads.entity("asset", image.id)
        for missing in ("", "scn_missing"):
            assert await reads.entity("scene", missing) is None
        assert await reads.entity("dialogue_line", story.first_scene_id) is None  # ids keep their kind

    assert isinstance(scene, SceneRecord) and scene.title == "Opening"
    assert isinstance(chapter, ChapterRecord) and chapter.id == story.chapter_id
    assert isinstance(hero, CharacterRecord) and hero.name == "Hero"
    assert isinstance(hidden, AssetRecord) and hidden.deleted_at is not None  # deleted, still there


async def test_an_entity_saved_by_its_type_takes_the_records_values(services, actor):
    story = await small_story(services, actor)
    ledger = DatabaseStoryLedger(services.db)

    async with services.db.write() as session:
        writes = ledger.within(session)
        scene = await writes.entity("scene", story.first_scene_id)
        assert isinstance(scene, SceneRecord)
        await writes.save_entity("scene", replace(scene, title="Dawn", is_ending=True))
    async with services.db.read() as session:
        saved = await ledger.within(session).entity("scene", story.first_scene_id)

    assert saved == replace(scene, title="Dawn", is_ending=True)
    with pytest.raises(LookupError):
        async with services.db.write() as session:
            await ledger.within(session).save_entity("scene", replace(scene, id="scn_missing"))


async def test_what_lies_in_an_entity_comes_in_order_of_position(services, actor):
    story = await small_story(services, actor)
    ledger = DatabaseStoryLedger(services.db)
    first = await services.lines.add_line(actor, story.first_scene_id, "One.")
    second = await services.lines.add_line(actor, story.first_scene_id, "Two.")
    await services.lines.move_line(actor, second.id, 0)
    await services.lines.add_line(actor, story.second_scene_id, "Elsewhere.")

    async with services.db.read() as session:
        reads = ledger.within(session)
        lines = await reads.lying_in("dialogue_line", "scene_id", story.first_scene_id)
        scenes = await reads.lying_in("scene", "chapter_id", story.chapter_id)
        nothing = await reads.lying_in("dialogue_line", "scene_id", "scn_missing")

    assert all(isinstance(line, LineRecord) for line in lines)
    assert [(line.id, line.position) for line in lines] == [(second.id, 0), (first.id, 1)]
    assert [scene.id for scene in scenes] == [story.first_scene_id, story.second_scene_id]
    assert nothing == []


async def test_a_change_set_is_its_commands_or_its_writes_revisions_oldest_first(services, actor):
    story = await small_story(services, actor)
    ledger = DatabaseStoryLedger(services.db)
    agent = agent_actor(actor.user_id, "client-a", "Agent").for_tool("romergo_tool", "cmd_set")
    await services.scenes.update_scene(agent, story.first_scene_id, title="Dawn")
    line = await services.lines.add_line(agent, story.first_scene_id, "Hello.")
    stored = await revisions(services, story.project_id)
    batch = stored[-1].batch_id
    assert batch is not None

    async with services.db.read() as session:
        reads = ledger.within(session)
        by_command = await reads.change_set("command", "cmd_set")
        by_batch = await reads.change_set("batch", batch)
        assert await reads.change_set("command", "cmd_missing") == []

    assert [(r.entity_type, r.entity_id) for r in by_command] == [
        ("scene", story.first_scene_id),
        ("dialogue_line", line.id),
    ]
    assert by_command[0].id < by_command[1].id
    assert [r.entity_id for r in by_batch] == [line.id]
    assert by_command[0].after is not None and by_command[0].after["title"] == "Dawn"


async def test_what_took_a_set_back_and_what_changed_after_are_read(services, actor):
    story = await small_story(services, actor)
    ledger = DatabaseStoryLedger(services.db)
    agent = agent_actor(actor.user_id, "client-a", "Agent").for_tool("romergo_tool", "cmd_back")
    await services.scenes.update_scene(agent, story.first_scene_id, title="Dawn")
    async with services.db.read() as session:
        reads = ledger.within(session)
        assert await reads.reverted_by("command:cmd_back") is None
        [changed] = await reads.change_set("command", "cmd_back")
        assert await reads.changes_after(story.project_id, "scene", story.first_scene_id, changed.id) == []

    await services.scenes.update_scene(actor, story.first_scene_id, title="Dusk")
    await services.scenes.update_scene(actor, story.second_scene_id, title="Elsewhere")
    undone = await services.undo.undo(actor, "command:cmd_back", force=True)

    async with services.db.read() as session:
        reads = ledger.within(session)
        later = await reads.changes_after(story.project_id, "scene", story.first_scene_id, changed.id)
        assert await reads.reverted_by("command:cmd_back") == undone.batch_id
        assert await reads.reverted_by(f"batch:{undone.batch_id}") is None

    assert [r.after["title"] if r.after else None for r in later] == ["Dusk", "Opening"]
    assert {r.entity_id for r in later} == {story.first_scene_id}
    assert later[0].id < later[1].id
