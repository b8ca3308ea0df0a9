"""The channel service: the owner's and the agent's side of a room, the call guard, the sweeper."""

from __future__ import annotations

from romergo.channels.agent_side import AgentOps
from romergo.channels.calls import CallOps
from romergo.channels.lifecycle import LifecycleOps
from romergo.channels.owner import OwnerOps


class ChannelService(OwnerOps, AgentOps, CallOps, LifecycleOps):
    pass
