"""Channels: the authenticated mailbox between the owner's editor and their agent (DESIGN.md §3)."""

from romergo.channels.base import channel_topic
from romergo.channels.calls import ToolCall
from romergo.channels.models import AgentRef, ChannelView, CommandView, EventView, JoinResult, WaitResult
from romergo.channels.service import ChannelService

__all__ = [
    "AgentRef",
    "ChannelService",
    "ChannelView",
    "CommandView",
    "EventView",
    "JoinResult",
    "ToolCall",
    "WaitResult",
    "channel_topic",
]
