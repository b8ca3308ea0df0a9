"""The JSON shapes of CONTRACT.md §4 and §6 for channels, commands and events.

One place for the contract's field names, used by the JSON API, the MCP tools and the panel.
"""

from __future__ import annotations

from typing import Any

from romergo.channels.confirmations import ConfirmationView
from romergo.channels.models import ChannelView, CommandView, EventView, MemberView
from romergo.clock import iso


def channel(view: ChannelView) -> dict[str, Any]:
    data: dict[str, Any] = {
        "channel_id": view.channel_id,
        "project_id": view.project_id,
        "permissions": dict(view.permissions),
        "confirmation_mode": view.confirmation_mode,
        "state": view.state,
        "expires_at": iso(view.expires_at),
        "cursor": view.cursor,
        "members": [member(m) for m in view.members],
    }
    if view.code is not None:
        data["code"] = view.code
    return data


def member(view: MemberView) -> dict[str, Any]:
    return {
        "client_id": view.client_id,
        "agent_name": view.agent_name,
        "joined_at": iso(view.joined_at),
        "left_at": iso(view.left_at),
        "last_seen_at": iso(view.last_seen_at),
        "polling": view.polling,
        "active_command_id": view.active_command_id,
    }


def command(view: CommandView) -> dict[str, Any]:
    """The owner's view of a command (API)."""
    return {
        "command_id": view.command_id,
        "seq": view.seq,
        "text": view.text,
        "state": view.state,
        "claimed_by": view.claimed_by,
        "in_reply_to": view.in_reply_to,
        "retry_of": view.retry_of,
        "created_at": iso(view.created_at),
        "context": view.context,
    }


def delivered_command(view: CommandView) -> dict[str, Any]:
    """The agent's view of a delivered command (CONTRACT.md §1.1), context still unwrapped."""
    return {
        "command_id": view.command_id,
        "seq": view.seq,
        "text": view.text,
        "redelivered": view.redelivered,
        "in_reply_to": view.in_reply_to,
        "retry_of": view.retry_of,
        "created_at": iso(view.created_at),
        "context": view.context,
    }


def event(view: EventView) -> dict[str, Any]:
    return {
        "seq": view.seq,
        "kind": view.kind,
        "command_id": view.command_id,
        "at": iso(view.at),
        "actor": {"type": view.actor_type, "id": view.actor_id, "name": view.actor_name},
        "data": view.data,
    }


def confirmation(view: ConfirmationView) -> dict[str, Any]:
    return {
        "confirmation_id": view.confirmation_id,
        "command_id": view.command_id,
        "tool": view.tool,
        "arguments": view.arguments,
        "fingerprint": view.fingerprint,
        "state": view.state,
        "expires_at": iso(view.expires_at),
    }
