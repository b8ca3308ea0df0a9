"""Invitations over the JSON API (CONTRACT.md §6): the owner makes a one-time link, sees it once,
lists the open ones and revokes one; nobody else does, and a refusal changes nothing."""

from __future__ import annotations

import pytest

from romergo.access.agents.scopes import CONTROL
from romergo.common.actors import user_actor
from tests.api.conftest import TokenIdentity
from tests.support.story import database_state


@pytest.fixture
def control(tokens, author) -> dict[str, str]:
    tokens["control-token"] = TokenIdentity(author.id, frozenset({"romergo:read", CONTROL}))
    return {"authorization": "Bearer control-token"}


async def test_the_owner_makes_a_link_that_lets_someone_join(client, control, services, actor):
    project = await services.projects.create_project(actor, "Tides")
    ada = await services.accounts.create_user("ada")

    made = await client.post(
        f"/api/v1/projects/{project.id}/invitations", json={"role": "editor"}, headers=control
    )

    assert made.status_code == 201, made.text
    body = made.json()
    assert set(body) == {"invitation_id", "url", "role", "expires_at"} and body["role"] == "editor"
    prefix = f"{services.settings.base_url}/invitations/"
    assert body["url"].startswith(prefix)
    listed = await client.get(f"/api/v1/projects/{project.id}/invitations", headers=control)
    assert listed.status_code == 200
    assert listed.json() == {
        "invitations": [
            {
                "invitation_id": body["invitation_id"],
                "role": "editor",
                "username": None,
                "invited_by": "writer",
                "created_at": listed.json()["invitations"][0]["created_at"],
                "expires_at": body["expires_at"],
            }
        ]
    }
    assert body["url"].removeprefix(prefix) not in listed.text
    await services.invitations.accept(user_actor(ada.id), body["url"].removeprefix(prefix))
    members = await services.members.members(actor, project.id)
    assert [(found.username, found.role.value) for found in members] == [
        ("writer", "owner"),
        ("ada", "editor"),
    ]


async def test_the_owner_revokes_a_link_once(client, control, services, actor):
    project = await services.projects.create_project(actor, "Tides")
    await services.accounts.create_user("ada")
    made = await client.post(
        f"/api/v1/projects/{project.id}/invitations",
        json={"role": "viewer", "username": "ada"},
        headers=control,
    )
    invitation_id = made.json()["invitation_id"]

    revoked = await client.delete(f"/api/v1/invitations/{invitation_id}", headers=control)

    assert (revoked.status_code, revoked.json()) == (200, {"invitation_id": invitation_id, "revoked": True})
    assert (await client.get(f"/api/v1/projects/{project.id}/invitations", headers=control)).json() == {
        "invitations": []
    }
    again = await client.delete(f"/api/v1/invitations/{invitation_id}", headers=control)
    assert (again.status_code, again.json()["error"]["code"]) == (409, "conflict")


@pytest.mark.parametrize(
    ("body", "status", "code"),
    [
        ({"role": "owner"}, 400, "invalid_argument"),
        ({"role": "boss"}, 400, "invalid_argument"),
        ({"role": "editor", "username": "nobody"}, 404, "not_found"),
        ({"role": "editor", "colour": "red"}, 400, "invalid_argument"),
    ],
)
async def test_a_bad_invitation_is_refused_and_changes_nothing(
    client, control, services, actor, body, status, code
):
    project = await services.projects.create_project(actor, "Tides")
    before = await database_state(services)
    refused = await client.post(f"/api/v1/projects/{project.id}/invitations", json=body, headers=control)
    assert (refused.status_code, refused.json()["error"]["code"]) == (status, code)
    assert await database_state(services) == before


async def test_an_editor_neither_invites_lists_nor_revokes(client, tokens, services, actor):
    project = await services.projects.create_project(actor, "Tides")
    ada = await services.accounts.create_user("ada")
    await services.members.add_member(actor, project.id, "ada", "editor")
    made = await services.invitations.invite(actor, project.id, "viewer")
    tokens["ada-token"] = TokenIdentity(ada.id, frozenset({"romergo:read", CONTROL}))
    as_ada = {"authorization": "Bearer ada-token"}
    before = await database_state(services)

    answers = [
        await client.post(
            f"/api/v1/projects/{project.id}/invitations", json={"role": "viewer"}, headers=as_ada
        ),
        await client.get(f"/api/v1/projects/{project.id}/invitations", headers=as_ada),
        await client.delete(f"/api/v1/invitations/{made.invitation.invitation_id}", headers=as_ada),
    ]

    assert [(answer.status_code, answer.json()["error"]["code"]) for answer in answers] == [
        (403, "permission_denied")
    ] * 3
    assert await database_state(services) == before


async def test_a_signed_in_browser_needs_the_csrf_header_to_invite(client, browser_session, services, actor):
    project = await services.projects.create_project(actor, "Tides")
    cookie_only = {"cookie": browser_session["cookie"]}
    path = f"/api/v1/projects/{project.id}/invitations"
    refused = await client.post(path, json={"role": "viewer"}, headers=cookie_only)
    assert (refused.status_code, refused.json()["error"]["code"]) == (403, "forbidden")
    made = await client.post(path, json={"role": "viewer"}, headers=browser_session)
    assert made.status_code == 201, made.text
