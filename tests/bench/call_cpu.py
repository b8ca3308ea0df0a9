"""Benchmark: where one MCP call's time goes, as CPU on each side of it.

    .venv/bin/python -m tests.bench.call_cpu [calls]

For each kind of call, made back to back by one agent, prints the CPU time per call of the server
that answered it and of the agent's process (the SDK client), beside the call's p50:
- echo: the bare `MCPServer`'s echo tool (`tests.bench.echo_server`), the floor of every ratio;
- replay: the bare server answering with `romergo_get_scene`'s very result under that tool's output
  schema, so the answer's size and shape cost what they cost and nothing of Romergo's runs;
- read, edit, report: `romergo_get_scene`, `romergo_update_dialogue_line` and
  `romergo_report_builder_event` (status) inside a command, against `romergo serve`.

Server CPU comes from the kernel's per-thread run time (`/proc/<pid>/task/*/schedstat`,
nanoseconds), summed over the process's threads, so work a call leaves behind it (the tool events
written just after it) counts for the call; the agent's from `resource.getrusage`. A call's wall
time is roughly the two CPU times plus the hops between processes, so the rows say which side a
difference lies on. Not part of the test suite's timings: figures on a shared machine are noisy.
"""

from __future__ import annotations

import asyncio
import resource
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path

from tests.bench.process import run_seconds
from tests.bench.room import bench_room, replaying

Call = Callable[[], Awaitable[object]]
SETTLE_SECONDS = 0.05
"""Waited after a kind's last call before the server's CPU is read: what it left behind lands."""


@dataclass(frozen=True)
class CallCpu:
    kind: str
    server_ms: float
    agent_ms: float
    p50_ms: float

    def __str__(self) -> str:
        return (
            f"{self.kind:<7} server {self.server_ms:5.2f} ms  agent {self.agent_ms:5.2f} ms  "
            f"p50 {self.p50_ms:5.2f} ms"
        )


async def main(calls: int) -> None:
    for row in await measure(calls):
        print(row, flush=True)


async def measure(calls: int) -> list[CallCpu]:
    """CPU per call on both sides, for each kind of call (echo first: the floor)."""
    with tempfile.TemporaryDirectory() as folder:
        async with bench_room(Path(folder), calls_per_minute=1_000_000) as room:
            me, floor = room.me, room.floor
            waiting = asyncio.create_task(me.wait(room.channel_id, room.cursor))
            await asyncio.sleep(0.05)
            await room.owner("POST", f"/channels/{room.channel_id}/commands", {"text": "Tidy the opening"})
            command_id = (await waiting)["command"]["command_id"]
            outline = await me.call("romergo_get_project_outline", project_id=room.project_id)
            scene_id = outline["untrusted_content"]["data"]["chapters"][0]["scenes"][0]["id"]
            scene = await me.call("romergo_get_scene", scene_id=scene_id)
            line_id = scene["untrusted_content"]["data"]["lines"][0]["id"]
            async with replaying(floor, me, room.echo.base_url, scene_id) as replayer:
                bare, romergo = room.echo.process.pid, room.server_pid

                async def edit() -> object:
                    return await me.call(
                        "romergo_update_dialogue_line", line_id=line_id, text="Hi", command_id=command_id
                    )

                async def report() -> object:
                    return await me.call(
                        "romergo_report_builder_event", command_id=command_id, kind="status", text="On it"
                    )

                kinds: list[tuple[str, int, Call]] = [
                    ("echo", bare, lambda: floor.call("echo", text="job")),
                    ("replay", bare, lambda: replayer.call("replay")),
                    ("read", romergo, lambda: me.call("romergo_get_scene", scene_id=scene_id)),
                    ("edit", romergo, edit),
                    ("report", romergo, report),
                ]
                return [await _one_kind(kind, pid, call, calls) for kind, pid, call in kinds]


async def _one_kind(kind: str, pid: int, call: Call, calls: int) -> CallCpu:
    for _ in range(max(5, calls // 10)):  # warm-up: first-use costs on both sides
        await call()
    await asyncio.sleep(SETTLE_SECONDS)
    server_before, agent_before = run_seconds(pid), _own_cpu_seconds()
    took = []
    for _ in range(calls):
        started = time.perf_counter()
        await call()
        took.append((time.perf_counter() - started) * 1000)
    agent_after = _own_cpu_seconds()
    await asyncio.sleep(SETTLE_SECONDS)
    server_after = run_seconds(pid)
    return CallCpu(
        kind=kind,
        server_ms=(server_after - server_before) / calls * 1000,
        agent_ms=(agent_after - agent_before) / calls * 1000,
        p50_ms=statistics.median(took),
    )


def _own_cpu_seconds() -> float:
    used = resource.getrusage(resource.RUSAGE_SELF)
    return used.ru_utime + used.ru_stime


if __name__ == "__main__":
    asyncio.run(main(int(sys.argv[1]) if len(sys.argv) > 1 else 500))
