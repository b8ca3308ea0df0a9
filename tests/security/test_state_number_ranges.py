"""Every number in a story's state stays within ±10^15, finite, against a real server process.

A variable's starting value, a number written in a condition or an effect, and a value a simulated
play-through starts with are refused outside the range as `[invalid_argument]`, naming it, and
change nothing (10**400 used to fail inside the server as `[internal]`). The ends of the range
themselves are accepted, and arithmetic while a story plays stops at them instead of growing
without bound.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import httpx
import pytest

from tests.support.agents import Agent, ToolRefused, agent, data
from tests.support.oauth import initialize_request, personal_token
from tests.support.server import RunningServer

SERVER_ENV: dict[str, str] = {}  # a server of its own: these tests add variables and effects
LARGEST = 10**15
PAST_THE_RANGE = [10**400, -(10**400), 2**64, -(2**64), LARGEST + 1, 1e300]
RANGE_WORDS = "10^15"


@pytest.fixture(scope="module")
def token(server: RunningServer) -> str:
    return personal_token(server, "ada", "--scopes", "read,edit")


@asynccontextmanager
async def ada_in_her_story(server: RunningServer, token: str) -> AsyncIterator[tuple[Agent, str]]:
    """An agent of ada's (opened in the test's own task, as the client needs) and her project's id."""
    async with agent(server.base_url, token) as ada:
        yield ada, str(data(await ada.call("romergo_list_projects"))["projects"][0]["id"])


async def test_a_starting_value_outside_the_range_is_refused_naming_it(server: RunningServer, token: str):
    async with ada_in_her_story(server, token) as (ada, project_id):
        before = await _variables(ada, project_id)
        for value in PAST_THE_RANGE:
            refusal = await _refusal(
                ada, "romergo_add_variable", project_id=project_id, name="far", type="number", initial=value
            )
            assert refusal.code == "invalid_argument", (value, refusal.text)
            assert RANGE_WORDS in refusal.text, refusal.text
        assert await _variables(ada, project_id) == before

        made = data(
            await ada.call(
                "romergo_add_variable", project_id=project_id, name="largest", type="number", initial=LARGEST
            )
        )
        assert made["initial"] == LARGEST
        for value in PAST_THE_RANGE:
            refusal = await _refusal(ada, "romergo_update_variable", variable_id=made["id"], initial=value)
            assert refusal.code == "invalid_argument" and RANGE_WORDS in refusal.text, (value, refusal.text)
        changed = data(await ada.call("romergo_update_variable", variable_id=made["id"], initial=-LARGEST))
        assert changed["initial"] == -LARGEST


async def test_nan_and_infinity_sent_as_json_are_refused(server: RunningServer, token: str):
    async with ada_in_her_story(server, token) as (ada, project_id):
        before = await _variables(ada, project_id)
        for written in ("NaN", "Infinity", "-Infinity", "1e400"):
            answer = await _raw_add_variable(server, token, project_id, written)
            assert "[invalid_argument] " in answer and RANGE_WORDS in answer, (written, answer)
        assert await _variables(ada, project_id) == before


async def test_a_number_outside_the_range_in_a_condition_or_effect_is_refused(
    server: RunningServer, token: str
):
    async with ada_in_her_story(server, token) as (ada, project_id):
        scene_id, line_id = await _scene_with_line(ada, project_id)
        await _number_variable(ada, project_id, "gold")
        before = data(await ada.call("romergo_get_scene", scene_id=scene_id))
        huge_decimal = "1" + "0" * 400 + ".5"  # a float literal that would read as infinity
        for literal in (str(10**400), str(2**64), str(LARGEST + 1), huge_decimal):
            for tool, field, source in (
                ("romergo_update_dialogue_line", "condition", f"gold > {literal}"),
                ("romergo_update_dialogue_line", "condition", f"gold == -{literal}"),
                ("romergo_update_scene", "entry_effects", f"set gold = gold + {literal}"),
            ):
                target = (
                    {"line_id": line_id} if tool == "romergo_update_dialogue_line" else {"scene_id": scene_id}
                )
                refusal = await _refusal(ada, tool, **target, **{field: source})
                assert refusal.code == "invalid_argument", (source[:60], refusal.text[:200])
                assert RANGE_WORDS in refusal.text, refusal.text[:300]
        assert data(await ada.call("romergo_get_scene", scene_id=scene_id)) == before

        await ada.call("romergo_update_dialogue_line", line_id=line_id, condition=f"gold <= {LARGEST}")
        await ada.call(
            "romergo_update_scene", scene_id=scene_id, entry_effects=f"set gold = gold - {LARGEST}"
        )


