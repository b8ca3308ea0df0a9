"""The read models of channels the adapters render (CONTRACT.md §4, §6); the words they use are
in `vocabulary`, the event payloads in `events`."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from functools import cached_property
from typing import Any, Literal, Protocol

from romergo.channels.events import Payload, payload_of
from romergo.channels.vocabulary import CommandState, EventKind


class Caller(Protocol):
    """Who calls from the agent side: resolved from the verified token, never from arguments."""

    @property
    def user_id(self) -> str: ...

    @property
    def client_id(self) -> str: ...

    @property
    def client_name(self) -> str: ...


@dataclass(frozen=True)
class AgentRef:
    user_id: str
    client_id: str
    client_name: str


@dataclass(frozen=True)
class MemberView:
    client_id: str
    agent_name: str
    joined_at: datetime
    left_at: datetime | None
    last_seen_at: datetime
    polling: bool
    active_command_id: str | None
    left_reason: str | None = None
    """Why it left: "left" (itself), "removed" (by the owner, from this room), "revoked"."""


@dataclass(frozen=True)
class ChannelView:
    channel_id: str
    project_id: str
    permissions: dict[str, bool]
    confirmation_mode: str
    state: Literal["live", "ended", "expired"]
    expires_at: datetime
    cursor: int
    members: list[MemberView] = field(default_factory=list)
    code: str | None = None
    scope: dict[str, Any] | None = None
    """The room's reach: None for the whole project, else `{chapter_ids: [...]}`."""
    """Only right after creation or rotation: the code is stored hashed and cannot be shown again."""


@dataclass(frozen=True)
class CommandView:
    command_id: str
    channel_id: str
    seq: int
    text: str
    state: CommandState
    claimed_by: str | None
    in_reply_to: str | None
    retry_of: str | None
    created_at: datetime
    context: dict[str, Any] | None
    redelivered: bool = False


@dataclass(frozen=True)
class EventView:
    seq: int
    kind: EventKind
    command_id: str | None
    at: datetime
    actor_type: str
    actor_id: str
    actor_name: str
    data: dict[str, Any]

    def __post_init__(self) -> None:
        object.__setattr__(self, "kind", EventKind(self.kind))  # a plain string from a test or a row

    @cached_property
    def payload(self) -> Payload:
        """`data` as the typed payload of its kind."""
        return payload_of(self.kind, self.data)


@dataclass(frozen=True)
class JoinResult:
    channel: ChannelView
    cursor: int
    project_title: str
    conversation: list[EventView]
    reach: str = "Whole project"
    """What the room covers, in plain words ("Chapters 2–3"): numbers in story order, no titles."""


@dataclass(frozen=True)
class WaitResult:
    status: Literal["command", "timeout", "channel_ended"]
    cursor: int
    command: CommandView | None = None
