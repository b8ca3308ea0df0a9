"""The in-process event bus: wake-ups for open pages and long-polls, keyed by topic.

Data is always written first and published after the commit; listeners re-read what they need,
so a lost or late wake-up costs latency, never correctness (DESIGN.md §6). Topics keep the
fan-out narrow: a change to one project wakes only that project's listeners.

With several processes on one PostgreSQL database, a `relay` carries each published topic to the
other processes (`storage.wakeups`), which hand it to their bus with `deliver`; after the relay
lost its connection it calls `wake_all`, and every waiter and page re-reads.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
from collections import defaultdict
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from typing import Any, Protocol

log = logging.getLogger(__name__)

Listener = Callable[[Any], Awaitable[None] | None]


class Relay(Protocol):
    def send(self, topic: str) -> None: ...

    def notice(self, topic: str) -> tuple[Any, dict[str, Any]]:
        """A statement and its parameters that tell the other processes about `topic` when the
        write transaction it runs in commits (`EventBus.notices`)."""
        ...


class EventBus:
    def __init__(self) -> None:
        self._listeners: dict[str, list[Listener]] = defaultdict(list)
        self._waiters: dict[str, set[asyncio.Event]] = defaultdict(set)
        self._tasks: set[asyncio.Task[None]] = set()
        self.relay: Relay | None = None

    def listen(self, topic: str, listener: Listener) -> Callable[[], None]:
        """Call `listener(event)` for every event on `topic`; returns the function that stops it."""
        self._listeners[topic].append(listener)

        def stop() -> None:
            listeners = self._listeners.get(topic)
            if listeners and listener in listeners:
                listeners.remove(listener)
                if not listeners:
                    del self._listeners[topic]

        return stop

    async def wait(self, topic: str, timeout: float) -> bool:  # noqa: ASYNC109 - a long-poll primitive
        """Park until something is published on `topic`; False when `timeout` passed first."""
        with self.subscription(topic) as wake:
            return await wake.wait(timeout)

    @contextmanager
    def subscription(self, topic: str) -> Iterator[Wakeup]:
        """Wake-ups on `topic` for the block, kept from the moment it opens.

        A long-poll subscribes *before* it reads, so a publish that lands between its read and its
        wait still wakes it: no re-reading on a timer is needed to catch what fell in between.
        """
        wake = Wakeup()
        self._waiters[topic].add(wake.event)
        try:
            yield wake
        finally:
            waiters = self._waiters.get(topic)
            if waiters is not None:
                waiters.discard(wake.event)
                if not waiters:
                    del self._waiters[topic]

    def publish(self, topic: str, event: Any = None) -> None:
        """Wake `topic`'s waiters and listeners here, and in the other processes if there is a relay."""
        self.deliver(topic, event)
        if self.relay is not None:
            self.relay.send(topic)

    def notices(self, topic: str) -> list[tuple[Any, dict[str, Any]]]:
        """What a write on the database's driver runs to publish `topic` to the other processes at
        its commit (none without a relay); after the commit, `deliver` wakes this process.

        Spares the round trip and the hand-off a `publish` after the commit costs before the other
        processes hear of it (a post reaching an agent parked on another instance)."""
        return [] if self.relay is None else [self.relay.notice(topic)]

    def wake_all(self) -> None:
        """Every waiter and listener re-reads (wake-ups from other processes may have been lost)."""
        for topic in {*self._waiters, *self._listeners}:
            self.deliver(topic)

    def deliver(self, topic: str, event: Any = None) -> None:
        """Wake `topic` in this process only (what a relay does with another process's publish)."""
        for waiter in self._waiters.get(topic, ()):
            waiter.set()
        for listener in list(self._listeners.get(topic, ())):
            try:
                result = listener(event)
            except Exception:
                log.exception("bus listener for %s failed", topic)
                continue
            if inspect.isawaitable(result):
                task = asyncio.ensure_future(result)
                self._tasks.add(task)
                task.add_done_callback(self._finished)

    def listener_count(self, topic: str) -> int:
        return len(self._listeners.get(topic, ())) + len(self._waiters.get(topic, ()))

    def _finished(self, task: asyncio.Task[None]) -> None:
        self._tasks.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.error("bus listener failed", exc_info=task.exception())


class Wakeup:
    """What a subscription has seen since it last woke its owner."""

    def __init__(self) -> None:
        self.event = asyncio.Event()

    async def wait(self, timeout: float) -> bool:  # noqa: ASYNC109 - a long-poll primitive
        """True at once if something was published since the last wake-up, else when it is; False
        when `timeout` passes first."""
        try:
            async with asyncio.timeout(max(timeout, 0)):
                await self.event.wait()
        except TimeoutError:
            return False
        self.event.clear()
        return True


def project_topic(project_id: str) -> str:
    return f"project:{project_id}"


def user_topic(user_id: str) -> str:
    """Project list changes (created, renamed, deleted) for one user's pages."""
    return f"user:{user_id}"
