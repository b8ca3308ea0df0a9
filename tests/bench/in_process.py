"""Benchmark: a delivery and a read served in this process, through each app's ASGI callable.

    .venv/bin/python -m tests.bench.in_process [rounds]

Over HTTP on a shared 2-core machine a delivery's time is also the kernel's: each response wakes
the client, which the scheduler may run on the server's core in the middle of the server's work
(docs/performance.md), and the figures move by tenths of a millisecond between
runs. Here the very requests the SDK client sends, captured once through httpx's ASGI transport,
are handed to Romergo's whole app (every middleware, the API, the bearer checks, the MCP SDK) and
to the bare server's app in this process, with no socket: what is timed is the servers' own work,
and it moves by microseconds between runs.

- delivery: the owner's `POST /api/v1/channels/{id}/commands` with the agent's wait parked, until
  the wait's answer is sent; beside the bare server's `/post` waking its parked `wait_for_post`.
  Romergo's delivery is also split into stages (marks around the core's post, the wait's check
  and the MCP server's tool call).
- read: one `romergo_get_scene` inside a command, beside the bare server's echo and its replay of
  that very answer under the tool's output schema. Per call, back to back; "with what it leaves"
  divides the whole run, the tool events written after the answers included, by the calls.
- edit: one `romergo_update_dialogue_line` inside the command (a new text each time), beside the
  same change made by calling the story service directly: the edit goal's two sides, without the
  network's share of the round trip. The direct change is timed back to back, and again with a
  bare echo served before each one, as a tool call's service runs after other code.

The app runs without its lifespan's background tasks (the sweeper, wake-ups from other instances),
on the benchmark's own event loop; both servers share that loop and process.
"""

from __future__ import annotations

import asyncio
import gc
import json
import logging
import statistics
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import uvloop
from starlette.types import ASGIApp

from app import GC_THRESHOLDS
from romergo.channels import AgentRef, presence_topic
from romergo.common.actors import Actor, user_actor
from romergo.common.config import Settings
from romergo.services import Services, build_services, prepare_database
from tests.bench import echo_server
from tests.bench.asgi_requests import PORT, Recorder, Request, client, request_scope
from tests.support.cli import romergo_here
from tests.support.oauth import PASSWORD

STAGES = (
    "to the core's post",
    "the core's post",
    "the post answered",
    "to the wait's check",
    "the check and claim",
    "the tool's result",
    "the SDK's answer",
)
"""A delivery's stages in Romergo, each from the end of the one before (µs)."""


def main(rounds: int) -> None:
    for name, value in measure(rounds).items():
        print(f"{name:<36} {value:8.0f} µs")


def measure(rounds: int) -> dict[str, float]:
    """p50 µs per step and stage (deliveries and reads `rounds` times each, after a warm-up).

    Runs its own event loop as `romergo serve` runs (uvloop, the collector's settings and a frozen
    start-up heap), so call it from a thread when a loop is running (`asyncio.to_thread`)."""
    logging.getLogger("httpx2").setLevel(logging.WARNING)  # a line per request otherwise
    gc.freeze()
    thresholds = gc.get_threshold()
    gc.set_threshold(*GC_THRESHOLDS)
    try:
        return uvloop.run(_measure(rounds))
    finally:
        gc.set_threshold(*thresholds)
        gc.unfreeze()


async def _measure(rounds: int) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as folder:
        async with _romergo(Path(folder)) as romergo, _bare() as bare:
            found = {
                "bare: delivery": await bare.deliveries(rounds),
                "bare: echo": await bare.calls(bare.echo, rounds),
            }
            stages, total = await romergo.deliveries(rounds)
            found["romergo: delivery"] = total
            found |= {f"romergo:   {stage}": value for stage, value in stages.items()}
            bare.replay = await bare.captured_replay(romergo.scene_answer, romergo.scene_schema)
            found["bare: replay of the read's answer"] = await bare.calls(bare.replay, rounds)
            found["romergo: read"] = await romergo.calls(romergo.read, rounds)
            found["romergo: read, with what it leaves"] = await romergo.read_with_what_it_leaves(rounds)
            found["romergo: edit"] = await romergo.edits(rounds)
            found["direct: the same edit"] = await romergo.direct_edits(rounds)
            amid = await romergo.direct_edits(rounds, between=lambda: bare.echo.served_by(bare.app))
            found["direct: the same edit, amid echoes"] = amid
            return found


