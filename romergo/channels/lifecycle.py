"""Time-driven transitions: silent commands stall when their lease runs out, channels expire.

One sweeper task per server process. It only writes transitions that are already due, inside
conditional updates, so several processes sweeping the same database do no harm.
"""

from __future__ import annotations

import asyncio
import logging
from datetime import timedelta

from romergo.channels.actors import SYSTEM_ACTOR
from romergo.channels.confirmations import Confirmations
from romergo.channels.events import Stalled
from romergo.channels.owner import finish_channel
from romergo.channels.store import ChannelStore
from romergo.channels.vocabulary import LEASED_STATES, EventKind

log = logging.getLogger(__name__)


class Sweeper:
    def __init__(self, store: ChannelStore, confirmations: Confirmations) -> None:
        self.store = store
        self.confirmations = confirmations

    @property
    def sweep_seconds(self) -> float:
        return max(0.25, min(self.store.settings.command_lease_seconds / 4, 5.0))

    async def sweep(self) -> tuple[int, int]:
        """Stall commands whose lease ran out and end expired channels. Returns (stalled, expired).

        Every instance runs it; on a shared database one sweeps at a time (`take_turn`), so a
        command is stalled once, not once per instance."""
        lease = timedelta(seconds=self.store.settings.command_lease_seconds)
        async with self.store.tx() as tx:
            if not await self.store.db.take_turn(tx.session, "sweep"):
                return 0, 0  # another instance on this database is sweeping right now
            now = tx.now()
            silent = await tx.room_ledger.silent_commands(LEASED_STATES, now - lease)
            for command in silent:
                await tx.command_event(
                    command,
                    EventKind.STALLED,
                    SYSTEM_ACTOR,
                    Stalled(claimed_by=command.claimed_by),
                )
            expired = await tx.room_ledger.rooms_run_out(now)
            for room in expired:
                await finish_channel(tx, room, "expired", SYSTEM_ACTOR)
            await self.confirmations.expire_confirmations(tx, now)
            return len(silent), len(expired)

    async def run(self) -> None:
        """Runs until cancelled (the server's lifespan cancels it at shutdown)."""
        while True:
            try:
                await self.sweep()
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("channel sweep failed; trying again")
            await asyncio.sleep(self.sweep_seconds)
