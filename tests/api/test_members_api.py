"""`/api/v1/projects/{id}/members` and `/owner` (CONTRACT.md §6): the owner lists, adds, changes,
removes and hands over; a member who is not the owner, an unknown account, a bad role and the
owner's own removal are refused with the API's errors and change nothing."""

from __future__ import annotations

import pytest

from romergo.access.agents.scopes import CONTROL
from tests.api.conftest import TokenIdentity
from tests.support.story import database_state


@pytest.fixture
def owner(tokens, author) -> dict[str, str]:
    tokens["owner"] = TokenIdentity(author.id, frozenset({CONTROL}))
    return {"authorization": "Bearer owner"}


@pytest.fixture
async def project_id(services, actor) -> str:
    return (await services.projects.create_project(actor, "Tides")).id


@pytest.fixture
async def ada(services, tokens) -> dict[str, str]:
    """Headers of a second account, not yet a member of the story."""
    made = await services.accounts.create_user("ada")
    tokens["ada"] = TokenIdentity(made.id, frozenset({CONTROL}))
    return {"authorization": "Bearer ada"}


def roles(answer) -> list[tuple[str, str]]:
    return [(member["username"], member["role"]) for member in answer.json()["members"]]


async def test_the_owner_adds_lists_changes_and_removes_a_member(client, owner, ada, project_id):
    members = f"/api/v1/projects/{project_id}/members"

    added = await client.post(members, json={"username": "ada", "role": "viewer"}, headers=owner)

    assert added.status_code == 201, added.text
    assert {key: added.json()[key] for key in ("username", "role")} == {"username": "ada", "role": "viewer"}
    assert added.json()["added_at"]
    listed = await client.get(members, headers=ada)
    assert listed.status_code == 200, listed.text
    assert roles(listed) == [("writer", "owner"), ("ada", "viewer")]
    assert all(member["added_at"] for member in listed.json()["members"])

    changed = await client.put(f"{members}/ada", json={"role": "editor"}, headers=owner)
    assert (changed.status_code, changed.json()["role"]) == (200, "editor")
    assert roles(await client.get(members, headers=owner)) == [("writer", "owner"), ("ada", "editor")]

    removed = await client.delete(f"{members}/ada", headers=owner)
    assert removed.status_code == 200, removed.text
    assert roles(removed) == [("writer", "owner")]
    gone = await client.get(members, headers=ada)
    assert (gone.status_code, gone.json()["error"]["code"]) == (404, "not_found")


async def test_handing_over_makes_the_heir_owner_and_the_old_owner_an_editor(client, owner, ada, project_id):
    members = f"/api/v1/projects/{project_id}/members"
    await client.post(members, json={"username": "ada", "role": "viewer"}, headers=owner)

    handed = await client.post(
        f"/api/v1/projects/{project_id}/owner", json={"username": "ada"}, headers=owner
    )

    assert handed.status_code == 200, handed.text
    assert roles(handed) == [("writer", "editor"), ("ada", "owner")]
    refused = await client.put(f"{members}/ada", json={"role": "viewer"}, headers=owner)
    assert (refused.status_code, refused.json()["error"]["code"]) == (403, "permission_denied")
    mine = (await client.get("/api/v1/projects", headers=owner)).json()["projects"]
    assert [(p["id"], p["role"]) for p in mine] == [(project_id, "editor")]


async def test_bad_requests_are_refused_and_change_nothing(client, owner, ada, services, project_id):
    members = f"/api/v1/projects/{project_id}/members"
    await client.post(members, json={"username": "ada", "role": "editor"}, headers=owner)
    await services.accounts.create_user("bo")
    before = await database_state(services)

    refusals = [
        # A member who is not the owner changes nobody.
        (await client.post(members, json={"username": "bo", "role": "viewer"}, headers=ada), 403),
        (await client.put(f"{members}/writer", json={"role": "viewer"}, headers=ada), 403),
        (await client.delete(f"{members}/ada", headers=ada), 403),
        (
            await client.post(f"/api/v1/projects/{project_id}/owner", json={"username": "ada"}, headers=ada),
            403,
        ),
        # Nobody by that name; a role that is none; owner only by a hand-over.
        (await client.post(members, json={"username": "nobody", "role": "viewer"}, headers=owner), 404),
        (await client.post(members, json={"username": "bo", "role": "admin"}, headers=owner), 400),
        (await client.post(members, json={"username": "bo", "role": "owner"}, headers=owner), 400),
        (await client.put(f"{members}/ada", json={"role": "boss"}, headers=owner), 400),
        (await client.post(members, json={"username": "ada", "role": "viewer"}, headers=owner), 409),
        (await client.post(members, json={"username": "bo"}, headers=owner), 400),
        # The owner stays the owner.
        (await client.delete(f"{members}/writer", headers=owner), 400),
        (await client.put(f"{members}/writer", json={"role": "viewer"}, headers=owner), 400),
        (
            await client.post(f"/api/v1/projects/{project_id}/owner", json={"username": "bo"}, headers=owner),
            404,
        ),
    ]

    for answer, status in refusals:
        assert answer.status_code == status, f"{answer.request.method} {answer.request.url}: {answer.text}"
        assert set(answer.json()["error"]) == {"code", "message"}
    assert await database_state(services) == before


async def test_someone_who_is_not_a_member_learns_nothing(client, owner, ada, project_id, services):
    before = await database_state(services)
    for answer in (
        await client.get(f"/api/v1/projects/{project_id}/members", headers=ada),
        await client.post(
            f"/api/v1/projects/{project_id}/members", json={"username": "ada", "role": "editor"}, headers=ada
        ),
        await client.delete(f"/api/v1/projects/{project_id}/members/writer", headers=ada),
    ):
        assert (answer.status_code, answer.json()["error"]["code"]) == (404, "not_found"), answer.text
    assert await database_state(services) == before


async def test_a_browser_session_changes_members_only_with_its_csrf_token(
    client, browser_session, ada, project_id
):
    members = f"/api/v1/projects/{project_id}/members"
    body = {"username": "ada", "role": "viewer"}
    without = await client.post(members, json=body, headers={"cookie": browser_session["cookie"]})
    assert (without.status_code, without.json()["error"]["code"]) == (403, "forbidden")

    added = await client.post(members, json=body, headers=browser_session)
    assert added.status_code == 201, added.text
