"""An ordinary reader beside a hostile call: how long each of its reads waits while the call runs.

Latencies are measured over real HTTP against a server process, so a call that blocks the server's
event loop shows up as a slow read here, whatever the hostile call itself answers.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from tests.support.tools import Agent

READS_AT_LEAST = 3
T = TypeVar("T")


@dataclass(frozen=True)
class Demo:
    project_id: str
    scene_id: str


async def demo_of(agent: Agent) -> Demo:
    """The agent's first project (the demo) and its first scene."""
    projects = (await agent.ok("romergo_list_projects"))["projects"]
    project_id = projects[0]["id"]
    outline = await agent.ok("romergo_get_project_outline", project_id=project_id)
    return Demo(project_id, outline["chapters"][0]["scenes"][0]["id"])


async def reads_while(reader: Agent, scene_id: str, hostile: Awaitable[T]) -> tuple[T, list[float]]:
    """Run `hostile`; meanwhile read the scene again and again until it is done (and at least
    `READS_AT_LEAST` times). Returns its answer and how long each read took, in seconds."""
    task = asyncio.ensure_future(hostile)
    latencies: list[float] = []
    while not task.done() or len(latencies) < READS_AT_LEAST:
        started = time.monotonic()
        await reader.ok("romergo_get_scene", scene_id=scene_id)
        latencies.append(time.monotonic() - started)
    return await task, latencies


async def reads_for(reader: Agent, scene_id: str, seconds: float) -> list[float]:
    """Read the scene again and again for `seconds` (a measuring window, not a pause)."""
    latencies: list[float] = []
    until = time.monotonic() + seconds
    while time.monotonic() < until:
        started = time.monotonic()
        await reader.ok("romergo_get_scene", scene_id=scene_id)
        latencies.append(time.monotonic() - started)
    return latencies


def resident_mb(pid: int) -> float:
    """The process's resident memory (VmRSS), in MB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise AssertionError(f"no VmRSS for process {pid}")


def refusal(result: Any) -> str:
    """The text of a refused tool call."""
    assert result.is_error, f"should have been refused: {result.content[0].text[:300]}"
    text: str = result.content[0].text
    return text
