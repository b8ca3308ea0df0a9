"""Invitations to a story: the owner makes a one-time link for an editor or a viewer; whoever
opens it signed in joins in that role. Every bad case is refused with a clear error and changes
nothing."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from datetime import timedelta

import pytest

from romergo.common.actors import Actor, user_actor
from romergo.common.errors import RomergoError
from romergo.common.ids import sha256_hex
from romergo.services import Services
from romergo.story.invitations import (
    EXPIRED,
    NOT_YOURS,
    REVOKED,
    STORY_GONE,
    UNKNOWN,
    USED,
)
from tests.support.story import database_state

DATABASES = ("sqlite",)  # the rules are the core's; the ledger's contract tests run on both


async def _account(services: Services, name: str) -> Actor:
    user = await services.accounts.create_user(name)
    return user_actor(user.id, user.username)


async def _roles(services: Services, actor: Actor, project_id: str) -> list[tuple[str, str]]:
    return [(found.username, found.role.value) for found in await services.members.members(actor, project_id)]


async def test_whoever_opens_the_link_joins_in_its_role_once(services, actor):
    project = await services.projects.create_project(actor, "Tides")
    ada = await _account(services, "ada")

    made = await services.invitations.invite(actor, project.id, "editor")

    assert made.path == f"/invitations/{made.secret}"
    assert (made.invitation.role.value, made.invitation.invited_by) == ("editor", "writer")
    assert made.invitation.expires_at - made.invitation.created_at == timedelta(days=7)
    opened = await services.invitations.opened(ada, made.secret)
    assert (opened.story_title, opened.invitation.invited_by, opened.invitation.role.value) == (
        "Tides",
        "writer",
        "editor",
    )
    joined = await services.invitations.accept(ada, made.secret)
    assert joined.invitation.project_id == project.id
    assert await _roles(services, actor, project.id) == [("writer", "owner"), ("ada", "editor")]
    assert await services.invitations.open_invitations(actor, project.id) == []


async def test_only_the_secrets_digest_is_kept(services, actor):
    project = await services.projects.create_project(actor, "Tides")
    made = await services.invitations.invite(actor, project.id, "viewer")
    rows = (await database_state(services))["invitations"]
    assert made.secret not in repr(rows)
    assert sha256_hex(made.secret) in repr(rows)


async def test_the_owner_lists_open_invitations_and_revokes_one(services, actor):
    project = await services.projects.create_project(actor, "Tides")
    await _account(services, "ada")
    first = await services.invitations.invite(actor, project.id, "viewer", "ada")
    second = await services.invitations.invite(actor, project.id, "editor")

    listed = await services.invitations.open_invitations(actor, project.id)
    assert [(found.invitation_id, found.for_username) for found in listed] == [
        (first.invitation.invitation_id, "ada"),
        (second.invitation.invitation_id, None),
    ]
    await services.invitations.revoke(actor, first.invitation.invitation_id)
    listed = await services.invitations.open_invitations(actor, project.id)
    assert [found.invitation_id for found in listed] == [second.invitation.invitation_id]
    with pytest.raises(RomergoError) as again:
        await services.invitations.revoke(actor, first.invitation.invitation_id)
    assert again.value.code == "conflict"


async def _opened_by_a_second_account(services: Services, actor: Actor, case: str) -> tuple[Actor, str]:
    """The invitation of the case, and who opens it, the story set up as the case needs."""
    project = await services.projects.create_project(actor, "Tides")
    ada = await _account(services, "ada")
    await _account(services, "bo")
    made = await services.invitations.invite(actor, project.id, "editor", "bo" if case == "wrong" else None)
    if case == "used":
        bo = await _account(services, "cy")
        await services.invitations.accept(bo, made.secret)
    elif case == "revoked":
        await services.invitations.revoke(actor, made.invitation.invitation_id)
    elif case == "member":
        await services.members.add_member(actor, project.id, "ada", "viewer")
    elif case == "deleted":
        await services.projects.delete_project(actor, project.id)
    return ada, {"forged": made.secret[:-2] + "xx", "empty": ""}.get(case, made.secret)


REFUSED_TO_OPEN = {
    "used": ("conflict", USED),
    "revoked": ("conflict", REVOKED),
    "forged": ("not_found", UNKNOWN),
    "empty": ("not_found", UNKNOWN),
    "wrong": ("permission_denied", NOT_YOURS),
    "member": ("conflict", 'You are already a member of "Tides".'),
    "deleted": ("not_found", STORY_GONE),
}


@pytest.mark.parametrize("case", sorted(REFUSED_TO_OPEN))
async def test_a_link_that_admits_nobody_is_refused_and_changes_nothing(services, actor, case):
    ada, secret = await _opened_by_a_second_account(services, actor, case)
    before = await database_state(services)
    for attempt in (services.invitations.opened, services.invitations.accept):
        with pytest.raises(RomergoError) as refused:
            await attempt(ada, secret)
        assert (refused.value.code, refused.value.message) == REFUSED_TO_OPEN[case]
    assert await database_state(services) == before


async def test_an_expired_link_is_refused_and_changes_nothing(services, actor):
    project = await services.projects.create_project(actor, "Tides")
    ada = await _account(services, "ada")
    expired = replace(services.invitations, days=0)
    made = await expired.invite(actor, project.id, "viewer")
    before = await database_state(services)
    with pytest.raises(RomergoError) as refused:
        await expired.accept(ada, made.secret)
    assert (refused.value.code, refused.value.message) == ("conflict", EXPIRED)
    assert await database_state(services) == before
    assert await expired.open_invitations(actor, project.id) == []


async def test_the_owner_is_not_invited_nor_an_unknown_account(services, actor):
    project = await services.projects.create_project(actor, "Tides")
    before = await database_state(services)
    for role, username, code in (("owner", None, "invalid_argument"), ("boss", None, "invalid_argument"),
                                 ("editor", "nobody", "not_found")):  # fmt: skip
        with pytest.raises(RomergoError) as refused:
            await services.invitations.invite(actor, project.id, role, username)
        assert refused.value.code == code
    assert await database_state(services) == before


@pytest.mark.parametrize("role", ("editor", "viewer"))
async def test_only_the_owner_invites_lists_and_revokes(services, actor, role):
    project = await services.projects.create_project(actor, "Tides")
    member = await _account(services, "ada")
    await services.members.add_member(actor, project.id, "ada", role)
    made = await services.invitations.invite(actor, project.id, "viewer")
    before = await database_state(services)
    for attempt in (
        services.invitations.invite(member, project.id, "viewer"),
        services.invitations.open_invitations(member, project.id),
        services.invitations.revoke(member, made.invitation.invitation_id),
    ):
        with pytest.raises(RomergoError) as refused:
            await attempt
        assert refused.value.code == "permission_denied"
    assert await database_state(services) == before


async def test_someone_who_is_not_a_member_learns_nothing_of_the_invitations(services, actor):
    project = await services.projects.create_project(actor, "Tides")
    stranger = await _account(services, "stranger")
    made = await services.invitations.invite(actor, project.id, "viewer")
    for attempt in (
        services.invitations.invite(stranger, project.id, "viewer"),
        services.invitations.open_invitations(stranger, project.id),
    ):
        with pytest.raises(RomergoError) as refused:
            await attempt
        assert refused.value.code == "not_found"
    for invitation_id in (made.invitation.invitation_id, "inv_nosuch"):
        with pytest.raises(RomergoError) as unknown:
            await services.invitations.revoke(stranger, invitation_id)
        assert (unknown.value.code, unknown.value.message) == (
            "not_found",
            f'Invitation "{invitation_id}" not found.',
        )


async def test_a_link_for_one_account_admits_that_account(services, actor):
    project = await services.projects.create_project(actor, "Tides")
    bo = await _account(services, "bo")
    made = await services.invitations.invite(actor, project.id, "viewer", "bo")
    await services.invitations.accept(bo, made.secret)
    assert await _roles(services, actor, project.id) == [("writer", "owner"), ("bo", "viewer")]


@pytest.mark.parametrize("database", ["sqlite", "postgresql"], indirect=True)
async def test_two_people_opening_the_link_at_once_make_one_member(services, actor):
    project = await services.projects.create_project(actor, "Tides")
    ada, bo = await _account(services, "ada"), await _account(services, "bo")
    made = await services.invitations.invite(actor, project.id, "viewer")

    outcomes = await asyncio.gather(
        services.invitations.accept(ada, made.secret),
        services.invitations.accept(bo, made.secret),
        return_exceptions=True,
    )

    refused = [outcome for outcome in outcomes if isinstance(outcome, RomergoError)]
    assert [(error.code, error.message) for error in refused] == [("conflict", USED)]
    joined = "ada" if refused[0] is outcomes[1] else "bo"
    assert await _roles(services, actor, project.id) == [("writer", "owner"), (joined, "viewer")]


@pytest.mark.parametrize("database", ["sqlite", "postgresql"], indirect=True)
async def test_a_name_or_id_with_a_nul_is_unknown(services, actor):
    project = await services.projects.create_project(actor, "Tides")
    before = await database_state(services)
    for attempt in (
        services.invitations.invite(actor, project.id, "viewer", "a\x00b"),
        services.invitations.revoke(actor, "inv_\x00"),
        services.invitations.accept(actor, "a\x00b"),
    ):
        with pytest.raises(RomergoError) as refused:
            await attempt
        assert refused.value.code == "not_found"
    assert await database_state(services) == before
