"""The story ledger's invitations, on both databases: written and found by their secret's digest
with the names of who made them and whom they are for, listed while open, revoked once, and used
once: of two uses at once exactly one changes the invitation."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from datetime import UTC, datetime, timedelta

from romergo.common.actors import Actor
from romergo.services import Services
from storage.story.ledger import DatabaseStoryLedger
from storage.story.records import InvitationRecord

WHEN = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)


def _invitation(
    project_id: str, created_by: str, name: str, for_user_id: str | None = None
) -> InvitationRecord:
    return InvitationRecord(
        f"inv_{name}", project_id, "editor", f"digest-{name}", for_user_id,
        created_by, WHEN, WHEN + timedelta(days=7), None, None, None,
    )  # fmt: skip


async def _written(services: Services, *records: InvitationRecord) -> None:
    async with services.db.write() as session:
        writes = DatabaseStoryLedger(services.db).within(session)
        for record in records:
            await writes.add_invitation(record)


async def test_an_invitation_is_found_by_its_digest_with_the_names_and_listed_while_open(services, actor):
    project = await services.projects.create_project(actor, "Tides")
    ada = await services.accounts.create_user("ada")
    anyone, for_ada = (
        _invitation(project.id, actor.user_id, "anyone"),
        _invitation(project.id, actor.user_id, "ada", ada.id),
    )
    await _written(
        services, anyone, for_ada, replace(_invitation(project.id, actor.user_id, "old"), expires_at=WHEN)
    )
    async with services.db.read() as session:
        reads = DatabaseStoryLedger(services.db).within(session)
        found = await reads.invitation_with_secret("digest-ada")
        assert found is not None
        assert (found.invitation.id, found.inviter, found.invitee) == ("inv_ada", "writer", "ada")
        assert found.invitation.expires_at.replace(tzinfo=UTC) == WHEN + timedelta(days=7)
        assert await reads.invitation_with_secret("digest-nobody") is None
        assert (await reads.invitation("inv_anyone")) is not None
        assert await reads.invitation("inv_nobody") is None
        listed = await reads.open_invitations(project.id, WHEN + timedelta(minutes=1))
        assert [(named.invitation.id, named.invitee) for named in listed] == [
            ("inv_ada", "ada"),
            ("inv_anyone", None),
        ]


async def test_an_invitation_is_revoked_or_used_once(services, actor):
    project = await services.projects.create_project(actor, "Tides")
    ada = await services.accounts.create_user("ada")
    await _written(
        services, *(_invitation(project.id, actor.user_id, name) for name in ("one", "two", "late"))
    )
    later = WHEN + timedelta(hours=1)
    async with services.db.write() as session:
        writes = DatabaseStoryLedger(services.db).within(session)
        assert await writes.revoke_invitation("inv_one", later)
        assert not await writes.revoke_invitation("inv_one", later)
        assert not await writes.use_invitation("inv_one", ada.id, later)
        assert await writes.use_invitation("inv_two", ada.id, later)
        assert not await writes.use_invitation("inv_two", ada.id, later)
        assert not await writes.revoke_invitation("inv_two", later)
        assert not await writes.use_invitation("inv_late", ada.id, WHEN + timedelta(days=8))
        assert [named.invitation.id for named in await writes.open_invitations(project.id, later)] == [
            "inv_late"
        ]
        used = await writes.invitation("inv_two")
        assert used is not None and used.used_by == ada.id and used.used_at is not None


async def test_two_uses_at_once_change_the_invitation_once(
    services: Services, actor: Actor, database: str
) -> None:
    project = await services.projects.create_project(actor, "Tides")
    ada, bo = await services.accounts.create_user("ada"), await services.accounts.create_user("bo")
    await _written(services, _invitation(project.id, actor.user_id, "once"))
    both_read = asyncio.Barrier(2) if database == "postgresql" else None

    async def use(user_id: str) -> bool:
        # On PostgreSQL both transactions find it open before either uses it: a real race, which
        # the conditional UPDATE decides. SQLite's writers take turns, so there they cannot meet.
        async with services.db.write() as session:
            writes = DatabaseStoryLedger(services.db).within(session)
            found = await writes.invitation_with_secret("digest-once")
            assert found is not None
            if both_read is not None:
                assert found.invitation.used_at is None
                await both_read.wait()
            return await writes.use_invitation("inv_once", user_id, WHEN + timedelta(hours=1))

    outcomes = await asyncio.gather(use(ada.id), use(bo.id))

    assert sorted(outcomes) == [False, True]
    async with services.db.read() as session:
        used = await DatabaseStoryLedger(services.db).within(session).invitation("inv_once")
    assert used is not None and used.used_by == (ada.id if outcomes[0] is True else bo.id)
