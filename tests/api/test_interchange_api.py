"""Import and export over the JSON API: the file out with what it leaves out, the file
back in as a new project, bad files and strangers refused with nothing created."""

from __future__ import annotations

import json
from urllib.parse import unquote

import pytest

from romergo.access.agents.scopes import CONTROL
from romergo.demo.seed import seed_demo
from tests.api.conftest import TokenIdentity
from tests.support.story import database_state


@pytest.fixture
def control(tokens, author) -> dict[str, str]:
    tokens["control-token"] = TokenIdentity(author.id, frozenset({"romergo:read", CONTROL}))
    return {"authorization": "Bearer control-token"}


async def test_export_then_import_over_the_api(client, control, services, author):
    project, _ = await seed_demo(services, author.id)
    exported = await client.get(
        f"/api/v1/projects/{project.id}/export", params={"format": "twee"}, headers=control
    )
    assert exported.status_code == 200, exported.text
    assert exported.headers["content-type"].startswith("text/plain")
    disposition = exported.headers["content-disposition"]
    assert unquote(disposition.split("''", 1)[1]) == "The-Lighthouse-Keeper-s-Secret.twee"
    notes = json.loads(exported.headers["x-romergo-notes"])
    assert any("not part of a Twee file" in note for note in notes)

    imported = await client.post(
        "/api/v1/projects/import",
        params={"filename": "story.twee"},
        content=exported.content,
        headers=control,
    )
    assert imported.status_code == 201, imported.text
    body = imported.json()
    assert body["project"]["title"] == "The Lighthouse Keeper's Secret"
    assert (body["format"], body["scenes"]) == ("twee", 12)
    listed = (await client.get("/api/v1/projects", headers=control)).json()["projects"]
    assert body["project"]["id"] in {p["id"] for p in listed}


async def test_bad_files_unknown_formats_and_strangers_change_nothing(
    client, control, services, author, tokens
):
    project, _ = await seed_demo(services, author.id)
    stranger = await services.accounts.create_user("stranger")
    tokens["stranger"] = TokenIdentity(stranger.id, frozenset({"romergo:read", CONTROL}))
    before = await database_state(services)
    broken = await client.post(
        "/api/v1/projects/import", params={"filename": "a.yarn"}, content=b"title: A\n---\n", headers=control
    )
    assert broken.status_code == 400
    assert broken.json()["error"]["code"] == "invalid_argument"
    assert 'node "A" never ends' in broken.json()["error"]["message"]
    no_name = await client.post("/api/v1/projects/import", content=b":: A\nx\n", headers=control)
    assert no_name.status_code == 400
    unknown = await client.get(
        f"/api/v1/projects/{project.id}/export", params={"format": "pdf"}, headers=control
    )
    assert unknown.status_code == 400 and "Unknown format" in unknown.json()["error"]["message"]

    theirs = await client.get(
        f"/api/v1/projects/{project.id}/export", headers={"authorization": "Bearer stranger"}
    )
    assert theirs.status_code == 404
    anonymous = await client.get(f"/api/v1/projects/{project.id}/export")
    assert anonymous.status_code == 401
    assert await database_state(services) == before
