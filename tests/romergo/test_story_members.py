"""A story's members: the owner adds, changes, removes and hands the story over; every bad case is
refused with a clear error and changes nothing."""

from __future__ import annotations

import pytest

from romergo.common.actors import Actor, user_actor
from romergo.common.errors import RomergoError
from romergo.demo.seed import seed_demo
from romergo.services import Services
from romergo.story import Member
from tests.support.story import database_state

DATABASES = ("sqlite",)  # the rules are the core's; the ledger's contract tests run on both


async def _account(services: Services, name: str) -> Actor:
    user = await services.accounts.create_user(name)
    return user_actor(user.id, user.username)


def _roles(members: list[Member]) -> list[tuple[str, str]]:
    return [(member.username, member.role.value) for member in members]


async def test_the_owner_adds_changes_and_removes_members(services, actor):
    project = await services.projects.create_project(actor, "Tides")
    ada = await _account(services, "ada")
    await _account(services, "bo")

    added = await services.members.add_member(actor, project.id, "ada", "editor")
    assert (added.username, added.role.value, added.added_by) == ("ada", "editor", actor.user_id)
    await services.members.add_member(actor, project.id, "bo", "viewer")
    assert _roles(await services.members.members(ada, project.id)) == [
        ("writer", "owner"),
        ("ada", "editor"),
        ("bo", "viewer"),
    ]

    changed = await services.members.change_role(actor, project.id, "ada", "viewer")
    assert changed.role.value == "viewer"
    await services.members.remove_member(actor, project.id, "bo")
    assert _roles(await services.members.members(actor, project.id)) == [
        ("writer", "owner"),
        ("ada", "viewer"),
    ]


async def test_handing_over_makes_the_heir_owner_and_the_old_owner_an_editor(services, actor):
    project = await services.projects.create_project(actor, "Tides")
    ada = await _account(services, "ada")
    await services.members.add_member(actor, project.id, "ada", "viewer")

    members = await services.members.hand_over(actor, project.id, "ada")

    assert _roles(members) == [("writer", "editor"), ("ada", "owner")]
    assert (await services.projects.get_project(ada, project.id)).owner_id == ada.user_id
    listed = await services.projects.projects_with_roles(actor)
    assert [(found.id, role.value) for found, role in listed] == [(project.id, "editor")]
    with pytest.raises(RomergoError) as refused:
        await services.projects.delete_project(actor, project.id)
    assert refused.value.code == "permission_denied"
    await services.members.remove_member(ada, project.id, "writer")
    with pytest.raises(RomergoError) as gone:
        await services.projects.get_project(actor, project.id)
    assert gone.value.code == "not_found"


BAD_CASES = {
    "an unknown account": ("add", "nobody", "editor", "not_found"),
    "someone already a member": ("add", "ada", "viewer", "conflict"),
    "a role that is not one of the three": ("add", "bo", "admin", "invalid_argument"),
    "adding a second owner": ("add", "bo", "owner", "invalid_argument"),
    "changing to a role that is not one of the three": ("change", "ada", "boss", "invalid_argument"),
    "demoting the owner": ("change", "writer", "editor", "invalid_argument"),
    "making an owner by a change of role": ("change", "ada", "owner", "invalid_argument"),
    "changing someone who is not a member": ("change", "bo", "viewer", "not_found"),
    "removing the owner": ("remove", "writer", None, "invalid_argument"),
    "removing someone who is not a member": ("remove", "bo", None, "not_found"),
    "handing over to someone who is not a member": ("hand_over", "bo", None, "not_found"),
    "handing over to the owner": ("hand_over", "writer", None, "invalid_argument"),
}


async def _attempt(
    services: Services, by: Actor, project_id: str, what: str, name: str, role: str | None
) -> None:
    members = services.members
    if what == "add":
        await members.add_member(by, project_id, name, str(role))
    elif what == "change":
        await members.change_role(by, project_id, name, str(role))
    elif what == "remove":
        await members.remove_member(by, project_id, name)
    else:
        await members.hand_over(by, project_id, name)


@pytest.mark.parametrize("case", sorted(BAD_CASES))
async def test_a_bad_change_of_members_is_refused_and_changes_nothing(services, actor, case):
    project = await services.projects.create_project(actor, "Tides")
    await _account(services, "ada")
    await _account(services, "bo")
    await services.members.add_member(actor, project.id, "ada", "editor")
    what, name, role, code = BAD_CASES[case]
    before = await database_state(services)
    with pytest.raises(RomergoError) as refused:
        await _attempt(services, actor, project.id, what, name, role)
    assert refused.value.code == code
    assert await database_state(services) == before


@pytest.mark.parametrize("role", ("editor", "viewer"))
@pytest.mark.parametrize("what", ("add", "change", "remove", "hand_over"))
async def test_only_the_owner_manages_members(services, actor, role, what):
    project = await services.projects.create_project(actor, "Tides")
    member = await _account(services, "ada")
    await _account(services, "bo")
    await services.members.add_member(actor, project.id, "ada", role)
    await services.members.add_member(actor, project.id, "bo", "viewer")
    before = await database_state(services)
    with pytest.raises(RomergoError) as refused:
        await _attempt(services, member, project.id, what, "bo", "editor")
    assert refused.value.code == "permission_denied"
    assert await database_state(services) == before


async def test_someone_who_is_not_a_member_learns_nothing_of_the_members(services, actor):
    project = await services.projects.create_project(actor, "Tides")
    stranger = await _account(services, "stranger")
    for attempt in (
        services.members.members(stranger, project.id),
        services.members.add_member(stranger, project.id, "stranger", "editor"),
    ):
        with pytest.raises(RomergoError) as refused:
            await attempt
        assert refused.value.code == "not_found"


async def test_the_demo_a_member_works_on_is_not_taken_for_their_own(services, actor):
    demo, _ = await seed_demo(services, actor.user_id)
    ada = await _account(services, "ada")
    await services.members.add_member(actor, demo.id, "ada", "editor")

    theirs, created = await seed_demo(services, ada.user_id)

    assert created and theirs.id != demo.id and theirs.owner_id == ada.user_id