class _Romergo:
    def __init__(self, services: Services, app: ASGIApp) -> None:
        self.services = services
        self.app = app
        self.marks: dict[str, float] = {}
        self.wait: Request
        self.read: Request
        self.edit: Request
        self.post: Request
        self.channel_id = ""
        self.cursor = 0
        self.held: str | None = None
        """The command the agent holds: the reads run inside the last one delivered."""
        self.agent: AgentRef
        self.owner: Actor
        self.line_id = ""
        self.scene_answer: dict[str, Any] = {}
        self.scene_schema: dict[str, Any] = {}

    async def deliveries(self, rounds: int) -> tuple[dict[str, float], float]:
        stages: dict[str, list[float]] = {stage: [] for stage in STAGES}
        totals = []
        for n in range(rounds + _warm_up(rounds)):
            await self._finish()
            self.marks.clear()
            # Parked once it has announced itself (tasks start in the order they are made).
            parked = asyncio.create_task(self.services.bus.wait(presence_topic(self.channel_id), 5))
            waiting = asyncio.create_task(self.wait.with_arguments(cursor=self.cursor).served_by(self.app))
            assert await parked, "the wait did not park"
            started = time.perf_counter()
            _, posted = await self.post.served_by(self.app)
            answer, answered = await waiting
            delivered = json.loads(answer)["result"]["structuredContent"]
            assert delivered["status"] == "command", delivered
            self.cursor, self.held = delivered["cursor"], delivered["command"]["command_id"]
            if n < _warm_up(rounds):
                continue  # warm-up
            ends = [
                self.marks["post starts"],
                self.marks["post ends"],
                posted,
                self.marks["check starts"],
                self.marks["check ends"],
                self.marks["tool ends"],
                answered,
            ]
            for stage, before, end in zip(STAGES, [started, *ends[:-1]], ends, strict=True):
                stages[stage].append((end - before) * 1e6)
            totals.append((answered - started) * 1e6)
        return {stage: statistics.median(values) for stage, values in stages.items()}, statistics.median(
            totals
        )

    async def calls(self, request: Request, rounds: int) -> float:
        return await _calls(self.app, lambda _: request, rounds)

    async def edits(self, rounds: int) -> float:
        """p50 µs of `romergo_update_dialogue_line` inside the held command, each a new text."""
        held = self.held
        assert held is not None
        took = await _calls(
            self.app, lambda n: self.edit.with_arguments(text=f"Take {n}", command_id=held), rounds
        )
        await self.services.channels.store.settled()
        return took

    async def direct_edits(
        self, rounds: int, between: Callable[[], Awaitable[object]] | None = None
    ) -> float:
        """p50 µs of the same change made by calling the story service (no protocol, no guard).

        With `between`, each change follows another call served (not timed): the service then
        runs as it does inside a tool call, after other code has had the processor's caches, not
        after itself (docs/performance.md)."""
        took = []
        for n in range(rounds + _warm_up(rounds)):
            if between is not None:
                await between()
            started = time.perf_counter()
            await self.services.lines.update_line(self.owner, self.line_id, f"Direct take {n}")
            if n >= _warm_up(rounds):
                took.append((time.perf_counter() - started) * 1e6)
        return statistics.median(took)

    async def read_with_what_it_leaves(self, rounds: int) -> float:
        await self.services.channels.store.settled()
        started = time.perf_counter()
        for _ in range(rounds):
            await self.read.served_by(self.app)
        await self.services.channels.store.settled()
        return (time.perf_counter() - started) / rounds * 1e6

    def mark(self, owner: object, name: str, label: str) -> None:
        """Note when `owner.name` (a coroutine method) starts and ends, as `label starts/ends`."""
        method: Callable[..., Awaitable[Any]] = getattr(owner, name)

        async def marked(*args: Any, **kwargs: Any) -> Any:
            self.marks[f"{label} starts"] = time.perf_counter()
            try:
                return await method(*args, **kwargs)
            finally:
                self.marks[f"{label} ends"] = time.perf_counter()

        setattr(owner, name, marked)

    async def _finish(self) -> None:
        """The command the agent holds, finished (a wait would hand it over again)."""
        if self.held is not None:
            done = {"status": "no_changes"}
            await self.services.channels.agent.report(self.agent, self.held, "reply", "done", done)
            self.held = None


