"""The story ledger's members on both databases: a new project's owner is its one member, members
are added, given another role and removed, and every read on someone's behalf finds a project for
any of its members, with their role, and nothing for anyone else."""

from __future__ import annotations

from collections.abc import Awaitable
from dataclasses import replace
from datetime import UTC, datetime

from storage.story.ledger import DatabaseStoryLedger
from storage.story.records import HistoryQuery, MemberRecord
from tests.support.story import small_story

WHEN = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)


async def test_members_are_added_given_a_role_and_removed(services, actor):
    story = await small_story(services, actor)
    ada = await services.accounts.create_user("ada")
    ledger = DatabaseStoryLedger(services.db)
    added = MemberRecord(story.project_id, ada.id, "viewer", WHEN, actor.user_id)

    async with services.db.write() as session:
        writes = ledger.within(session)
        assert await writes.account_named("ada") == ada.id
        assert await writes.account_named("nobody") is None
        [owner] = await writes.members(story.project_id)
        assert (owner.username, owner.member.user_id, owner.member.role) == ("writer", actor.user_id, "owner")
        await writes.add_member(added)
        listed = await writes.members(story.project_id)
        assert [(m.username, m.member) for m in listed] == [
            ("ada", added),
            ("writer", owner.member),
        ]  # by when added
    async with services.db.write() as session:
        writes = ledger.within(session)
        await writes.set_role(story.project_id, ada.id, "editor")
        assert [m.member.role for m in await writes.members(story.project_id)] == ["editor", "owner"]
        held = await writes.projects_of(ada.id)
        assert [(h.project.id, h.role) for h in held] == [(story.project_id, "editor")]
    async with services.db.write() as session:
        writes = ledger.within(session)
        await writes.remove_member(story.project_id, ada.id)
    async with services.db.read() as session:
        reads = ledger.within(session)
        assert [m.username for m in await reads.members(story.project_id)] == ["writer"]
        assert await reads.projects_of(ada.id) == []


async def test_every_read_finds_the_project_for_a_member_and_nothing_for_anyone_else(services, actor):
    story = await small_story(services, actor)
    ada = await services.accounts.create_user("ada")
    stranger = await services.accounts.create_user("stranger")
    ledger = DatabaseStoryLedger(services.db)
    async with services.db.write() as session:
        await ledger.within(session).add_member(MemberRecord(story.project_id, ada.id, "viewer", WHEN, None))

    def reads(reader_id: str) -> list[Awaitable[object]]:
        return [
            ledger.scene(reader_id, story.first_scene_id),
            ledger.chapter(reader_id, story.chapter_id),
            ledger.whole_project(reader_id, story.project_id),
            ledger.project_with_media(reader_id, story.project_id),
            ledger.project_with_files(reader_id, story.project_id),
            ledger.chapter_ids(reader_id, story.project_id),
            ledger.project_with_revisions(reader_id, story.project_id, ("scene",), shape_only=True),
            ledger.latest_revisions(reader_id, story.project_id, ("scene",)),
            ledger.history(reader_id, story.project_id, HistoryQuery(limit=5)),
            ledger.titles(reader_id, story.project_id, [("scene", "title")]),
        ]

    for found in reads(ada.id):
        assert await found is not None
    for found in reads(stranger.id):
        assert await found is None
    whole = await ledger.whole_project(ada.id, story.project_id)
    assert whole is not None and whole.role == "viewer"
    held = await ledger.owner_of("scene", story.first_scene_id, ada.id)
    assert held is not None and held.role == "viewer"

    async with services.db.write() as session:
        writes = ledger.within(session)
        project = await writes.project(story.project_id)
        assert project is not None
        await writes.save_project(replace(project, deleted_at=WHEN))
    for found in reads(ada.id):
        assert await found is None
