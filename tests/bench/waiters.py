"""Benchmark: many agents long-polling one process (goal: 1,000 in ≤ 200 MB, idle CPU < 2 %).

Each agent has a personal token, a channel of its own and a parked
`romergo_wait_for_builder_command` (what a thousand authors with one agent each look like). Measured
on the server process: RSS before the agents and with all of them parked, CPU while they are parked
and nothing happens, then one command posted to each channel and the time each takes from its post
to its agent.

The full run's idle window (55 s) is longer than one whole wait (50 s, the longest CONTRACT.md
allows): every agent's wait times out once inside it and the agent calls again, as it would all day,
so the figure is the steady state. The agents' first waits run from 10 to 50 s, one length each
(`first_wait`), so their re-polls come spread over the window as after a day of waiting. The same
agents parked on a bare `MCPServer` whose `wait` tool only sleeps (`measure_floor`) give what the
protocol itself costs at that rate. A window shorter than a wait, taken right after the agents
parked, would see only heartbeats (a 10-s window once did, and its figures moved between runs
with how long the agents took to connect).

Both runs count the waits that timed out and were called again inside the window, and the server's
CPU per re-poll compares the two at equal work. (Before the first waits were spread, the floor's
agents all started at one moment and their re-polls came at the window's very end, where a fifth
of them fell outside it: its idle CPU came out lower than its steady state.)
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import resource
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import AsyncExitStack
from dataclasses import asdict, dataclass
from pathlib import Path

from romergo.common.actors import user_actor
from romergo.common.config import Settings
from romergo.services import build_services
from storage.migrate import upgrade
from tests.bench.echo_server import running_echo
from tests.bench.process import cpu_seconds, rss_mb
from tests.support.agents import Agent, OwnerApi, agent
from tests.support.server import RunningServer

Progress = Callable[[str], None]
POSTERS = 8
"""Commands posted at once by the owner's side during the fan-out."""
WAIT_SECONDS = 50
"""Each wait's length: the longest CONTRACT.md allows, as an agent that waits all day would ask."""
FIRST_WAIT_FROM = 10
"""The shortest first wait (s). First waits run from this to WAIT_SECONDS, one length per agent, so
the agents' re-polls come spread over the idle window, as they would after a day of waiting, and
not all at one moment near its end (where some fell outside it: the floor's did)."""
JOINING = 20
"""Agents joining at once: a thousand at the same instant is a connection storm, not a room."""


@dataclass
class WaitersResult:
    agents: int
    rss_before_mb: float
    rss_parked_mb: float
    idle_cpu_percent: float
    idle_seconds: float
    idle_repolls: int
    """Waits that timed out and were called again inside the idle window."""
    fan_out_seconds: float
    delivery_ms: list[float]

    @property
    def extra_mb(self) -> float:
        return self.rss_parked_mb - self.rss_before_mb

    def as_json(self) -> dict[str, object]:
        return asdict(self) | {"extra_mb": self.extra_mb}


async def measure(count: int, idle_seconds: float, progress: Progress) -> WaitersResult:
    _enough_file_descriptors(count)
    with tempfile.TemporaryDirectory() as folder:
        owner_token, agents = await _prepare(Path(folder), count)
        server = RunningServer(
            Path(folder),
            env={
                "ROMERGO_RATE_LIMIT_PER_MINUTE": "1000000",
                "ROMERGO_REGISTRATIONS_PER_MINUTE": "100000",
                # Every agent connects from this machine's one address.
                "ROMERGO_CONNECTIONS_PER_ADDRESS": str(4 * count),
            },
        ).start()
        try:
            return await _run(server, owner_token, agents, idle_seconds, progress)
        finally:
            server.stop()


@dataclass
class FloorResult:
    """The same number of agents and waits against the bare echo server: the protocol's own cost."""

    agents: int
    extra_mb: float
    idle_cpu_percent: float
    idle_seconds: float
    idle_repolls: int

    def as_json(self) -> dict[str, object]:
        return asdict(self)


