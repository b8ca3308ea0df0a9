"""The JSON API's channel settings carry an ETag, and a PATCH with If-Match changes them only if
nobody changed them since: otherwise 412 with the current settings and their ETag, nothing written."""

from __future__ import annotations

import pytest

from romergo.access.agents.scopes import CONTROL
from tests.api.conftest import TokenIdentity
from tests.support.story import database_state, small_story


@pytest.fixture
def control(tokens, author) -> dict[str, str]:
    tokens["control-token"] = TokenIdentity(author.id, frozenset({"romergo:read", CONTROL}))
    return {"authorization": "Bearer control-token"}


@pytest.fixture
async def channel_url(client, control, services, actor) -> str:
    project_id = (await small_story(services, actor)).project_id
    created = await client.post("/api/v1/channels", json={"project_id": project_id}, headers=control)
    assert created.status_code == 201, created.text
    return f"/api/v1/channels/{created.json()['channel_id']}"


async def test_the_etag_read_still_current_lets_the_change_through_and_a_new_one_comes_back(
    client, control, channel_url
):
    read = await client.get(channel_url, headers=control)
    tag = read.headers["etag"]
    assert tag.startswith('"') and tag == (await client.get(channel_url, headers=control)).headers["etag"]

    changed = await client.patch(
        channel_url, json={"permissions": {"publish": True}}, headers={**control, "If-Match": tag}
    )
    assert changed.status_code == 200, changed.text
    assert changed.json()["permissions"]["publish"] is True
    assert changed.headers["etag"] not in (tag, "")
    assert changed.headers["etag"] == (await client.get(channel_url, headers=control)).headers["etag"]


async def test_a_stale_etag_is_412_with_the_current_settings_and_changes_nothing(
    client, control, channel_url, services
):
    stale = (await client.get(channel_url, headers=control)).headers["etag"]
    other_tab = await client.patch(channel_url, json={"confirmation_mode": "every_change"}, headers=control)
    assert other_tab.status_code == 200
    untouched = await database_state(services)

    refused = await client.patch(
        channel_url, json={"permissions": {"delete": True}}, headers={**control, "If-Match": stale}
    )
    assert refused.status_code == 412, refused.text
    body = refused.json()
    assert body["error"]["code"] == "conflict" and "changed since you read them" in body["error"]["message"]
    assert body["channel"]["confirmation_mode"] == "every_change"
    assert body["channel"]["permissions"]["delete"] is False
    assert refused.headers["etag"] == other_tab.headers["etag"]
    assert await database_state(services) == untouched


@pytest.mark.parametrize("if_match", ["*", 'W/"x", {tag}', "{tag}"])
async def test_if_match_takes_a_list_a_weak_tag_or_any(client, control, channel_url, if_match):
    tag = (await client.get(channel_url, headers=control)).headers["etag"]
    changed = await client.patch(
        channel_url,
        json={"permissions": {"publish": True}},
        headers={**control, "If-Match": if_match.format(tag=tag)},
    )
    assert changed.status_code == 200, changed.text


async def test_without_if_match_a_change_goes_through_as_before(client, control, channel_url):
    changed = await client.patch(channel_url, json={"permissions": {"publish": True}}, headers=control)
    assert changed.status_code == 200 and changed.json()["permissions"]["publish"] is True
