"""The in-process bus wakes only the listeners and waiters of the topic that changed."""

from __future__ import annotations

import asyncio

from romergo.common.bus import EventBus
from tests.support.waiting import still_running


async def test_publish_reaches_listeners_of_that_topic_only():
    bus = EventBus()
    seen: list[tuple[str, object]] = []
    stop = bus.listen("project:a", lambda event: seen.append(("a", event)))
    bus.listen("project:b", lambda event: seen.append(("b", event)))

    bus.publish("project:a", 1)
    stop()
    bus.publish("project:a", 2)

    assert seen == [("a", 1)]
    assert bus.listener_count("project:a") == 0


async def test_async_listeners_run_and_a_failing_listener_does_not_stop_the_others():
    bus = EventBus()
    done = asyncio.Event()

    def broken(_: object) -> None:
        raise RuntimeError("listener bug")

    async def good(_: object) -> None:
        done.set()

    bus.listen("t", broken)
    bus.listen("t", good)
    bus.publish("t", None)
    await asyncio.wait_for(done.wait(), 1)


async def test_wait_wakes_on_publish_and_times_out_otherwise():
    bus = EventBus()
    waiter = asyncio.create_task(bus.wait("channel:x", timeout=5))
    assert await still_running(waiter, 0.01)  # parked
    bus.publish("channel:y")
    assert await still_running(waiter, 0.01)  # another topic does not wake it
    bus.publish("channel:x")
    assert await waiter is True
    assert await bus.wait("channel:x", timeout=0.01) is False
    assert bus.listener_count("channel:x") == 0


async def test_a_subscription_keeps_what_was_published_before_its_wait():
    bus = EventBus()
    with bus.subscription("channel:x") as wake:
        bus.publish("channel:x")  # e.g. while the long-poll was still reading
        assert await wake.wait(timeout=5) is True  # at once, not after the timeout
        assert await wake.wait(timeout=0.01) is False  # that wake-up is used up
    assert bus.listener_count("channel:x") == 0
