"""Who an event says acted: the owner, an agent, or Romergo itself (the sweeper, an expiry)."""

from __future__ import annotations

from dataclasses import dataclass

from romergo.common.actors import ActorType


@dataclass(frozen=True)
class EventActor:
    type: ActorType
    id: str
    name: str


SYSTEM_ACTOR = EventActor("system", "romergo", "Romergo")
