"""What a room's rules read inside a transaction, on SQLite and PostgreSQL: chapters in story
order, a command's revisions, and where an entity lies now or last lay (in a session, and in a
write on the driver)."""

from __future__ import annotations

import dataclasses
from datetime import timedelta

import pytest

from romergo.services import Services
from storage.channels import DatabaseChannelLedger, RecordedRevision
from storage.channels.places import PlacesOnDriver
from tests.storage.ledgers.channel_rows import NOW, a_command, a_revision, a_room, a_scene


async def test_chapters_come_in_story_order_and_from_their_project_only(services: Services):
    ledger = DatabaseChannelLedger(services.db)
    room = await a_room(services.db)
    await a_room(services.db, "rival")

    async with services.db.read() as session:
        order = await ledger.room_reads(session).chapter_order(room.project_id)

    assert order == ["early-writer", "late-writer"]


async def test_a_commands_revisions_are_frozen_records_oldest_first(services: Services):
    ledger, room = DatabaseChannelLedger(services.db), await a_room(services.db)
    command = await a_command(services.db, room, 1)
    later = NOW + timedelta(minutes=1)
    await a_revision(services.db, room, ("scene", "s1"), None, {"title": "Dawn"}, command)
    await a_revision(services.db, room, ("scene", "s1"), {"title": "Dawn"}, {"title": "Dusk"}, command, later)
    await a_revision(services.db, room, ("scene", "s2"), None, {"title": "Not this command's"})

    async with services.db.read() as session:
        revisions = await ledger.room_reads(session).command_revisions(command)

    assert [(r.action, r.before, r.after) for r in revisions] == [
        ("create", None, {"title": "Dawn"}),
        ("update", {"title": "Dawn"}, {"title": "Dusk"}),
    ]
    assert all(isinstance(r, RecordedRevision) and r.tool == "romergo_update_scene" for r in revisions)
    with pytest.raises(dataclasses.FrozenInstanceError):
        revisions[0].action = "delete"  # type: ignore[misc]


async def test_a_command_without_revisions_has_none(services: Services):
    ledger, room = DatabaseChannelLedger(services.db), await a_room(services.db)
    async with services.db.read() as session:
        assert await ledger.room_reads(session).command_revisions(await a_command(services.db, room, 1)) == []


async def test_a_deleted_entity_lies_where_its_last_revision_put_it(services: Services):
    ledger, room = DatabaseChannelLedger(services.db), await a_room(services.db)
    await a_scene(services.db, room, "harbour", "early-writer")
    await a_revision(services.db, room, ("scene", "cliff"), None, {"chapter_id": "early-writer"})
    moved = NOW + timedelta(minutes=1)
    await a_revision(
        services.db,
        room,
        ("scene", "cliff"),
        {"chapter_id": "early-writer"},
        {"chapter_id": "late-writer"},
        at=moved,
    )
    await a_revision(services.db, room, ("scene", "gone"), {"chapter_id": "late-writer"}, None, at=moved)

    async with services.db.read() as session:
        reads = ledger.room_reads(session)
        found = await reads.parents_now_or_recorded(
            room.project_id, "scene", {"harbour", "cliff", "gone", "never-was"}, "chapter_id"
        )
        assert await reads.parents_now_or_recorded(room.project_id, "scene", set(), "chapter_id") == {}

    assert found == {"harbour": "early-writer", "cliff": "late-writer", "gone": "late-writer"}

    ids = {"harbour", "cliff", "gone", "never-was"}
    on_driver = await services.db.write_rows(
        lambda rows: PlacesOnDriver(rows).parents_now_or_recorded(room.project_id, "scene", ids, "chapter_id")
    )
    assert on_driver == found  # a post reads them inside its write, one by one


async def test_another_projects_entity_is_not_found_in_this_one(services: Services):
    ledger = DatabaseChannelLedger(services.db)
    room, other = await a_room(services.db), await a_room(services.db, "rival")
    await a_scene(services.db, other, "their-scene", "early-rival")

    async with services.db.read() as session:
        found = await ledger.room_reads(session).parents_now_or_recorded(
            room.project_id, "scene", {"their-scene"}, "chapter_id"
        )
    on_driver = await services.db.write_rows(
        lambda rows: PlacesOnDriver(rows).parents_now_or_recorded(
            room.project_id, "scene", {"their-scene"}, "chapter_id"
        )
    )

    assert found == on_driver == {}