@asynccontextmanager
async def _romergo(folder: Path) -> AsyncIterator[_Romergo]:
    """Romergo's app on a database with the demo, an agent joined to a channel on it, and the
    requests captured: the agent's wait, one `romergo_get_scene`, the owner's post."""
    for command in (("user", "add", "ada"), ("seed-demo", "--user", "ada")):
        assert romergo_here(*command, data_dir=folder, stdin=PASSWORD + "\n").returncode == 0
    agent_token = _token(folder)
    owner_token = _token(folder, "--scopes", "read,control")
    settings = Settings(data_dir=folder, port=PORT, rate_limit_per_minute=1_000_000_000)
    services = build_services(settings, secret=await prepare_database(settings))
    from app import build_app

    app = build_app(services)
    try:
        user = await services.accounts.user_by_name("ada")
        assert user is not None
        project_id = (await services.projects.list_projects(user_actor(user.id)))[0].id
        channel = await services.channels.owner.create_channel(user.id, project_id)
        romergo = _Romergo(services, app)
        recorder = Recorder(app)
        async with app.state.mcp.running(), client(recorder, agent_token) as agent:
            joined = await agent.call_tool("romergo_join_builder_channel", {"code": channel.code})
            assert joined.structured_content is not None
            wait = {"channel_id": channel.channel_id, "cursor": joined.structured_content["cursor"]}
            waiting = asyncio.create_task(
                recorder.capture(
                    "romergo_wait_for_builder_command",
                    agent.call_tool("romergo_wait_for_builder_command", {**wait, "timeout_seconds": 30}),
                )
            )
            await asyncio.sleep(0.2)
            await services.channels.owner.post_command(user.id, channel.channel_id, "Tidy the opening")
            romergo.wait, delivered = await waiting
            assert delivered.structured_content is not None
            romergo.channel_id = channel.channel_id
            romergo.cursor = delivered.structured_content["cursor"]
            romergo.held = delivered.structured_content["command"]["command_id"]
            view = await services.channels.owner.get_channel(user.id, channel.channel_id)
            member = view.members[0]
            romergo.agent = AgentRef(
                user_id=user.id, client_id=member.client_id, client_name=member.agent_name
            )
            outline = await agent.call_tool("romergo_get_project_outline", {"project_id": project_id})
            assert outline.structured_content is not None
            scene_id = outline.structured_content["untrusted_content"]["data"]["chapters"][0]["scenes"][0][
                "id"
            ]
            romergo.read, answer = await recorder.capture(
                "romergo_get_scene", agent.call_tool("romergo_get_scene", {"scene_id": scene_id})
            )
            romergo.scene_answer = answer.model_dump(mode="json", by_alias=True, exclude_none=True)
            scene = romergo.scene_answer["structuredContent"]["untrusted_content"]["data"]
            romergo.line_id = scene["lines"][0]["id"]
            romergo.owner = user_actor(user.id, user.username)
            romergo.edit, _ = await recorder.capture(
                "romergo_update_dialogue_line",
                agent.call_tool(
                    "romergo_update_dialogue_line",
                    {"line_id": romergo.line_id, "text": "Take", "command_id": romergo.held},
                ),
            )
            listed = {tool.name: tool for tool in (await agent.list_tools()).tools}
            romergo.scene_schema = listed["romergo_get_scene"].output_schema or {}
            romergo.post = _owner_post(owner_token, channel.channel_id)
            romergo.mark(services.channels.owner, "post_command", "post")
            romergo.mark(services.channels.agent.delivery, "next_for", "check")
            romergo.mark(app.state.mcp.server, "call_tool", "tool")
            yield romergo
    finally:
        await services.close()


