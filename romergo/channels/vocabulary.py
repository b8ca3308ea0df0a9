"""The channel's words (CONTRACT.md §2, §4): event kinds, command states, the room's rights.

One home for them: the core writes events and command states with these, the panel reads them
with these, and `next_state` is the one rule deriving a command's state from its events, so the
database row and the panel's card cannot disagree about what an event does to a command.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Literal

# A selection names an entity by the story's own kinds (`romergo.story.kinds`).
from romergo.story.kinds import ENTITY_TYPES as ENTITY_TYPES
from romergo.story.kinds import EntityType as EntityType


class EventKind(StrEnum):
    COMMAND = "command"
    CLAIMED = "claimed"
    STATUS = "status"
    QUESTION = "question"
    REPLY = "reply"
    ERROR = "error"
    TOOL_STARTED = "tool_started"
    TOOL_FINISHED = "tool_finished"
    TOOL_FAILED = "tool_failed"
    TOOL_BLOCKED = "tool_blocked"
    CONFIRMATION_REQUESTED = "confirmation_requested"
    CONFIRMATION_DECIDED = "confirmation_decided"
    CANCELLED = "cancelled"
    STALLED = "stalled"
    ANSWERED = "answered"
    SETTINGS_CHANGED = "settings_changed"
    CODE_ROTATED = "code_rotated"
    AGENT_JOINED = "agent_joined"
    AGENT_LEFT = "agent_left"
    CHANGES_RECORDED = "changes_recorded"
    SUMMARY_MISMATCH = "summary_mismatch"
    CHANNEL_ENDED = "channel_ended"
    COMMAND_UNDONE = "command_undone"


class CommandState(StrEnum):
    QUEUED = "queued"
    CLAIMED = "claimed"
    WORKING = "working"
    NEEDS_CONFIRMATION = "needs_confirmation"
    AWAITING_ANSWER = "awaiting_answer"
    ANSWERED = "answered"
    DONE = "done"
    FAILED = "failed"
    CANCELLED = "cancelled"
    STALLED = "stalled"


HELD_STATES = (CommandState.CLAIMED, CommandState.WORKING, CommandState.NEEDS_CONFIRMATION)
"""States in which the claiming client holds the command: its one slot per channel is taken."""
LEASED_STATES = (CommandState.CLAIMED, CommandState.WORKING)
"""States in which silence counts against the lease (not while waiting for the owner)."""
FINISHED_STATES = (CommandState.DONE, CommandState.FAILED, CommandState.ANSWERED)
OPEN_STATES = (
    CommandState.QUEUED,
    CommandState.CLAIMED,
    CommandState.WORKING,
    CommandState.NEEDS_CONFIRMATION,
    CommandState.AWAITING_ANSWER,
    CommandState.STALLED,
)
RETRYABLE_STATES = (CommandState.STALLED, CommandState.FAILED, CommandState.CANCELLED)
UNDOABLE_STATES = (*FINISHED_STATES, CommandState.CANCELLED)
"""States in which no agent works on the command any more: undo cannot race its next change."""
REPORTABLE_STATES = (
    CommandState.CLAIMED,
    CommandState.WORKING,
    CommandState.NEEDS_CONFIRMATION,
    CommandState.AWAITING_ANSWER,
    CommandState.STALLED,
)
ATTRIBUTABLE_STATES = (*HELD_STATES, CommandState.STALLED)
"""States in which the holder's tool calls still count as work on the command."""

ReportKind = Literal["status", "question", "reply", "error"]
REPORT_KINDS: tuple[ReportKind, ...] = ("status", "question", "reply", "error")

_STATE_AFTER: dict[EventKind, CommandState] = {
    EventKind.COMMAND: CommandState.QUEUED,
    EventKind.CLAIMED: CommandState.CLAIMED,
    EventKind.STATUS: CommandState.WORKING,
    EventKind.CONFIRMATION_REQUESTED: CommandState.NEEDS_CONFIRMATION,
    EventKind.QUESTION: CommandState.AWAITING_ANSWER,
    EventKind.ANSWERED: CommandState.ANSWERED,
    EventKind.REPLY: CommandState.DONE,
    EventKind.ERROR: CommandState.FAILED,
    EventKind.CANCELLED: CommandState.CANCELLED,
    EventKind.STALLED: CommandState.STALLED,
}


def next_state(
    current: CommandState, kind: EventKind, *, redelivered: bool = False, waiting_confirmations: int = 0
) -> CommandState:
    """The command's state once an event of `kind` about it is written.

    `waiting_confirmations` counts the owner's undecided requests on the command after the
    event: while one waits, the agent may talk on or read, but the command still needs the owner.
    """
    if kind == EventKind.CLAIMED and redelivered:
        return current  # a redelivery hands the same work back; it does not start it over
    if kind == EventKind.TOOL_STARTED:
        return CommandState.WORKING if current in (CommandState.CLAIMED, CommandState.STALLED) else current
    if kind == EventKind.CONFIRMATION_DECIDED:
        if current == CommandState.NEEDS_CONFIRMATION and waiting_confirmations == 0:
            return CommandState.WORKING
        return current
    state = _STATE_AFTER.get(kind, current)
    if state == CommandState.WORKING and waiting_confirmations:
        return CommandState.NEEDS_CONFIRMATION
    return state


REMOVED_BY_OWNER = ("removed", "revoked")
"""Why a membership ended by the owner's hand: removed from the room, or the agent's access revoked
(the agent's own "left" keeps the room binding)."""

Permission = Literal["read", "edit", "media", "publish", "delete"]
PERMISSIONS: tuple[Permission, ...] = ("read", "edit", "media", "publish", "delete")
DEFAULT_PERMISSIONS: dict[str, bool] = {
    "read": True,
    "edit": True,
    "media": True,
    "publish": False,
    "delete": False,
}


class ConfirmationMode(StrEnum):
    NONE = "none"
    PUBLISH_AND_DELETE = "publish_and_delete"
    EVERY_CHANGE = "every_change"


CONFIRMED_CATEGORIES: dict[ConfirmationMode, tuple[str, ...]] = {
    ConfirmationMode.NONE: (),
    ConfirmationMode.PUBLISH_AND_DELETE: ("publish", "delete"),
    ConfirmationMode.EVERY_CHANGE: ("edit", "media", "publish", "delete"),
}


class Decision(StrEnum):
    """How a confirmation request ended (the `decision` of `confirmation_decided`)."""

    ALLOW_ONCE = "allow_once"
    REJECT = "reject"
    EXPIRED = "expired"
    CANCELLED = "cancelled"


SURFACES = (
    "project",
    "chapter",
    "scene",
    "characters",
    "assets",
    "variables",
    "check",
    "play",
    "history",
    "settings",
)
MAX_COMMAND_CHARS = 4000
MAX_REPORT_CHARS = 8000
