"""Benchmark: the Builder loop's latencies over real HTTP against a real server process.

    .venv/bin/python -m tests.bench.loop_latency [rounds]

Prints p50 / p90 / max in milliseconds for:
- delivery: the owner posts a command (JSON API) → the agent's parked wait returns it (MCP);
- end: the owner ends the channel → a parked wait returns `channel_ended`;
- remove: the owner removes the agent from a live channel → its parked wait returns `channel_ended`;
- read tool: one `romergo_get_scene` round trip;
- report: one `romergo_report_builder_event` (status) round trip;
- reply: the round's last call, the `reply` that ends the command (its one change recorded with it,
  and compared with the summary, which names it);
- edit tool: one `romergo_update_dialogue_line` round trip, through the guard, inside the command;
- edit direct: the same change by calling the story service in-process (no protocol, no guard);
- delivery floor: the bare server below doing the same with nothing behind it: a JSON POST to it
  → its parked `wait_for_post` call returns the text (two HTTP exchanges and a wake-up);
- read floor: the bare server below answering with that same `romergo_get_scene` result under the
  same output schema (`replay`): what the protocol costs for an answer of that size and shape;
- echo: one call of a bare `MCPServer` echo tool in another process (`tests.bench.echo_server`),
  by the same SDK client, interleaved with the rounds above: the floor every ratio is taken against;
- first delivery: the first round's delivery, on its own. The first round of every step is a warm-up
  and is left out of the others: the server and the agent's SDK client each pay a once-per-process
  cost on it (the client's first validation of the wait's output schema, mostly; docs/performance.md).
Not part of the test suite: figures on a shared machine are noisy; they are for comparison.
"""

from __future__ import annotations

import asyncio
import contextlib
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import httpx

from romergo.common.actors import user_actor
from romergo.common.config import Settings
from romergo.services import build_services
from tests.bench.room import bench_room, replaying
from tests.support.agents import Agent, OwnerApi


def line(name: str, samples: list[float], floor: float) -> str:
    ordered = sorted(samples)
    p90 = ordered[int(len(ordered) * 0.9) - 1] if len(ordered) >= 10 else ordered[-1]
    p50 = statistics.median(ordered)
    return (
        f"{name:<12} n={len(samples):<4} p50={p50:7.1f} ms  p90={p90:7.1f} ms  "
        f"max={ordered[-1]:7.1f} ms  p50/echo={p50 / floor:5.1f}x"
    )


async def main(rounds: int) -> None:
    samples = await measure(rounds)
    echo_p50 = statistics.median(samples["echo"])
    for name, values in samples.items():
        print(line(name, values, echo_p50))


