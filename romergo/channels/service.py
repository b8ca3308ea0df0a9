"""The channel service, composed in one place from its small parts.

`owner` (open, tune, command, cancel, retry, end), `agent` (join, wait, report, leave),
`guard` (every tool call), `confirmations` (the owner's "Allow once") and `sweeper` (leases and
expiry) share one `store`: the database, the bus, the settings and the clock.
"""

from __future__ import annotations

from dataclasses import dataclass

from romergo.channels.agent_side import AgentSide
from romergo.channels.at_work import AtWork
from romergo.channels.calls import CallGuard
from romergo.channels.confirmations import Confirmations
from romergo.channels.delivery import Delivery
from romergo.channels.ledger import ChannelLedger
from romergo.channels.lifecycle import Sweeper
from romergo.channels.owner import OwnerSide
from romergo.channels.reach import Locator
from romergo.channels.store import ChannelStore
from romergo.common.bus import EventBus
from romergo.common.clock import Clock
from romergo.common.config import Settings
from romergo.story.on_scene import ScenePresence
from storage import Database


@dataclass(frozen=True)
class ChannelService:
    store: ChannelStore
    owner: OwnerSide
    agent: AgentSide
    confirmations: Confirmations
    guard: CallGuard
    at_work: AtWork
    sweeper: Sweeper

    @classmethod
    def build(
        cls,
        db: Database,
        bus: EventBus,
        settings: Settings,
        clock: Clock | None = None,
        locator: Locator | None = None,
        on_scene: ScenePresence | None = None,
        *,
        ledger: ChannelLedger,
    ) -> ChannelService:
        """`locator` tells where story entities lie: needed once a room is limited to chapters.
        `on_scene`: where agents at work on a scene are shown (the story's, shared with the pages).
        `ledger`: what the channels keep, on this database (`storage.channels`)."""
        store = ChannelStore(db, ledger, bus, settings, clock)
        confirmations = Confirmations(store)
        at_work = AtWork(store, on_scene or ScenePresence(bus))
        return cls(
            store=store,
            owner=OwnerSide(store),
            agent=AgentSide(store, Delivery(store)),
            confirmations=confirmations,
            guard=CallGuard(store, confirmations, locator, at_work),
            at_work=at_work,
            sweeper=Sweeper(store, confirmations),
        )
