"""The plain records the channel ledger hands up: read once, frozen, no session behind them."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any, NamedTuple


@dataclass(frozen=True, slots=True)
class RecordedRevision:
    """One change the server recorded for a command, as a command's changes list it."""

    entity_type: str
    entity_id: str
    action: str
    before: dict[str, Any] | None
    after: dict[str, Any] | None
    tool: str | None
    created_at: datetime


@dataclass(frozen=True, slots=True)
class ConfirmationRecord:
    """A request for the owner's "Allow once", bound to its command, tool and arguments."""

    id: str
    channel_id: str
    command_id: str
    client_id: str
    tool: str
    arguments: dict[str, Any]
    fingerprint: str
    action: str
    state: str
    """pending → granted → consumed, or rejected / expired / cancelled."""
    created_at: datetime
    expires_at: datetime
    decided_at: datetime | None = None


@dataclass(frozen=True, slots=True)
class RoomRecord:
    """A channel (a room): one owner, one project, its settings and its one event sequence."""

    id: str
    user_id: str
    project_id: str
    permissions: dict[str, bool]
    confirmation_mode: str
    scope: dict[str, Any] | None
    last_seq: int
    code_issued_at: datetime
    """When the room's current join code was made: it admits new agents for a while after."""
    created_at: datetime
    expires_at: datetime
    ended_at: datetime | None
    end_reason: str | None


@dataclass(frozen=True, slots=True)
class MembershipRecord:
    """An agent in a room; leaving keeps the row, with why it left."""

    channel_id: str
    client_id: str
    agent_name: str
    joined_at: datetime
    left_at: datetime | None
    last_seen_at: datetime
    polling_until: datetime | None
    left_reason: str | None


@dataclass(frozen=True, slots=True)
class CommandRecord:
    """A command the owner posted, with where it stands."""

    id: str
    channel_id: str
    seq: int
    text: str
    context: dict[str, Any] | None
    state: str
    claimed_by: str | None
    reserved_for: str | None
    in_reply_to: str | None
    retry_of: str | None
    deliveries: int
    created_at: datetime
    claimed_at: datetime | None
    last_activity_at: datetime | None
    finished_at: datetime | None


@dataclass(frozen=True, slots=True)
class EventRecord:
    """One step in a room's history, under the room's next number."""

    channel_id: str
    seq: int
    kind: str
    command_id: str | None
    actor_type: str
    actor_id: str
    actor_name: str
    data: dict[str, Any]
    at: datetime


class PostingRoom(NamedTuple):
    """The columns of the owner's channel that posting a command reads, and the number it took:
    a row of `storage.channels.posts.NUMBERED_POST` (a tuple, made without a copy: the busy path)."""

    id: str
    project_id: str
    scope: dict[str, Any] | None
    ended_at: datetime | None
    end_reason: str | None
    expires_at: datetime
    owner_name: str
    seq: int
    """The event number taken for the posted command."""


class MovingCommand(NamedTuple):
    """What a command's next state is computed from, as a write on the driver reads it now."""

    id: str
    state: str
    finished_at: datetime | None
