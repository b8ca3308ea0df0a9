"""The budget every fuzzed call keeps against a server process: it answers in time, an ordinary
read made while it runs answers promptly (a call that holds the event loop holds the read too),
and the server's memory, at its peak during the call and kept over the run, stays bounded.

Also the one event loop a module's synchronous hypothesis tests drive (`held_loop`).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Iterator
from contextlib import AsyncExitStack, contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

T = TypeVar("T")

CALL_SECONDS = 3.0
"""Every call answers within this (generous: a shared machine; an unbounded call takes 5-120 s)."""
NEIGHBOUR_SECONDS = 2.5
"""An ordinary read made while a fuzzed call runs answers within this (a stall of the loop held one
2-8 s; a busy two-core machine running the other half of the suite alone adds up to ~1.6 s)."""
CALL_PEAK_BYTES = 150 * 1024 * 1024
"""How much more memory the server may take, at its peak, while one call runs."""
RUN_GROWTH_BYTES = 150 * 1024 * 1024
"""How much the server's resident memory may grow over a module's fuzz."""
GIVE_UP_SECONDS = 20.0
"""A call still unanswered after this is cut off (and fails the budget) so the run goes on."""


@dataclass
class Held:
    """The module's loop and the task holding what `furnish` opened."""

    loop: asyncio.AbstractEventLoop
    holder: asyncio.Task[None]

    def run(self, awaitable: Awaitable[T]) -> T:
        value = self.loop.run_until_complete(awaitable)
        if self.holder.done():  # a client's own task failed and took the connections down with it
            raise AssertionError(f"the clients stopped: {self.holder.exception()!r}")
        return value


@contextmanager
def held_loop(furnish: Callable[[AsyncExitStack], Awaitable[T]]) -> Iterator[tuple[Held, T]]:
    """One event loop for a module, driven by its synchronous hypothesis tests.

    What `furnish` opens (clients, sessions) is entered by one task that lives as long as the
    module, since anyio's scopes must end in the task that began them; the tests' calls run as
    other tasks on the same loop (`loop.run_until_complete`).
    """
    loop = asyncio.new_event_loop()
    ready: asyncio.Future[T] = loop.create_future()
    done = asyncio.Event()

    async def hold() -> None:
        async with AsyncExitStack() as stack:
            try:
                ready.set_result(await furnish(stack))
            except BaseException as error:
                ready.set_exception(error)
                raise
            await done.wait()

    holder = loop.create_task(hold())
    try:
        yield Held(loop, holder), loop.run_until_complete(ready)
    finally:
        done.set()
        with suppress(BaseException):
            loop.run_until_complete(holder)
        loop.close()


@dataclass
class Budget:
    """Runs each fuzzed call on the module's loop and asserts its budget."""

    held: Held
    memory: Memory
    neighbour: Callable[[], Awaitable[Any]]
    stuck: str = ""
    """A call the server never finished: later calls cannot be measured, so they fail at once."""

    def run(self, call: Awaitable[T], what: str, seconds: float = CALL_SECONDS) -> T | None:
        assert not self.stuck, f"the server still has not answered since {self.stuck}"
        self.memory.call_starts()
        timed = self.held.run(alongside(call, self.neighbour))
        if max(timed.seconds, timed.neighbour_seconds) >= GIVE_UP_SECONDS:
            self.stuck = what
        assert_within_budget(timed, what, seconds)
        self.memory.assert_bounded(what)
        return timed.value


@dataclass
class Timed:
    value: Any
    seconds: float
    neighbour_seconds: float
    """The slowest ordinary read made while the call ran."""


async def alongside(call: Awaitable[T], neighbour: Callable[[], Awaitable[Any]]) -> Timed:
    """Run `call` while an ordinary read (`neighbour`) is made again and again, one after another,
    until the call has answered: a call that holds the event loop holds the read too."""
    started = time.monotonic()
    task = asyncio.ensure_future(asyncio.wait_for(call, GIVE_UP_SECONDS))
    slowest = 0.0
    while True:
        asked = time.monotonic()
        with suppress(TimeoutError):  # a read that never answers counts as the whole wait
            await asyncio.wait_for(neighbour(), GIVE_UP_SECONDS)
        slowest = max(slowest, time.monotonic() - asked)
        if task.done():
            break
    try:
        value = await task
    except TimeoutError:
        value = None
    finished = time.monotonic() - started
    return Timed(value, finished if value is not None else GIVE_UP_SECONDS, slowest)


def assert_within_budget(timed: Timed, what: str, seconds: float = CALL_SECONDS) -> None:
    assert timed.seconds < seconds, f"{what} took {timed.seconds:.1f} s (budget {seconds} s)"
    assert timed.neighbour_seconds < NEIGHBOUR_SECONDS, (
        f"an ordinary read waited {timed.neighbour_seconds:.1f} s while {what} ran "
        f"(budget {NEIGHBOUR_SECONDS} s)"
    )


def _status(pid: int, field_name: str) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field_name + ":"):
            return int(line.split()[1]) * 1024
    raise AssertionError(f"no {field_name} for process {pid}")


@dataclass
class Memory:
    """The server's memory, from /proc: its peak during each call (taken for a moment and given
    back still counts) and what it keeps over the whole run."""

    pid: int
    baseline: int = 0
    before_call: int = 0

    def __post_init__(self) -> None:
        self.baseline = _status(self.pid, "VmRSS")

    def call_starts(self) -> None:
        # Writing 5 to clear_refs sets the process's peak (VmHWM) back to what it holds now.
        Path(f"/proc/{self.pid}/clear_refs").write_text("5")
        self.before_call = _status(self.pid, "VmRSS")

    def assert_bounded(self, what: str) -> None:
        peak = _status(self.pid, "VmHWM") - self.before_call
        kept = _status(self.pid, "VmRSS") - self.baseline
        assert peak < CALL_PEAK_BYTES, (
            f"the server took {peak / 2**20:.0f} MB more for {what} (budget {_mb(CALL_PEAK_BYTES)})"
        )
        assert kept < RUN_GROWTH_BYTES, (
            f"the server has grown by {kept / 2**20:.0f} MB by {what} (budget {_mb(RUN_GROWTH_BYTES)})"
        )


def _mb(count: int) -> str:
    return f"{count / 2**20:.0f} MB"
