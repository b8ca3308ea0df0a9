"""Live pages: re-render a part of a page when the bus reports a change to what it shows."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from nicegui import background_tasks, ui

from romergo.bus import EventBus
from ui.context import PageContext

log = logging.getLogger(__name__)
DEBOUNCE_SECONDS = 0.05


class LiveTopic(ui.element):
    """Invisible element tied to a bus topic; its lifetime is the subscription's lifetime.

    Bursts of events (an agent making five edits) coalesce into one refresh.
    """

    def __init__(self, bus: EventBus, topic: str, refresh: Callable[[Any], Awaitable[None] | None]) -> None:
        super().__init__("span")
        self.style("display: none")
        self._refresh = refresh
        self._pending: asyncio.Task[None] | None = None
        self._last_event: Any = None
        self._stop = bus.listen(topic, self._on_event)

    def _on_event(self, event: Any) -> None:
        if self.is_deleted or self.client.is_deleted:
            self._stop()
            return
        self._last_event = event
        if self._pending is None or self._pending.done():
            self._pending = background_tasks.create(self._run(), name="live refresh")

    async def _run(self) -> None:
        await asyncio.sleep(DEBOUNCE_SECONDS)
        if self.is_deleted:
            return
        try:
            with self:
                result = self._refresh(self._last_event)
                if result is not None:
                    await result
        except Exception:
            log.exception("live refresh failed")

    def _handle_delete(self) -> None:
        self._stop()
        super()._handle_delete()


def live(bus: EventBus, topic: str, refresh: Callable[[Any], Awaitable[None] | None]) -> LiveTopic:
    return LiveTopic(bus, topic, refresh)


def watch(ctx: PageContext, topic: str, reload: Callable[[], Awaitable[None]]) -> LiveTopic:
    """`live` for a signed-in page: re-read on every change, or leave once the session has ended."""

    async def refresh(_: Any) -> None:
        if not await ctx.still_signed_in():
            ui.navigate.to("/login")
            return
        await reload()

    return live(ctx.services.bus, topic, refresh)
