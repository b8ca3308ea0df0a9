"""Channels: the authenticated mailbox between the owner's editor and their agent (DESIGN.md §3)."""

from romergo.channels.base import channel_topic, presence_topic
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

__all__ = [
    "AgentRef",
    "ChannelService",
    "ChannelView",
    "CommandView",
    "EventView",
    "JoinResult",
    "MemberView",
    "ToolCall",
    "WaitResult",
    "channel_topic",
    "presence_topic",
]
