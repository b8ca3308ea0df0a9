"""Parking a long-poll: check, sleep until the channel changes, check again, until the deadline.

The three parked calls of a channel (an agent's wait for a command, a tool call waiting for the
owner's "Allow once", the panel's wait for events) share this loop. A parked call reads the
database only when its channel's topic is published (every change to a channel publishes it after
the commit, the sweeper's expiries and stalls included): the subscription opens before the first
read, so nothing published in between is missed. The heartbeat (MCP progress, so clients keep the
call open) runs on its own timer and reads nothing: a thousand idle agents cost no queries.
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Awaitable, Callable
from typing import TypeVar

from romergo.common.bus import EventBus, Wakeup

T = TypeVar("T")
Check = Callable[[float], Awaitable[T | None]]
"""Given the seconds left, the call's result now, or None to keep parking."""
Heartbeat = Callable[[], Awaitable[None]]


async def park(
    bus: EventBus,
    topic: str,
    seconds: float,
    check: Check[T],
    *,
    heartbeat: Heartbeat | None = None,
    heartbeat_seconds: float = 10.0,
) -> T | None:
    """The first result `check` gives, run now and after each publish on `topic`; None once
    `seconds` passed without one."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + seconds
    beat = _Beat(heartbeat, heartbeat_seconds, loop.time())
    with bus.subscription(topic) as wake:
        while True:
            result = await check(deadline - loop.time())
            if result is not None:
                return result
            if not await _until_woken(wake, deadline, beat):
                return None


class _Beat:
    def __init__(self, heartbeat: Heartbeat | None, every: float, now: float) -> None:
        self.heartbeat = heartbeat
        self.every = every
        self.due = now + every if heartbeat is not None else math.inf

    async def maybe(self, now: float) -> None:
        if self.heartbeat is not None and now >= self.due:
            await self.heartbeat()
            self.due = asyncio.get_running_loop().time() + self.every


async def _until_woken(wake: Wakeup, deadline: float, beat: _Beat) -> bool:
    """True when the topic was published, False when the deadline came first; beats meanwhile."""
    loop = asyncio.get_running_loop()
    while (now := loop.time()) < deadline:
        if await wake.wait(min(deadline, beat.due) - now):
            return True
        await beat.maybe(loop.time())
    return False
