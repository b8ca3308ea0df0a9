"""What the call benchmarks start from: Romergo and the bare echo server side by side, an owner with
the demo project, and an agent of each already connected, Romergo's joined to a fresh channel.

Shared by `loop_latency` and `call_cpu`, so both measure against the same set-up, with `replaying`:
the bare server answering with the read tool's very answer.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path

from tests.bench.echo_server import EchoServer, running_echo
from tests.support.agents import Agent, OwnerApi, agent
from tests.support.oauth import add_user, personal_token
from tests.support.server import RunningServer


@dataclass
class BenchRoom:
    server: RunningServer
    echo: EchoServer
    owner: OwnerApi
    """The project's author ("ada"), over the JSON API."""
    project_id: str
    floor: Agent
    """A client of the bare echo server (warmed up by one echo)."""
    me: Agent
    """Romergo's agent, a member of `channel_id` from `cursor` on."""
    channel_id: str
    cursor: int

    @property
    def server_pid(self) -> int:
        assert self.server.process is not None
        return self.server.process.pid


@asynccontextmanager
async def bench_room(folder: Path, calls_per_minute: int) -> AsyncIterator[BenchRoom]:
    """Romergo serving a database in `folder` (with this rate limit) and the echo server, both
    stopped on the way out; the database stays in `folder`."""
    with running_echo() as echo:
        env = {"ROMERGO_RATE_LIMIT_PER_MINUTE": str(calls_per_minute)}
        server = RunningServer(folder, env=env).start()
        try:
            add_user(server, "ada")
            owner = OwnerApi(server.base_url, personal_token(server, "ada", "--scopes", "read,control"))
            token = personal_token(server, "ada")
            project_id = (await owner("GET", "/projects"))["projects"][0]["id"]
            async with agent(echo.base_url, "none") as floor, agent(server.base_url, token) as me:
                await floor.call("echo", text="warm-up")
                channel = await owner("POST", "/channels", {"project_id": project_id})
                cursor = (await me.call("romergo_join_builder_channel", code=channel["code"]))["cursor"]
                yield BenchRoom(server, echo, owner, project_id, floor, me, channel["channel_id"], cursor)
            await owner.close()
        finally:
            server.stop()


@asynccontextmanager
async def replaying(floor: Agent, me: Agent, echo_url: str, scene_id: str) -> AsyncIterator[Agent]:
    """A client of the bare server whose `replay` answers with this scene's `romergo_get_scene`
    result, under that tool's output schema: the read tool's answer at the protocol's own cost."""
    answer = await me.client.call_tool("romergo_get_scene", {"scene_id": scene_id})
    listed = {tool.name: tool for tool in (await me.client.list_tools()).tools}
    await floor.call(
        "remember",
        result=answer.model_dump(mode="json", by_alias=True, exclude_none=True),
        output_schema=listed["romergo_get_scene"].output_schema,
    )
    # A client of its own: clients read a tool's output schema when they first meet the tool.
    async with agent(echo_url, "none") as replayer:
        yield replayer
