"""Waiting for a condition, never for a fixed time.

Where something announces itself (a bus topic, an event stream, a task), tests await that. Where
nothing does (a row another process writes, a NiceGUI element a task builds, a page's presence),
`until` re-checks the condition and fails with `what` at the deadline: the test takes as long as
the condition needs, and a condition that never comes fails instead of hanging.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Awaitable, Callable
from typing import TypeVar

T = TypeVar("T")
CHECK_EVERY = 0.01
"""Seconds between two checks: short, so a met condition is seen at once; not a synchronisation."""


async def until(check: Callable[[], T | Awaitable[T]], *, timeout: float = 10.0, what: str = "") -> T:
    """Return `check()`'s first truthy value (it may be a coroutine function)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        value = check()
        if inspect.isawaitable(value):
            value = await value
        if value:
            return value
        if loop.time() > deadline:
            raise AssertionError(f"gave up after {timeout} s waiting for {what or check}")
        await asyncio.sleep(CHECK_EVERY)


async def still_running(task: asyncio.Future[object], seconds: float) -> bool:
    """True when `task` has not finished within `seconds`: for asserting that something waits."""
    done, _ = await asyncio.wait({task}, timeout=seconds)
    return not done