class _Bare:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app
        self.recorder = Recorder(app)
        self.wait: Request
        self.echo: Request
        self.replay: Request
        posted = json.dumps({"text": "Tidy the opening"}).encode()
        self.post = Request(request_scope("POST", "/post", [], posted), posted)

    async def deliveries(self, rounds: int) -> float:
        took = []
        for n in range(rounds + _warm_up(rounds)):
            waiting = asyncio.create_task(self.wait.served_by(self.app))
            await asyncio.sleep(0.003)
            started = time.perf_counter()
            await self.post.served_by(self.app)
            answer, answered = await waiting
            assert b"Tidy the opening" in answer, answer
            if n >= _warm_up(rounds):
                took.append((answered - started) * 1e6)
        return statistics.median(took)

    async def calls(self, request: Request, rounds: int) -> float:
        return await _calls(self.app, lambda _: request, rounds)

    async def captured_replay(self, answer: dict[str, Any], schema: dict[str, Any]) -> Request:
        async with client(self.recorder, "none") as remembering:
            await remembering.call_tool("remember", {"result": answer, "output_schema": schema})
        # A client of its own: clients read a tool's output schema when they first meet the tool.
        async with client(self.recorder, "none") as replaying:
            request, _ = await self.recorder.capture("replay", replaying.call_tool("replay", {}))
        return request


@asynccontextmanager
async def _bare() -> AsyncIterator[_Bare]:
    """The bare server's app (`tests.bench.echo_server`) with its wait and echo requests captured."""
    posted: asyncio.Queue[str] = asyncio.Queue()
    server = echo_server.build(posted)
    bare = _Bare(echo_server.with_post_route(server, posted))
    async with server.session_manager.run(), client(bare.recorder, "none") as floor:
        bare.echo, _ = await bare.recorder.capture("echo", floor.call_tool("echo", {"text": "job"}))
        waiting = asyncio.create_task(
            bare.recorder.capture("wait_for_post", floor.call_tool("wait_for_post", {"seconds": 30}))
        )
        await asyncio.sleep(0.1)
        posted.put_nowait("Tidy the opening")
        bare.wait, _ = await waiting
        yield bare


async def _calls(app: ASGIApp, request: Callable[[int], Request], rounds: int) -> float:
    """p50 µs of the requests `request(n)` makes, served back to back, after a warm-up."""
    took = []
    for n in range(rounds + _warm_up(rounds)):
        served = request(n)
        started = time.perf_counter()
        _, answered = await served.served_by(app)
        if n >= _warm_up(rounds):
            took.append((answered - started) * 1e6)
    return statistics.median(took)


def _owner_post(token: str, channel_id: str) -> Request:
    headers = [(b"authorization", f"Bearer {token}".encode())]
    body = json.dumps({"text": "Tidy the opening"}).encode()
    return Request(request_scope("POST", f"/api/v1/channels/{channel_id}/commands", headers, body), body)


def _warm_up(rounds: int) -> int:
    """Rounds run first and left out: first-use costs (the client's schema validators, caches)."""
    return max(5, rounds // 10)


def _token(folder: Path, *scopes: str) -> str:
    made = romergo_here("token", "create", "ada", *scopes, data_dir=folder)
    assert made.returncode == 0, made.stderr
    return made.stdout.strip()


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 300)
