"""Channel vocabulary (CONTRACT.md §1.1, §2, §4) and the read models the adapters render."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal, Protocol

Permission = Literal["read", "edit", "media", "publish", "delete"]
PERMISSIONS: tuple[Permission, ...] = ("read", "edit", "media", "publish", "delete")
DEFAULT_PERMISSIONS: dict[str, bool] = {
    "read": True,
    "edit": True,
    "media": True,
    "publish": False,
    "delete": False,
}
ConfirmationMode = Literal["none", "publish_and_delete", "every_change"]
CONFIRMATION_MODES: tuple[str, ...] = ("none", "publish_and_delete", "every_change")

CommandState = Literal[
    "queued",
    "claimed",
    "working",
    "needs_confirmation",
    "awaiting_answer",
    "answered",
    "done",
    "failed",
    "cancelled",
    "stalled",
]
HELD_STATES = ("claimed", "working", "needs_confirmation")
"""States in which the claiming client holds the command: its one slot per channel is taken."""
LEASED_STATES = ("claimed", "working")
"""States in which silence counts against the lease (not while waiting for the owner)."""
FINISHED_STATES = ("done", "failed", "answered")
OPEN_STATES = ("queued", "claimed", "working", "needs_confirmation", "awaiting_answer", "stalled")
RETRYABLE_STATES = ("stalled", "failed", "cancelled")
REPORTABLE_STATES = ("claimed", "working", "needs_confirmation", "awaiting_answer", "stalled")
ReportKind = Literal["status", "question", "reply", "error"]
SURFACES = ("project", "chapter", "scene", "characters", "assets", "check", "play", "history", "settings")
ENTITY_TYPES = ("project", "chapter", "scene", "dialogue_line", "choice", "character", "asset")
MAX_COMMAND_CHARS = 4000
MAX_REPORT_CHARS = 8000


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
    """Only right after creation or rotation: the code is stored hashed and cannot be shown again."""


@dataclass(frozen=True)
class CommandView:
    command_id: str
    channel_id: str
    seq: int
    text: str
    state: str
    claimed_by: str | None
    in_reply_to: str | None
    retry_of: str | None
    created_at: datetime
    context: dict[str, Any] | None
    redelivered: bool = False


@dataclass(frozen=True)
class EventView:
    seq: int
    kind: str
    command_id: str | None
    at: datetime
    actor_type: str
    actor_id: str
    actor_name: str
    data: dict[str, Any]


@dataclass(frozen=True)
class JoinResult:
    channel: ChannelView
    cursor: int
    project_title: str
    conversation: list[EventView]


@dataclass(frozen=True)
class WaitResult:
    status: Literal["command", "timeout", "channel_ended"]
    cursor: int
    command: CommandView | None = None
