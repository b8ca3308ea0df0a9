"""The story ledger's transaction, what the unit of work itself reads and writes, on both databases:
which project an entity lies in, the project's stamp, revisions written and read back, an agent's
read mark against the newest revision, and entities written many at a time."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from storage.story.ledger import DatabaseStoryLedger
from tests.support.statements import counting
from tests.support.story import revisions, small_story

WHEN = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)


def _revision(project_id: str, entity_id: str, before: Any, after: Any) -> dict[str, Any]:
    return {
        "project_id": project_id,
        "entity_type": "character",
        "entity_id": entity_id,
        "action": "updated",
        "before": before,
        "after": after,
        "actor_type": "user",
        "actor_id": "usr_someone",
        "command_id": None,
        "tool": None,
        "client_id": "client-one",
        "created_at": WHEN,
        "batch_id": "bat_one",
        "reverts": None,
    }


async def test_an_entity_is_found_with_its_project_and_the_askers_role_in_one_statement(services, actor):
    story = await small_story(services, actor)
    ledger = DatabaseStoryLedger(services.db)
    async with services.db.write() as session:
        writes = ledger.within(session)
        with counting(services) as seen:
            held = await writes.project_holding("scene", story.first_scene_id, actor.user_id)
            scene = await writes.scene(story.first_scene_id)
        assert seen.count == 1, seen
        assert held is not None and held.role == "owner"
        project = held.project
        assert project.id == story.project_id
        assert project.owner_id == actor.user_id and project.deleted_at is None
        assert scene is not None and scene.project_id == story.project_id
        assert (await writes.project_holding("character", story.hero_id, actor.user_id)) == held
        assert (await writes.project_holding("project", story.project_id, actor.user_id)) == held
        assert await writes.project_holding("scene", "scn_missing", actor.user_id) is None
        assert await writes.project_holding("character", story.first_scene_id, actor.user_id) is None
        stranger = await writes.project_holding("scene", story.first_scene_id, "usr_stranger")
        assert stranger is not None and stranger.project == project and stranger.role is None


async def test_the_project_is_stamped_and_the_transaction_sees_the_stamp(services, actor):
    story = await small_story(services, actor)
    ledger = DatabaseStoryLedger(services.db)
    async with services.db.write() as session:
        writes = ledger.within(session)
        before = await writes.project(story.project_id)
        assert before is not None and before.updated_at != WHEN
        stamped = await writes.touch_project(story.project_id, WHEN)
        assert stamped.id == story.project_id and stamped.updated_at == WHEN
        assert await writes.project(story.project_id) == stamped
    async with services.db.read() as session:
        assert await ledger.within(session).project(story.project_id) == stamped


async def test_revisions_are_written_in_order_and_read_back(services, actor):
    story = await small_story(services, actor)
    ledger = DatabaseStoryLedger(services.db)
    async with services.db.write() as session:
        writes = ledger.within(session)
        await writes.write_revisions([])
        with counting(services) as seen:
            await writes.write_revisions(
                [
                    _revision(story.project_id, story.hero_id, {"name": "Hero"}, {"name": "Ada"}),
                    _revision(story.project_id, story.hero_id, {"name": "Ada"}, {"name": "Bea"}),
                ]
            )
        assert seen.count == 1, seen
    written = [r for r in await revisions(services, story.project_id) if r.batch_id == "bat_one"]
    first, second = (r.id for r in written)
    assert first is not None and second is not None and first < second
    async with services.db.read() as session:
        reads = ledger.within(session)
        newest = await reads.newest_revision(story.project_id, "character", story.hero_id)
        assert newest is not None and newest.id == second
        assert (newest.after, newest.client_id, newest.created_at) == ({"name": "Bea"}, "client-one", WHEN)
        assert await reads.latest_revisions(story.project_id, ("character",), [story.hero_id]) == {
            story.hero_id: second
        }
        assert await reads.snapshot_at(story.project_id, "character", story.hero_id, first) == {"name": "Ada"}
        assert await reads.snapshot_at(story.project_id, "character", story.hero_id, second) is None
        assert await reads.newest_revision(story.project_id, "character", "chr_missing") is None
        assert await reads.newest_revision("prj_missing", "character", story.hero_id) is None


async def test_an_agents_read_mark_is_read_with_the_newest_revision(services, actor):
    story = await small_story(services, actor)
    ledger = DatabaseStoryLedger(services.db)
    async with services.db.read() as session:
        newest = (await ledger.within(session).latest_revisions(story.project_id, ("scene",)))[
            story.first_scene_id
        ]
        reads = ledger.within(session)
        assert await reads.mark_and_newest("client-one", story.project_id, "scene", story.first_scene_id) == (
            None,
            newest,
        )
    await ledger.remember_reads("client-one", {story.first_scene_id: newest - 1})
    async with services.db.read() as session:
        reads = ledger.within(session)
        assert await reads.mark_and_newest("client-one", story.project_id, "scene", story.first_scene_id) == (
            newest - 1,
            newest,
        )
        assert await reads.mark_and_newest("client-one", story.project_id, "scene", "scn_missing") == (
            None,
            None,
        )


async def test_entities_are_added_and_changed_many_in_one_statement(services, actor):
    story = await small_story(services, actor)
    ledger = DatabaseStoryLedger(services.db)
    lines = [
        {
            "id": f"dln_bulk{n}",
            "project_id": story.project_id,
            "scene_id": story.first_scene_id,
            "position": 10 + n,
            "character_id": None,
            "text": f"Line {n}",
            "condition": None,
            "created_at": WHEN,
            "updated_at": WHEN,
        }
        for n in range(3)
    ]
    async with services.db.write() as session:
        writes = ledger.within(session)
        await writes.insert_rows("dialogue_line", [])
        await writes.update_rows("dialogue_line", [])
        with counting(services) as seen:
            await writes.insert_rows("dialogue_line", lines)
        assert seen.count == 1, seen
    async with services.db.write() as session:
        writes = ledger.within(session)
        changed = [{"id": f"dln_bulk{n}", "text": f"Changed {n}", "updated_at": WHEN} for n in (0, 2)]
        with counting(services) as seen:
            await writes.update_rows("dialogue_line", changed)
        assert seen.count == 1, seen
    async with services.db.read() as session:
        reads = ledger.within(session)
        texts = [
            (line.id, line.text) for line in await reads.lines_of(story.first_scene_id) if line.position >= 10
        ]
        assert texts == [("dln_bulk0", "Changed 0"), ("dln_bulk1", "Line 1"), ("dln_bulk2", "Changed 2")]
