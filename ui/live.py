"""Live pages: re-render a part of a page when the bus reports a change to what it shows."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import Any, Generic, TypeVar

from nicegui import background_tasks, ui

from romergo.common import urls
from romergo.common.bus import EventBus
from ui.context import PageContext

log = logging.getLogger(__name__)
T = TypeVar("T")
DEBOUNCE_SECONDS = 0.05


class LiveTopic(ui.element):
    """Invisible element tied to a bus topic; its lifetime is the subscription's lifetime.

    Bursts of events (an agent making five edits) coalesce into one refresh. An event that arrives
    while a refresh is already re-reading runs one more refresh afterwards: the running one may
    have read the database just before that change was written.

    The subscription ends at once when the element is deleted or its page closes, and at the next
    event on the topic when the element went with its parent's content (`clear()`, a redraw):
    NiceGUI offers elements no public hook for that removal, so the listener checks `is_deleted`.

    With `concerns`, only the events it accepts refresh: it sees each event before bursts are
    coalesced, so a burst whose last event is about something else is not lost.
    """

    def __init__(
        self,
        bus: EventBus,
        topic: str,
        refresh: Callable[[Any], Awaitable[None] | None],
        concerns: Callable[[Any], bool] | None = None,
    ) -> None:
        super().__init__("span")
        self.style("display: none")
        self._refresh = refresh
        self._concerns = concerns
        self._pending: asyncio.Task[None] | None = None
        self._last_event: Any = None
        self._dirty = False
        self._stop = bus.listen(topic, self._on_event)
        self.client.on_delete(self._stop)

    def _on_event(self, event: Any) -> None:
        if self.is_deleted or self.client.is_deleted:
            self._stop()
            return
        if self._concerns is None or self._concerns(event):
            self.wake(event)

    def wake(self, event: Any = None) -> None:
        """Refresh as if `event` had arrived (bursts coalesce the same way)."""
        self._last_event = event
        self._dirty = True
        if self._pending is None or self._pending.done():
            self._pending = background_tasks.create(self._run(), name="live refresh")

    async def _run(self) -> None:
        while self._dirty:
            await asyncio.sleep(DEBOUNCE_SECONDS)
            self._dirty = False
            if self.is_deleted:
                return
            try:
                with self:
                    result = self._refresh(self._last_event)
                    if result is not None:
                        await result
            except Exception:
                log.exception("live refresh failed")

    def delete(self) -> None:
        self._stop()
        super().delete()


def live(
    bus: EventBus,
    topic: str,
    refresh: Callable[[Any], Awaitable[None] | None],
    concerns: Callable[[Any], bool] | None = None,
) -> LiveTopic:
    return LiveTopic(bus, topic, refresh, concerns)


def watch(
    ctx: PageContext,
    topic: str,
    reload: Callable[[], Awaitable[None]],
    concerns: Callable[[Any], bool] | None = None,
) -> LiveTopic:
    """`live` for a signed-in page: re-read on every change (that `concerns` it), or leave once
    the session has ended."""

    async def refresh(_: Any) -> None:
        if not await ctx.still_signed_in():
            ui.navigate.to(urls.LOGIN)
            return
        await reload()

    return live(ctx.services.bus, topic, refresh, concerns)


class Section(Generic[T]):
    """A part of a page that redraws only when what it shows has changed.

    Redrawing destroys the elements (focus, a playing audio preview, a half-open menu): parts that
    a change elsewhere does not touch keep theirs.
    """

    def __init__(self, draw: Callable[[T], None], key: Callable[[T], object]) -> None:
        self._key = key
        self._last: object = None
        self._drawn = False
        self._draw = ui.refreshable(draw)

    def show(self, value: T) -> None:
        """Draw the first time (where the caller stands); afterwards redraw only for a new key (by ==)."""
        key = self._key(value)
        if self._drawn and key == self._last:
            return
        self._last = key
        if self._drawn:
            self._draw.refresh(value)
        else:
            self._drawn = True
            self._draw(value)