async def test_arithmetic_while_playing_stops_at_the_ends_of_the_range(server: RunningServer, token: str):
    async with ada_in_her_story(server, token) as (ada, project_id):
        scene_id, _ = await _scene_with_line(ada, project_id)
        await _number_variable(ada, project_id, "coins")
        await ada.call(
            "romergo_update_scene", scene_id=scene_id, entry_effects="set coins = coins + coins + 1"
        )
        await ada.call(
            "romergo_set_choices",
            scene_id=scene_id,
            choices=[{"label": "Again", "target_scene_id": scene_id}],
        )

        # Doubling saturates at an end of the range, where the state then repeats (a loop).
        for start, settles_at in ((1, LARGEST), (LARGEST, LARGEST), (-LARGEST, -LARGEST + 1)):
            played = data(
                await ada.call(
                    "romergo_simulate_playthrough",
                    project_id=project_id,
                    start_scene=scene_id,
                    state={"coins": start},
                    page_size=60_000,  # the whole play-through on one page: its last step is the point
                )
            )
            values = [step["state"]["coins"] for step in played["steps"]]
            assert all(-LARGEST <= value <= LARGEST for value in values), values[-3:]
            assert values[-1] == settles_at, (start, values[-3:])

        for value in PAST_THE_RANGE:
            refusal = await _refusal(
                ada,
                "romergo_simulate_playthrough",
                project_id=project_id,
                start_scene=scene_id,
                state={"coins": value},
            )
            assert refusal.code == "invalid_argument" and RANGE_WORDS in refusal.text, (
                value,
                refusal.text[:200],
            )


async def _refusal(ada: Agent, tool: str, **arguments: Any) -> ToolRefused:
    try:
        await ada.call(tool, **arguments)
    except ToolRefused as refusal:
        return refusal
    raise AssertionError(f"{tool} accepted {arguments}")


async def _variables(ada: Agent, project_id: str) -> list[dict[str, Any]]:
    return list(data(await ada.call("romergo_list_variables", project_id=project_id))["variables"])


async def _number_variable(ada: Agent, project_id: str, name: str) -> None:
    known = {variable["name"] for variable in await _variables(ada, project_id)}
    if name not in known:
        await ada.call("romergo_add_variable", project_id=project_id, name=name, type="number", initial=0)


async def _scene_with_line(ada: Agent, project_id: str) -> tuple[str, str]:
    outline = data(await ada.call("romergo_get_project_outline", project_id=project_id))
    scene = data(
        await ada.call("romergo_add_scene", chapter_id=outline["chapters"][0]["id"], title="Counting")
    )
    line = data(await ada.call("romergo_add_dialogue_line", scene_id=scene["id"], text="Count again."))
    return str(scene["id"]), str(line["id"])


async def _raw_add_variable(server: RunningServer, token: str, project_id: str, written: str) -> str:
    """`romergo_add_variable` as raw JSON, with a number JSON itself cannot hold (Python's reader
    takes NaN and Infinity; a client may send them)."""
    arguments = json.dumps({"project_id": project_id, "name": "odd", "type": "number"})
    body = (
        '{"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": "romergo_add_variable", '
        f'"arguments": {arguments[:-1]}, "initial": {written}}}}}}}'
    )
    headers = {
        "Authorization": f"Bearer {token}",
        "Accept": "application/json, text/event-stream",
        "Content-Type": "application/json",
        "MCP-Protocol-Version": "2025-11-25",
    }
    async with httpx.AsyncClient(base_url=server.base_url, timeout=30) as http:
        started = await http.post("/mcp", json=initialize_request(), headers=headers)
        assert started.status_code == 200, started.text
        session = {**headers, "Mcp-Session-Id": started.headers["mcp-session-id"]}
        await http.post(
            "/mcp", json={"jsonrpc": "2.0", "method": "notifications/initialized"}, headers=session
        )
        answer = await http.post("/mcp", content=body.encode(), headers=session)
    return answer.text
