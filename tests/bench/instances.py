"""Benchmark: delivery across two server processes on one PostgreSQL database (goal: p50 ≤ 10 ms).

Two instances on a fresh database; an agent long-polls instance B. Each round parks its wait, then
the owner posts a command through instance A (cross: the wake-up goes through LISTEN/NOTIFY) or
through B itself (same instance, the baseline), and the time from the post's start to the wait's
return is taken. Rounds alternate, so both see the same machine.
"""

from __future__ import annotations

import asyncio
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from tests.support.agents import OwnerApi, agent
from tests.support.databases import PostgresDatabases
from tests.support.oauth import add_user, personal_token
from tests.support.server import RunningServer

ENV = {"ROMERGO_RATE_LIMIT_PER_MINUTE": "100000"}


async def measure(rounds: int, progress: Callable[[str], None]) -> dict[str, list[float]]:
    """Milliseconds from post to delivery: {"same instance": [...], "across instances": [...]}."""
    databases = PostgresDatabases()
    try:
        async with databases.fresh() as url:
            with tempfile.TemporaryDirectory() as folder:
                env = {**ENV, "ROMERGO_DATABASE_URL": url}
                (Path(folder) / "a").mkdir()
                (Path(folder) / "b").mkdir()
                a = RunningServer(Path(folder) / "a", env=env).start()
                try:
                    add_user(a, "ada")
                    b = RunningServer(Path(folder) / "b", env=env).start()
                    try:
                        return await _rounds(a, b, rounds, progress)
                    finally:
                        b.stop()
                finally:
                    a.stop()
    finally:
        databases.drop_template_now()


async def _rounds(
    a: RunningServer, b: RunningServer, rounds: int, progress: Callable[[str], None]
) -> dict[str, list[float]]:
    control = personal_token(a, "ada", "--scopes", "read,control")
    owners = {
        "across instances": OwnerApi(a.base_url, control),
        "same instance": OwnerApi(b.base_url, control),
    }
    found: dict[str, list[float]] = {"same instance": [], "across instances": []}
    async with agent(b.base_url, personal_token(a, "ada")) as me:
        project = (await owners["same instance"]("GET", "/projects"))["projects"][0]
        channel = await owners["same instance"]("POST", "/channels", {"project_id": project["id"]})
        channel_id = channel["channel_id"]
        cursor = (await me.call("romergo_join_builder_channel", code=channel["code"]))["cursor"]
        for n in range(2 * rounds):
            how = "across instances" if n % 2 else "same instance"
            waiting = asyncio.create_task(me.wait(channel_id, cursor))
            await asyncio.sleep(0.05)  # parked
            started = time.perf_counter()
            await owners[how]("POST", f"/channels/{channel_id}/commands", {"text": f"job {n}"})
            got = await waiting
            found[how].append((time.perf_counter() - started) * 1000)
            cursor = got["cursor"]
            await me.reply_done(got["command"]["command_id"])
            if (n + 1) % 20 == 0:
                progress(f"round {n + 1}/{2 * rounds}")
    for owner in owners.values():
        await owner.close()
    return found