async def measure(rounds: int, progress: Callable[[str], None] = lambda _: None) -> dict[str, list[float]]:
    """Milliseconds per step, by step name ("echo" first: the floor of the others)."""
    with tempfile.TemporaryDirectory() as folder:
        outline_scene = None
        delivery: list[float] = []
        ended: list[float] = []
        removed: list[float] = []
        reads: list[float] = []
        reports: list[float] = []
        replies: list[float] = []
        edits: list[float] = []
        echoes: list[float] = []
        replays: list[float] = []
        floor_deliveries: list[float] = []
        line_id = ""
        async with (
            bench_room(Path(folder), calls_per_minute=100_000) as room,
            contextlib.AsyncExitStack() as later,
            httpx.AsyncClient(base_url=room.echo.base_url) as bare_owner,
        ):
            owner, floor, me, channel_id, cursor = (
                room.owner,
                room.floor,
                room.me,
                room.channel_id,
                room.cursor,
            )
            for n in range(rounds + 1):  # round 0 warms up: see the module's docstring
                waiting = asyncio.create_task(me.wait(channel_id, cursor))
                await asyncio.sleep(0.05)
                started = time.perf_counter()
                await owner("POST", f"/channels/{channel_id}/commands", {"text": f"job {n}"})
                got = await waiting
                delivery.append((time.perf_counter() - started) * 1000)
                cursor = got["cursor"]
                command_id = got["command"]["command_id"]
                started = time.perf_counter()
                await me.call(
                    "romergo_report_builder_event", command_id=command_id, kind="status", text="on it"
                )
                reports.append((time.perf_counter() - started) * 1000)
                if n and n % 10 == 0:
                    progress(f"round {n}/{rounds}")
                if outline_scene is None:
                    outline = await me.call("romergo_get_project_outline", project_id=room.project_id)
                    outline_scene = outline["untrusted_content"]["data"]["chapters"][0]["scenes"][0]["id"]
                    replayer = await later.enter_async_context(
                        replaying(floor, me, room.echo.base_url, outline_scene)
                    )
                started = time.perf_counter()
                scene = await me.call("romergo_get_scene", scene_id=outline_scene)
                reads.append((time.perf_counter() - started) * 1000)
                line_id = line_id or scene["untrusted_content"]["data"]["lines"][0]["id"]
                started = time.perf_counter()
                await me.call(
                    "romergo_update_dialogue_line",
                    line_id=line_id,
                    text=f"Take {n}",
                    command_id=command_id,
                )
                edits.append((time.perf_counter() - started) * 1000)
                started = time.perf_counter()
                await floor.call("echo", text="job")
                echoes.append((time.perf_counter() - started) * 1000)
                started = time.perf_counter()
                await replayer.call("replay")
                replays.append((time.perf_counter() - started) * 1000)
                # Last in the round, so its idle gap does not fall between Romergo's steps.
                floor_deliveries.append(await _bare_delivery(floor, bare_owner, f"job {n}"))
                changed = [{"type": "dialogue_line", "id": line_id}]
                started = time.perf_counter()
                await me.call(
                    "romergo_report_builder_event",
                    command_id=command_id,
                    kind="reply",
                    text="done",
                    summary={
                        "status": "success",
                        "description": "Retook a line.",
                        "changed_entities": changed,
                    },
                )
                replies.append((time.perf_counter() - started) * 1000)
            first_delivery = [delivery.pop(0)]
            for warm_up in (reports, replies, reads, edits, echoes, replays, floor_deliveries):
                del warm_up[0]
            for n in range(2 * max(5, rounds // 10)):
                (removed if n % 2 else ended).append(
                    await _ended_wait(owner, me, room.project_id, n % 2 == 1)
                )
        direct = await _direct_edits(Path(folder), line_id, rounds)
    return {
        "echo": echoes,
        "delivery": delivery,
        "delivery floor": floor_deliveries,
        "first delivery": first_delivery,
        "end": ended,
        "remove": removed,
        "read tool": reads,
        "read floor": replays,
        "report": reports,
        "reply": replies,
        "edit tool": edits,
        "edit direct": direct,
    }


async def _ended_wait(owner: OwnerApi, me: Agent, project_id: str, remove: bool) -> float:
    """Milliseconds from the owner ending a fresh channel (or removing the agent from it) to the
    agent's parked wait in it returning `channel_ended`."""
    channel = await owner("POST", "/channels", {"project_id": project_id})
    joined = await me.call("romergo_join_builder_channel", code=channel["code"])
    waiting = asyncio.create_task(me.wait(channel["channel_id"], joined["cursor"]))
    await asyncio.sleep(0.1)
    base = f"/channels/{channel['channel_id']}"
    if remove:
        client_id = (await owner("GET", base))["members"][0]["client_id"]
        started = time.perf_counter()
        await owner("DELETE", f"{base}/members/{client_id}")
    else:
        started = time.perf_counter()
        await owner("POST", f"{base}/end")
    assert (await waiting)["status"] == "channel_ended"
    return (time.perf_counter() - started) * 1000


async def _bare_delivery(floor: Agent, owner: httpx.AsyncClient, text: str) -> float:
    """Milliseconds from a POST to the bare server to its parked `wait_for_post` returning it."""
    waiting = asyncio.create_task(floor.call("wait_for_post", seconds=30))
    await asyncio.sleep(0.05)
    started = time.perf_counter()
    answer = await owner.post("/post", json={"text": text})
    answer.raise_for_status()
    answer.json()
    got = await waiting
    took = (time.perf_counter() - started) * 1000
    assert got["text"] == text, got
    return took


async def _direct_edits(folder: Path, line_id: str, rounds: int) -> list[float]:
    """The same change as "edit tool", made by calling the story service in-process (the server is
    stopped: one writer on the file), so the guard's and the protocol's share shows."""
    services = build_services(Settings(data_dir=folder))
    try:
        user = await services.accounts.user_by_name("ada")
        assert user is not None
        actor = user_actor(user.id, user.username)
        times = []
        for n in range(rounds + 1):
            started = time.perf_counter()
            await services.lines.update_line(actor, line_id, f"Direct take {n}")
            times.append((time.perf_counter() - started) * 1000)
        return times[1:]  # the first call pays for the engine's first connection
    finally:
        await services.close()


if __name__ == "__main__":
    asyncio.run(main(int(sys.argv[1]) if len(sys.argv) > 1 else 50))
