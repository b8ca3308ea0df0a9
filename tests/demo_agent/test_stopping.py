"""Ctrl-C stops the demo agent at once, even while its long-poll is parked, and it leaves its room.

The agent runs as `python -m demo_agent`, exactly as "Try the demo agent" starts it, against a real
server; the owner's side is the JSON API with a control token.
"""

from __future__ import annotations

import asyncio
import signal
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest

from tests.support.agents import OwnerApi
from tests.support.oauth import add_user, personal_token
from tests.support.server import ROOT, RunningServer, clean_env
from tests.support.waiting import until

PARKED_WITHIN = 30.0  # seconds for the agent to join and park its wait on a loaded machine
LONG_POLL_SECONDS = 25  # the demo agent's wait window: stopping must not wait for it


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningServer]:
    running = RunningServer(tmp_path_factory.mktemp("server")).start()
    add_user(running, "ada")
    yield running
    running.stop()


@pytest.fixture
async def owner(server: RunningServer) -> AsyncIterator[OwnerApi]:
    api = OwnerApi(server.base_url, personal_token(server, "ada", "--scopes", "read,control"))
    yield api
    await api.close()


async def test_ctrl_c_stops_a_parked_demo_agent_at_once_and_it_leaves(server: RunningServer, owner: OwnerApi):
    project = (await owner("GET", "/projects"))["projects"][0]
    channel = await owner("POST", "/channels", {"project_id": project["id"]})
    agent = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "demo_agent",
        "--url",
        server.base_url,
        "--code",
        channel["code"],
        cwd=ROOT,
        env=clean_env({"ROMERGO_AGENT_TOKEN": personal_token(server, "ada", "--name", "Demo under test")}),
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
    )
    try:
        await until_parked(owner, channel["channel_id"])
        started = time.monotonic()
        agent.send_signal(signal.SIGINT)
        exit_code = await asyncio.wait_for(agent.wait(), LONG_POLL_SECONDS - 5)
        took = time.monotonic() - started
    finally:
        if agent.returncode is None:
            agent.kill()
        output = (await agent.communicate())[0].decode()
    print(f"demo agent stopped {took:.2f} s after Ctrl-C")
    assert exit_code == 0, output
    assert "Left the channel" in output
    members = (await owner("GET", f"/channels/{channel['channel_id']}"))["members"]
    assert [member["left_at"] is not None for member in members] == [True]
    kinds = [
        event["kind"] for event in (await owner("GET", f"/channels/{channel['channel_id']}/events"))["events"]
    ]
    assert kinds[-1] == "agent_left"


def test_the_agent_refuses_to_start_without_its_own_token_even_beside_the_owners():
    done = subprocess.run(
        [sys.executable, "-m", "demo_agent", "--url", "http://127.0.0.1:9", "--code", "rmg-x"],
        cwd=ROOT,
        env={k: v for k, v in clean_env({"ROMERGO_TOKEN": "rgp_x"}).items() if k != "ROMERGO_AGENT_TOKEN"},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2
    assert "ROMERGO_AGENT_TOKEN" in done.stderr  # the owner's ROMERGO_TOKEN is not taken for it


async def until_parked(owner: OwnerApi, channel_id: str) -> dict[str, Any]:
    """The channel's only member once its wait is parked (the server announces presence to nobody
    outside it, so its state is re-read until then)."""

    async def parked() -> dict[str, Any] | None:
        members = (await owner("GET", f"/channels/{channel_id}"))["members"]
        return dict(members[0]) if members and members[0]["polling"] else None

    return await until(parked, timeout=PARKED_WITHIN, what="the demo agent to park a wait")