async def measure_floor(count: int, idle_seconds: float, progress: Progress) -> FloorResult:
    _enough_file_descriptors(count)
    with running_echo() as echo:
        pid = echo.process.pid
        rss_before = rss_mb(pid)
        async with AsyncExitStack() as stack:
            connected = [await stack.enter_async_context(agent(echo.base_url, "none")) for _ in range(count)]
            repolls = Tally()
            waits = [
                asyncio.create_task(_wait_on_echo(me, first_wait(n, count), repolls))
                for n, me in enumerate(connected)
            ]
            try:
                with _client_collecting_rarely():  # as in Romergo's run
                    rss_parked, idle_cpu, idle_repolls = await _parked_and_idle(
                        pid, idle_seconds, progress, f"{count} agents parked on the bare server", repolls
                    )
            finally:
                # Before the clients close, whatever happened: a thousand clients closing under
                # calls still running each raised into the next, and the first error was lost.
                for wait in waits:
                    wait.cancel()
                await asyncio.gather(*waits, return_exceptions=True)
    return FloorResult(
        agents=count,
        extra_mb=rss_parked - rss_before,
        idle_cpu_percent=idle_cpu,
        idle_seconds=idle_seconds,
        idle_repolls=idle_repolls,
    )


async def _wait_on_echo(me: Agent, first: int, repolls: Tally) -> None:
    seconds = first
    while True:
        await me.call("wait", seconds=seconds)
        repolls.count += 1
        seconds = WAIT_SECONDS


def first_wait(n: int, count: int) -> int:
    """Agent `n`'s first wait (s): FIRST_WAIT_FROM for the first agent up to WAIT_SECONDS."""
    return FIRST_WAIT_FROM + (WAIT_SECONDS - FIRST_WAIT_FROM) * n // max(1, count - 1)


async def _run(
    server: RunningServer,
    owner_token: str,
    agents: list[tuple[str, str, str]],
    idle_seconds: float,
    progress: Progress,
) -> WaitersResult:
    assert server.process is not None
    pid = server.process.pid
    rss_before = rss_mb(pid)
    owner = OwnerApi(server.base_url, owner_token)
    delivered: dict[str, float] = {}
    async with AsyncExitStack() as stack:
        connected: list[Agent] = []
        for n, (token, _, _) in enumerate(agents):
            connected.append(await stack.enter_async_context(agent(server.base_url, token)))
            if (n + 1) % 100 == 0:
                progress(f"{n + 1}/{len(agents)} agents connected")
        joining = asyncio.Semaphore(JOINING)
        joined = _Joined(len(agents))
        repolls = Tally()
        waits = [
            asyncio.create_task(
                _wait_for_one(
                    me, channel_id, code, first_wait(n, len(agents)), delivered, joining, joined, repolls
                )
            )
            for n, (me, (_, channel_id, code)) in enumerate(zip(connected, agents, strict=True))
        ]
        await joined.everyone.wait()  # then `_until_quiet` sees their first waits parked
        with _client_collecting_rarely():
            rss_parked, idle_cpu, idle_repolls = await _parked_and_idle(
                pid, idle_seconds, progress, f"{len(agents)} agents parked", repolls
            )
        posted: dict[str, float] = {}
        fan_out_started = time.perf_counter()
        await _post_to_each(owner, [channel_id for _, channel_id, _ in agents], posted)
        await asyncio.gather(*waits)
        fan_out = time.perf_counter() - fan_out_started
    await owner.close()
    return WaitersResult(
        agents=len(agents),
        rss_before_mb=rss_before,
        rss_parked_mb=rss_parked,
        idle_cpu_percent=idle_cpu,
        idle_seconds=idle_seconds,
        idle_repolls=idle_repolls,
        fan_out_seconds=fan_out,
        delivery_ms=[(delivered[c] - posted[c]) * 1000 for c in posted],
    )


