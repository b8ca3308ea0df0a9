"""Channels: the authenticated mailbox between the owner's editor and their agent (DESIGN.md §3).

`vocabulary` holds the words (event kinds, command states, rights), `events` the typed payload of
each event, `summary` the reply's summary, `models` the read models; `ledger` states what the
service needs kept (`storage.channels` keeps it); `service` composes the owner's side, the agent's
side, the call guard, confirmations and the sweeper over one store.
"""

from romergo.channels.calls import ToolCall
from romergo.channels.models import (
    AgentRef,
    ChannelView,
    CommandView,
    EventView,
    JoinResult,
    MemberView,
    WaitResult,
)
from romergo.channels.service import ChannelService
from romergo.channels.store import channel_topic, presence_topic, rooms_topic
from romergo.channels.summary import Summary
from romergo.channels.vocabulary import CommandState, EventKind

__all__ = [
    "AgentRef",
    "ChannelService",
    "ChannelView",
    "CommandState",
    "CommandView",
    "EventKind",
    "EventView",
    "JoinResult",
    "MemberView",
    "Summary",
    "ToolCall",
    "WaitResult",
    "channel_topic",
    "presence_topic",
    "rooms_topic",
]
