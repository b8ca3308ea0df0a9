"""When an agent stops listening: the "listening" the panel shows ends when the agent's waits do.

A wait marks its agent listening until the end of its window plus a margin (`polling_until`, written
by each of its checks), so a presence left behind runs out by itself. How it ends:

- a wait that ends with a command: its delivery cleared the presence in the same transaction;
- a wait the agent abandoned (it went away mid-wait) or that ended otherwise: cleared at once;
- a wait that timed out: the agent usually calls again at once (a loop) or within a few seconds
  (a model deciding to), so the presence is left to run out by itself at `polling_until`; only then,
  if no new wait of that agent began in this process, is it cleared and the panel told. The common
  case, a thousand agents re-polling all day, costs no write at the end of each wait.

The late clear is conditional: it clears only a `polling_until` no later than the one the timed-out
wait wrote, so a newer wait of the same agent on another instance (whose window ends later) keeps
its presence.
"""

from __future__ import annotations

import asyncio
import logging
from datetime import datetime, timedelta

from romergo.channels.store import ChannelStore, presence_topic

log = logging.getLogger(__name__)
MARGIN = timedelta(seconds=5)
"""How long after its window a wait still counts as listening: the agent's time to call again."""

Key = tuple[str, str]
"""(channel id, client id)."""


class Presence:
    def __init__(self, store: ChannelStore) -> None:
        self.store = store
        self._running_out: dict[Key, asyncio.TimerHandle] = {}
        self._clearing: set[asyncio.Task[None]] = set()

    def listening_until(self, timeout_seconds: float) -> datetime:
        """What a wait of `timeout_seconds` starting now writes as the end of its listening."""
        return self.store.now() + timedelta(seconds=timeout_seconds) + MARGIN

    def wait_began(self, channel_id: str, client_id: str) -> None:
        """A new wait carries the agent's presence on: the earlier one's late clear is not needed."""
        pending = self._running_out.pop((channel_id, client_id), None)
        if pending is not None:
            pending.cancel()

    async def stopped(self, channel_id: str, client_id: str) -> None:
        """The agent stopped listening now."""
        await self._clear(channel_id, client_id, None)

    def timed_out(self, channel_id: str, client_id: str, until: datetime) -> None:
        """The wait ran out: clear its presence at `until` unless another wait began by then."""
        self.wait_began(channel_id, client_id)
        # The wait ends at its window's end, so `until` is one margin away.
        self._running_out[(channel_id, client_id)] = asyncio.get_running_loop().call_later(
            MARGIN.total_seconds(), self._run_out, channel_id, client_id, until
        )

    @property
    def pending(self) -> int:
        """Presences left to run out, and clears under way (for tests and shutdown)."""
        return len(self._running_out) + len(self._clearing)

    async def close(self) -> None:
        """At shutdown: presences left to run out do so by themselves; clears under way finish."""
        for pending in self._running_out.values():
            pending.cancel()
        self._running_out.clear()
        if self._clearing:
            await asyncio.gather(*self._clearing, return_exceptions=True)

    def _run_out(self, channel_id: str, client_id: str, until: datetime) -> None:
        self._running_out.pop((channel_id, client_id), None)
        task = asyncio.create_task(self._clear(channel_id, client_id, until))
        self._clearing.add(task)
        task.add_done_callback(self._clearing.discard)

    async def _clear(self, channel_id: str, client_id: str, until: datetime | None) -> None:
        """Clear the presence (only one ending by `until`, when given) and tell the panel."""
        seen = self.store.now() if until is None else until - MARGIN  # seen when its wait ended
        try:
            cleared = await self.store.ledger.clear_presence(channel_id, client_id, seen, until)
        except Exception:
            # Best effort: `polling_until` runs out by itself, and the panel reads it as such.
            log.warning("could not clear the polling presence of %s", client_id, exc_info=True)
            return
        if cleared:
            self.store.bus.publish(presence_topic(channel_id))