async def _prepare(folder: Path, count: int) -> tuple[str, list[tuple[str, str, str]]]:
    """The owner, one project, `count` channels and tokens: written before the server starts."""
    await upgrade(f"sqlite+aiosqlite:///{folder / 'romergo.db'}")
    services = build_services(Settings(data_dir=folder))
    try:
        user = await services.accounts.create_user("ada")
        actor = user_actor(user.id, user.username)
        project = await services.projects.create_project(actor, "Many agents")
        owner_token, _ = await services.agents.personal.create(
            "ada", name="Owner", scopes=["romergo:read", "romergo:control"]
        )
        agents = []
        for n in range(count):
            channel = await services.channels.owner.create_channel(user.id, project.id)
            token, _ = await services.agents.personal.create("ada", name=f"Agent {n}")
            assert channel.code is not None
            agents.append((token, channel.channel_id, channel.code))
        return owner_token, agents
    finally:
        await services.close()


async def _wait_for_one(
    me: Agent,
    channel_id: str,
    code: str,
    first: int,
    delivered: dict[str, float],
    joining: asyncio.Semaphore,
    joined: _Joined,
    repolls: Tally,
) -> None:
    async with joining:
        cursor = (await me.call("romergo_join_builder_channel", code=code))["cursor"]
    joined.one()
    seconds = first
    while True:
        got = await me.call(
            "romergo_wait_for_builder_command",
            channel_id=channel_id,
            cursor=cursor,
            timeout_seconds=seconds,
        )
        if got["status"] == "command":
            delivered[channel_id] = time.perf_counter()
            return
        repolls.count += 1
        cursor, seconds = got["cursor"], WAIT_SECONDS


async def _post_to_each(owner: OwnerApi, channel_ids: list[str], posted: dict[str, float]) -> None:
    queue = list(channel_ids)

    async def poster() -> None:
        while queue:
            channel_id = queue.pop()
            posted[channel_id] = time.perf_counter()
            await owner("POST", f"/channels/{channel_id}/commands", {"text": "Say hello"})

    await asyncio.gather(*(poster() for _ in range(POSTERS)))


async def _parked_and_idle(
    pid: int, seconds: float, progress: Progress, parked: str, repolls: Tally
) -> tuple[float, float, int]:
    """Once every wait has parked: the server's RSS (MB), then its CPU (% of a core) over `seconds`
    and how many waits timed out and were called again meanwhile (the agents' own pace: a
    thousand of them in this one process may call again later than their waits end)."""
    await _until_quiet(pid)
    progress(f"{parked}; measuring {seconds:.0f} s of idle")
    rss_parked = rss_mb(pid)
    before, repolls_before = cpu_seconds(pid), repolls.count
    started = time.perf_counter()
    await asyncio.sleep(seconds)
    idle_cpu = (cpu_seconds(pid) - before) / (time.perf_counter() - started) * 100
    return rss_parked, idle_cpu, repolls.count - repolls_before


async def _until_quiet(pid: int, window: float = 0.5, limit: float = 120) -> None:
    """Until the server spends under 5 % of a core for a whole window: every wait has parked."""
    deadline = time.perf_counter() + limit
    while time.perf_counter() < deadline:
        before = cpu_seconds(pid)
        await asyncio.sleep(window)
        if (cpu_seconds(pid) - before) / window < 0.05:
            return


@dataclass
class Tally:
    count: int = 0


class _Joined:
    def __init__(self, expected: int) -> None:
        self.left = expected
        self.everyone = asyncio.Event()

    def one(self) -> None:
        self.left -= 1
        if self.left == 0:
            self.everyone.set()


@contextlib.contextmanager
def _client_collecting_rarely() -> Iterator[None]:
    """This process (the agents' side) out of its own way while the server is measured. With a
    thousand clients' state its full collections took ~0.5 s each, often: re-polls came late, and a
    pause as long as `_until_quiet`'s window looked like a server with every wait parked."""
    gc.collect()
    gc.freeze()
    thresholds = gc.get_threshold()
    gc.set_threshold(50_000, 20, 10)
    try:
        yield
    finally:
        gc.set_threshold(*thresholds)
        gc.unfreeze()


def _enough_file_descriptors(count: int) -> None:
    """Each agent holds a connection at both ends; the server inherits this process's limit."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = min(hard, max(soft, 4 * count + 1024))
    resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))
