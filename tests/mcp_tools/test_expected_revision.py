"""Every update tool that takes `expected_revision`, over HTTP against a running server, with two
agents of one owner (two personal tokens, two clients) writing to the same entity:
the revision read still current writes; a field only the other agent changed since is kept next to
the caller's; the same field changed by both is `[conflict]` naming the value now, the revision and
who changed it, and nothing is written; a revision from the future is refused."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest

from tests.support.agents import Agent, ToolRefused, agent, data
from tests.support.oauth import personal_token
from tests.support.server import RunningServer
from tests.support.story import client_of, served_state
from tests.support.tools import BOOKKEEPING
from tests.support.update_cases import CASES, Case, Write, place_of

SERVER_ENV = {"ROMERGO_RATE_LIMIT_PER_MINUTE": "100000"}
ALL = ("--scopes", "read,edit,media,publish,delete")
CATALOGUE = Path(__file__).parent / "fixtures" / "tool_catalogue.json"


@pytest.fixture(scope="module")
def tokens(server: RunningServer) -> dict[str, str]:
    return {name: personal_token(server, "ada", *ALL) for name in ("mine", "theirs")}


@asynccontextmanager
async def two_agents(server: RunningServer, tokens: dict[str, str]) -> AsyncIterator[tuple[Agent, Agent]]:
    async with (
        agent(server.base_url, tokens["mine"]) as mine,
        agent(server.base_url, tokens["theirs"]) as theirs,
    ):
        yield mine, theirs


updates = pytest.mark.parametrize("tool", sorted(CASES))


async def made(who: Agent, tool: str) -> Case:
    case = await CASES[tool](who, await place_of(who))
    assert case.mine.tool == tool
    return case


async def data_of(who: Agent, tool: str, **arguments: Any) -> Any:
    return data(await who.call(tool, **arguments))


async def write(who: Agent, change: Write, expected_revision: int | None = None) -> Any:
    extra = {} if expected_revision is None else {"expected_revision": expected_revision}
    return data(await who.call(change.tool, **change.args, **extra))


async def refusal(who: Agent, change: Write, expected_revision: int) -> ToolRefused:
    with pytest.raises(ToolRefused) as refused:
        await write(who, change, expected_revision)
    return refused.value


def test_every_update_tool_with_expected_revision_has_a_case():
    catalogue = json.loads(CATALOGUE.read_text())
    taking = {t["name"] for t in catalogue if "expected_revision" in t["inputSchema"]["properties"]}
    assert taking == set(CASES)


@updates
async def test_the_revision_read_still_current_writes(server, tokens, tool):
    async with two_agents(server, tokens) as (mine, _):
        case = await made(mine, tool)
        written = await write(mine, case.mine, case.revision)
        assert written["revision"] > case.revision
        assert await case.read(mine) == (case.values[0], case.values[2])


@updates
async def test_a_field_only_the_caller_changed_merges_with_the_other_agents_change(server, tokens, tool):
    async with two_agents(server, tokens) as (mine, theirs):
        case = await made(mine, tool)
        await write(theirs, case.other_field)
        written = await write(mine, case.mine, case.revision)
        assert written["revision"] > case.revision
        assert await case.read(theirs) == (case.values[0], case.values[3])


@updates
async def test_the_same_field_changed_by_both_is_a_conflict_that_writes_nothing(server, tokens, tool):
    async with two_agents(server, tokens) as (mine, theirs):
        case = await made(mine, tool)
        now = (await write(theirs, case.same_field))["revision"]
        before = await served_state(server.database_url, BOOKKEEPING)
        refused = await refusal(mine, case.mine, case.revision)
        assert await served_state(server.database_url, BOOKKEEPING) == before
        assert await case.read(mine) == (case.values[1], case.values[2])
    assert refused.code == "conflict"
    by = await client_of(server.database_url, now)
    assert f"changed since revision {case.revision} by an agent ({by})" in refused.text
    assert f"it is now at revision {now}" in refused.text
    assert case.shown in refused.text
    assert "Nothing was written" in refused.text


async def test_a_choice_added_by_one_agent_and_another_edited_by_the_other_are_both_kept(server, tokens):
    async with two_agents(server, tokens) as (mine, theirs):
        case = await made(mine, "romergo_set_choices")
        scene_id = case.entity[1]
        [read] = (await data_of(theirs, "romergo_get_scene", scene_id=scene_id))["choices"]
        kept = {"id": read["id"], "label": read["label"], "target_scene_id": read["target_scene_id"]}
        added = {"label": "Swim for it", "target_scene_id": None}
        await data_of(theirs, "romergo_set_choices", scene_id=scene_id, choices=[kept, added])
        written = await write(mine, case.mine, case.revision)
        listed = [(c["id"], c["label"]) for c in written["choices"]]
        assert listed[0] == (read["id"], "Board the ship") and listed[1][1] == "Swim for it"
        assert len(listed) == 2


@updates
async def test_a_revision_from_the_future_is_refused(server, tokens, tool):
    async with two_agents(server, tokens) as (mine, _):
        case = await made(mine, tool)
        before = await served_state(server.database_url, BOOKKEEPING)
        refused = await refusal(mine, case.mine, case.revision + 1_000_000)
        assert await served_state(server.database_url, BOOKKEEPING) == before
    assert refused.code == "invalid_argument"
    assert f"expected_revision {case.revision + 1_000_000} is newer" in refused.text
