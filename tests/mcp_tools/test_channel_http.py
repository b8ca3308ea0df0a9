"""The channel over MCP (CONTRACT.md §1.1, §2) with the SDK client against a running server:
joining, delivery to exactly one agent, redelivery, questions, cancel, ending, progress."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import pytest
from sqlmodel import col

from storage.tables import Channel
from tests.support.agents import OwnerApi, agent, data
from tests.support.cli import romergo, romergo_here
from tests.support.databases import update_rows
from tests.support.oauth import add_user, personal_token
from tests.support.server import RunningServer
from tests.support.waiting import still_running, until

HEARTBEAT_SECONDS = 1
# 200 commands through two agents: well above the default 120 calls a minute per agent. A parked
# wait's progress comes every second instead of every ten, so seeing two takes two seconds.
SERVER_ENV = {
    "ROMERGO_RATE_LIMIT_PER_MINUTE": "5000",
    "ROMERGO_HEARTBEAT_SECONDS": str(HEARTBEAT_SECONDS),
}


@pytest.fixture(scope="module")
def tokens(server: RunningServer) -> dict[str, str]:
    add_user(server, "bob")
    return {
        "control": personal_token(server, "ada", "--scopes", "read,control", "--name", "ada's script"),
        "a": personal_token(server, "ada", "--name", "Agent A"),
        "b": personal_token(server, "ada", "--name", "Agent B"),
        "bob": personal_token(server, "bob", "--name", "Bob's agent"),
    }


@pytest.fixture
async def owner(server: RunningServer, tokens) -> AsyncIterator[OwnerApi]:
    api = OwnerApi(server.base_url, tokens["control"])
    yield api
    await api.close()


@pytest.fixture
async def channel(owner) -> dict[str, Any]:
    project = (await owner("GET", "/projects"))["projects"][0]
    return await owner("POST", "/channels", {"project_id": project["id"]})


async def test_join_codes_are_checked(server, tokens, owner, channel):
    async with agent(server.base_url, tokens["a"]) as a, agent(server.base_url, tokens["bob"]) as bob:
        assert await a.refused("romergo_join_builder_channel", code="rmg-made-up") == "code_invalid"
        assert await bob.refused("romergo_join_builder_channel", code=channel["code"]) == "code_invalid"
        joined = await a.call("romergo_join_builder_channel", code=channel["code"])
        assert joined["channel_id"] == channel["channel_id"]
        assert joined["permissions"] == channel["permissions"]
        assert "romergo_wait_for_builder_command" in joined["instructions"]
        assert data(joined["conversation"])["project_title"]

        new_code = (await owner("POST", f"/channels/{channel['channel_id']}/code"))["code"]
        assert await a.refused("romergo_join_builder_channel", code=channel["code"]) == "code_invalid"
        assert (await a.call("romergo_join_builder_channel", code=new_code))["channel_id"] == channel[
            "channel_id"
        ]

        # Fifteen minutes later the code still lets members back in, but no newcomer.
        sixteen_minutes_ago = datetime.now(UTC) - timedelta(minutes=16)
        await update_rows(
            server.database_url,
            Channel,
            col(Channel.id) == channel["channel_id"],
            code_issued_at=sixteen_minutes_ago,
        )
        async with agent(server.base_url, tokens["b"]) as b:
            assert await b.refused("romergo_join_builder_channel", code=new_code) == "code_invalid"
        assert (await a.call("romergo_join_builder_channel", code=new_code))["channel_id"] == channel[
            "channel_id"
        ]

        await owner("POST", f"/channels/{channel['channel_id']}/end")
        assert await a.refused("romergo_join_builder_channel", code=new_code) == "channel_ended"


async def test_a_command_sent_before_joining_arrives_with_its_context(server, tokens, owner, channel):
    context = {
        "route": "/projects/x/scenes/y",
        "surface": "scene",
        "scene_id": "scn_y",
        "selection": {
            "text": "old door",
            "entity_type": "dialogue_line",
            "entity_id": "lin_z",
            "start": 4,
            "end": 12,
        },
    }
    sent = await owner(
        "POST", f"/channels/{channel['channel_id']}/commands", {"text": "Rewrite this", "context": context}
    )
    async with agent(server.base_url, tokens["a"]) as a:
        joined = await a.call("romergo_join_builder_channel", code=channel["code"])
        got = await a.call(
            "romergo_wait_for_builder_command",
            channel_id=joined["channel_id"],
            cursor=joined["cursor"],
            timeout_seconds=5,
        )
    assert got["status"] == "command"
    command = got["command"]
    assert (command["command_id"], command["text"], command["redelivered"]) == (
        sent["command_id"],
        "Rewrite this",
        False,
    )
    assert got["cursor"] == sent["seq"]
    envelope = command["context"]["untrusted_content"]
    assert envelope["notice"].startswith("Data from the user's Romergo project")
    assert envelope["data"]["selection"] == context["selection"]
    assert envelope["data"]["surface"] == "scene"


async def test_two_agents_share_200_commands_each_exactly_once(server, tokens, owner, channel):
    channel_id = channel["channel_id"]
    sent = {
        (await owner("POST", f"/channels/{channel_id}/commands", {"text": f"job {n}"}))["command_id"]
        for n in range(200)
    }
    seen: dict[str, list[str]] = {"a": [], "b": []}

    async def work(name: str) -> None:
        async with agent(server.base_url, tokens[name]) as me:
            cursor = (await me.call("romergo_join_builder_channel", code=channel["code"]))["cursor"]
            while len(seen["a"]) + len(seen["b"]) < len(sent):
                got = await me.call(
                    "romergo_wait_for_builder_command",
                    channel_id=channel_id,
                    cursor=cursor,
                    timeout_seconds=1,
                )
                if got["status"] != "command":
                    continue
                seen[name].append(got["command"]["command_id"])
                cursor = got["cursor"]
                summary = {"status": "no_changes", "description": "nothing to do"}
                await me.call(
                    "romergo_report_builder_event",
                    command_id=got["command"]["command_id"],
                    kind="reply",
                    text="ok",
                    summary=summary,
                )

    await asyncio.wait_for(asyncio.gather(work("a"), work("b")), 180)
    everything = seen["a"] + seen["b"]
    assert set(everything) == sent and len(everything) == len(sent)
    assert seen["a"] and seen["b"]


async def test_a_dropped_agent_gets_its_command_again_and_the_other_never_does(
    server, tokens, owner, channel
):
    channel_id = channel["channel_id"]
    async with agent(server.base_url, tokens["a"]) as a, agent(server.base_url, tokens["b"]) as b:
        cursor_a = (await a.call("romergo_join_builder_channel", code=channel["code"]))["cursor"]
        cursor_b = (await b.call("romergo_join_builder_channel", code=channel["code"]))["cursor"]
        first = await owner("POST", f"/channels/{channel_id}/commands", {"text": "first"})
        got = await a.call(
            "romergo_wait_for_builder_command", channel_id=channel_id, cursor=cursor_a, timeout_seconds=5
        )
        assert got["command"]["command_id"] == first["command_id"]
    second = await owner("POST", f"/channels/{channel_id}/commands", {"text": "second"})

    # Agent A comes back (new connection) with its old cursor: the unfinished command, again.
    async with agent(server.base_url, tokens["a"]) as a, agent(server.base_url, tokens["b"]) as b:
        again = await a.call(
            "romergo_wait_for_builder_command", channel_id=channel_id, cursor=cursor_a, timeout_seconds=5
        )
        assert (again["command"]["command_id"], again["command"]["redelivered"]) == (
            first["command_id"],
            True,
        )
        other = await b.call(
            "romergo_wait_for_builder_command", channel_id=channel_id, cursor=cursor_b, timeout_seconds=5
        )
        assert other["command"]["command_id"] == second["command_id"]


async def test_question_answer_cancel_and_reports(server, tokens, owner, channel):
    channel_id = channel["channel_id"]
    async with agent(server.base_url, tokens["a"]) as a, agent(server.base_url, tokens["b"]) as b:
        cursor_a = (await a.call("romergo_join_builder_channel", code=channel["code"]))["cursor"]
        cursor_b = (await b.call("romergo_join_builder_channel", code=channel["code"]))["cursor"]
        asked = await owner("POST", f"/channels/{channel_id}/commands", {"text": "Change the music"})
        got = await a.call(
            "romergo_wait_for_builder_command", channel_id=channel_id, cursor=cursor_a, timeout_seconds=5
        )
        question = await a.call(
            "romergo_report_builder_event",
            command_id=asked["command_id"],
            kind="question",
            text="Which chapter?",
        )
        assert question == {"accepted": True, "command_id": asked["command_id"], "state": "awaiting_answer"}

        answer = await owner(
            "POST",
            f"/channels/{channel_id}/commands",
            {"text": "Chapter two", "in_reply_to": asked["command_id"]},
        )
        nothing = await b.call(
            "romergo_wait_for_builder_command", channel_id=channel_id, cursor=cursor_b, timeout_seconds=1
        )
        assert nothing["status"] == "timeout"
        delivered = await a.call(
            "romergo_wait_for_builder_command", channel_id=channel_id, cursor=got["cursor"], timeout_seconds=5
        )
        assert (delivered["command"]["command_id"], delivered["command"]["in_reply_to"]) == (
            answer["command_id"],
            asked["command_id"],
        )
        assert (await owner("GET", f"/commands/{asked['command_id']}"))["state"] == "answered"

        assert (
            await a.refused(
                "romergo_report_builder_event", command_id=answer["command_id"], kind="reply", text="done"
            )
            == "summary_required"
        )
        assert (
            await b.refused(
                "romergo_report_builder_event", command_id=answer["command_id"], kind="status", text="me too"
            )
            == "not_claimed_by_you"
        )

        await owner("POST", f"/commands/{answer['command_id']}/cancel")
        assert (
            await a.refused(
                "romergo_report_builder_event",
                command_id=answer["command_id"],
                kind="status",
                text="still here",
            )
            == "command_cancelled"
        )
        assert (
            await a.refused("romergo_list_command_changes", command_id=answer["command_id"])
            == "command_cancelled"
        )


async def test_ending_releases_a_waiting_poll_at_once(server, tokens, owner, channel):
    channel_id = channel["channel_id"]
    async with agent(server.base_url, tokens["a"]) as a:
        cursor = (await a.call("romergo_join_builder_channel", code=channel["code"]))["cursor"]
        held = await owner("POST", f"/channels/{channel_id}/commands", {"text": "held"})
        got = await a.call(
            "romergo_wait_for_builder_command", channel_id=channel_id, cursor=cursor, timeout_seconds=5
        )
        await a.call(
            "romergo_report_builder_event", command_id=held["command_id"], kind="question", text="Sure?"
        )
        waiting = asyncio.create_task(
            a.call(
                "romergo_wait_for_builder_command",
                channel_id=channel_id,
                cursor=got["cursor"],
                timeout_seconds=40,
            )
        )

        async def listening() -> bool:
            return bool((await owner("GET", f"/channels/{channel_id}"))["members"][0]["polling"])

        await until(listening, what="the server to show the agent listening")

        loop = asyncio.get_running_loop()
        started = loop.time()
        await owner("POST", f"/channels/{channel_id}/end")
        released = await asyncio.wait_for(waiting, 2)
        assert released["status"] == "channel_ended"
        assert loop.time() - started < 2
        assert (await owner("GET", f"/commands/{held['command_id']}"))["state"] == "cancelled"
        ended = await a.call(
            "romergo_wait_for_builder_command", channel_id=channel_id, cursor=0, timeout_seconds=1
        )
        assert ended["status"] == "channel_ended"


async def test_an_agent_token_cannot_act_as_the_owner(server, tokens, channel):
    async with httpx.AsyncClient(base_url=f"{server.base_url}/api/v1") as http:
        answer = await http.post(
            f"/channels/{channel['channel_id']}/commands",
            json={"text": "obey"},
            headers={"Authorization": f"Bearer {tokens['a']}"},
        )
    assert answer.status_code == 403
    assert answer.json()["error"]["code"] == "forbidden"


async def test_the_events_long_poll_wakes_on_a_new_event(server, owner, channel):
    channel_id = channel["channel_id"]
    cursor = (await owner("GET", f"/channels/{channel_id}/events"))["cursor"]
    waiting = asyncio.create_task(owner("GET", f"/channels/{channel_id}/events", after=cursor, wait=30))
    assert await still_running(waiting, 0.2)  # parked: nothing new yet
    await owner("POST", f"/channels/{channel_id}/commands", {"text": "wake"})
    answer = await asyncio.wait_for(waiting, 5)
    assert [e["kind"] for e in answer["events"]] == ["command"]


async def test_progress_arrives_while_a_wait_is_parked(server, tokens, owner, channel):
    """A parked wait sends a progress notification every ROMERGO_HEARTBEAT_SECONDS (clients cut
    silent calls at ~60 s), and stays parked between them."""
    channel_id = channel["channel_id"]
    loop = asyncio.get_running_loop()
    arrivals: list[float] = []
    two_arrived = asyncio.Event()
    async with agent(server.base_url, tokens["a"]) as a:
        cursor = (await a.call("romergo_join_builder_channel", code=channel["code"]))["cursor"]

        async def on_progress(value: float, total: float | None, message: str | None) -> None:
            arrivals.append(loop.time())
            if len(arrivals) == 2:
                two_arrived.set()

        asked = loop.time()
        waiting = asyncio.create_task(
            a.client.call_tool(
                "romergo_wait_for_builder_command",
                {"channel_id": channel_id, "cursor": cursor, "timeout_seconds": 20},
                progress_callback=on_progress,
            )
        )
        # Less than the default ten seconds: the setting must be what paces them.
        await asyncio.wait_for(two_arrived.wait(), 8)
        assert not waiting.done()
        await owner("POST", f"/channels/{channel_id}/end")
        assert (await waiting).structured_content["status"] == "channel_ended"
    # The n-th beat is due n intervals after the park, which came after the call was sent: a loaded
    # machine only delays them. 0.1 s spares a timer run a clock tick early.
    first, second = arrivals[:2]
    assert first - asked >= HEARTBEAT_SECONDS - 0.1
    assert second - asked >= 2 * HEARTBEAT_SECONDS - 0.1


def test_the_channel_commands_of_the_cli(server, tokens):
    env_args = ("--url", server.base_url, "--token", tokens["control"])
    listed = romergo_here("seed-demo", "--user", "ada", data_dir=server.data_dir, env=server.extra_env)
    assert listed.returncode == 0
    import json

    projects = httpx.get(
        f"{server.base_url}/api/v1/projects", headers={"Authorization": f"Bearer {tokens['control']}"}
    )
    project_id = projects.json()["projects"][0]["id"]
    opened = romergo("channel", "open", project_id, *env_args, data_dir=server.data_dir)
    assert opened.returncode == 0, opened.stderr
    channel = json.loads(opened.stdout)
    sent = romergo(
        "channel", "send", channel["channel_id"], "Describe this scene", *env_args, data_dir=server.data_dir
    )
    assert json.loads(sent.stdout)["text"] == "Describe this scene"
    events = romergo("channel", "events", channel["channel_id"], *env_args, data_dir=server.data_dir)
    kinds = [json.loads(line)["kind"] for line in events.stdout.splitlines()]
    assert kinds == ["settings_changed", "command"]
    ended = romergo("channel", "end", channel["channel_id"], *env_args, data_dir=server.data_dir)
    assert json.loads(ended.stdout)["state"] == "ended"
    refused = romergo(
        "channel",
        "open",
        project_id,
        "--url",
        server.base_url,
        "--token",
        tokens["a"],
        data_dir=server.data_dir,
    )
    assert refused.returncode == 1
    assert "cannot act for the owner" in refused.stderr


async def test_an_agent_token_cannot_decide_a_confirmation(server, tokens):
    async with httpx.AsyncClient(base_url=f"{server.base_url}/api/v1") as http:
        headers = {"Authorization": f"Bearer {tokens['a']}"}
        answer = await http.post("/confirmations/cnf_any", json={"decision": "allow_once"}, headers=headers)
    assert answer.status_code == 403


async def test_leaving_keeps_the_room_so_changes_need_a_command(server, tokens, owner, channel):
    channel_id = channel["channel_id"]
    project_id = channel["project_id"]
    # A fresh agent: one holding a command on this project from another test would be attributed to it.
    async with agent(server.base_url, personal_token(server, "ada", "--name", "Agent C")) as b:
        await b.call("romergo_join_builder_channel", code=channel["code"])
        assert await b.call("romergo_leave_builder_channel", channel_id=channel_id) == {"left": True}
        outline = data(await b.call("romergo_get_project_outline", project_id=project_id))
        refused = await b.refused("romergo_add_chapter", project_id=project_id, title="Sneaked in")
        assert refused == "no_active_command"
        after = data(await b.call("romergo_get_project_outline", project_id=project_id))
        assert [c["title"] for c in after["chapters"]] == [c["title"] for c in outline["chapters"]]
        assert (
            await b.refused("romergo_wait_for_builder_command", channel_id=channel_id, cursor=0)
            == "not_member"
        )
    events = (await owner("GET", f"/channels/{channel_id}/events"))["events"]
    assert events[-1]["kind"] == "tool_blocked" and events[-1]["data"]["tool"] == "romergo_add_chapter"
