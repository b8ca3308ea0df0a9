"""The typed payload of every event kind (CONTRACT.md §4).

The core writes an event from one of these models and the panel reads it back as the same
model (`payload_of`), so a field is named once. The JSON an adapter sends is the model's dump.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import (
    BaseModel,
    SerializerFunctionWrapHandler,
    ValidationError,
    ValidatorFunctionWrapHandler,
    field_validator,
    model_serializer,
)

from romergo.channels.summary import Summary
from romergo.channels.vocabulary import Decision, EventKind
from romergo.common.clock import iso
from romergo.story.based_on import ReplacedChange


class Payload(BaseModel):
    pass


NewEvents = list[tuple[EventKind, Payload | None]]
"""Events about to be written, in order: each its kind and its payload (None for a kind without one)."""


class CommandPosted(Payload):
    text: str = ""
    context: dict[str, Any] | None = None
    in_reply_to: str | None = None
    retry_of: str | None = None


class Claimed(Payload):
    client_id: str = ""
    agent_name: str = ""
    redelivered: bool = False


class Report(Payload):
    """`status`, `question`, `reply` and `error`: what the agent told the owner."""

    text: str = ""
    summary: Summary | None = None

    @field_validator("summary", mode="wrap")
    @classmethod
    def _readable_summary(cls, value: object, handler: ValidatorFunctionWrapHandler) -> Summary | None:
        # Reports are checked when written; a summary stored before a rule existed shows as none.
        try:
            summary: Summary | None = handler(value)
        except ValidationError:
            return None
        return summary


class ToolStarted(Payload):
    tool: str = ""
    arguments: dict[str, Any] = {}
    category: str = ""


class EntityRef(Payload):
    entity_type: str
    entity_id: str


class ReplacedNewerChange(Payload):
    """A change made after the calling agent last read the entity, which its write (without
    `expected_revision`) replaced: the panel flags the call's card."""

    entity_type: str
    entity_id: str
    by: str
    """"author", or "agent <client_id>"."""
    command_id: str | None = None
    at: str
    fields: list[str]

    @classmethod
    def of(cls, replaced: ReplacedChange) -> ReplacedNewerChange:
        by = replaced.by
        return cls(
            entity_type=replaced.entity_type,
            entity_id=replaced.entity_id,
            by=by.who,
            command_id=by.command_id,
            at=iso(by.at),
            fields=list(replaced.fields),
        )


class ToolFinished(Payload):
    tool: str = ""
    changed: list[EntityRef] = []
    replaced_newer_changes: list[ReplacedNewerChange] = []

    @model_serializer(mode="wrap")
    def _without_nothing_replaced(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        data: dict[str, Any] = handler(self)
        if not self.replaced_newer_changes:
            data.pop("replaced_newer_changes", None)
        return data


class ToolFailed(Payload):
    tool: str = ""
    error_code: str = ""
    message: str = ""


class ToolBlocked(Payload):
    tool: str = ""
    reason: str = ""
    permission: str | None = None


class ConfirmationRequested(Payload):
    confirmation_id: str = ""
    tool: str = ""
    arguments: dict[str, Any] = {}
    fingerprint: str = ""
    action: str = ""
    expires_at: str | None = None


class ConfirmationDecided(Payload):
    confirmation_id: str = ""
    decision: Decision


class Stalled(Payload):
    claimed_by: str | None = None


class SettingsChanged(Payload):
    permissions: dict[str, bool] = {}
    confirmation_mode: str = "none"
    scope: dict[str, Any] | None = None
    """The room's reach: None for the whole project, else `{chapter_ids: [...]}`."""


class AgentPresence(Payload):
    """`agent_joined` and `agent_left`; a left agent left by itself, or the owner removed it from
    the room or revoked it."""

    client_id: str = ""
    agent_name: str = ""
    reason: Literal["left", "removed", "revoked"] | None = None


class RecordedChange(Payload):
    entity_type: str
    entity_id: str
    title: str = ""
    action: str = ""
    tool: str | None = None
    at: str | None = None


class ChangesRecorded(Payload):
    changes: list[RecordedChange] = []


class EntityKey(Payload):
    type: str
    id: str


class SummaryMismatch(Payload):
    claimed_not_recorded: list[EntityKey] = []
    recorded_not_claimed: list[EntityKey] = []


class ChannelEnded(Payload):
    reason: str = "ended"


class CommandUndone(Payload):
    """The owner took the command's changes back (`undone`), or took that undo back (redo)."""

    undone: bool = True
    reverted: int = 0


class Nothing(Payload):
    """`cancelled`, `answered`, `code_rotated`: the kind says it all."""


PAYLOADS: dict[EventKind, type[Payload]] = {
    EventKind.COMMAND: CommandPosted,
    EventKind.CLAIMED: Claimed,
    EventKind.STATUS: Report,
    EventKind.QUESTION: Report,
    EventKind.REPLY: Report,
    EventKind.ERROR: Report,
    EventKind.TOOL_STARTED: ToolStarted,
    EventKind.TOOL_FINISHED: ToolFinished,
    EventKind.TOOL_FAILED: ToolFailed,
    EventKind.TOOL_BLOCKED: ToolBlocked,
    EventKind.CONFIRMATION_REQUESTED: ConfirmationRequested,
    EventKind.CONFIRMATION_DECIDED: ConfirmationDecided,
    EventKind.CANCELLED: Nothing,
    EventKind.STALLED: Stalled,
    EventKind.ANSWERED: Nothing,
    EventKind.SETTINGS_CHANGED: SettingsChanged,
    EventKind.CODE_ROTATED: Nothing,
    EventKind.AGENT_JOINED: AgentPresence,
    EventKind.AGENT_LEFT: AgentPresence,
    EventKind.CHANGES_RECORDED: ChangesRecorded,
    EventKind.SUMMARY_MISMATCH: SummaryMismatch,
    EventKind.CHANNEL_ENDED: ChannelEnded,
    EventKind.COMMAND_UNDONE: CommandUndone,
}


def payload_of(kind: EventKind, data: dict[str, Any]) -> Payload:
    return PAYLOADS[kind].model_validate(data)


def dump(kind: EventKind, payload: Payload | None) -> dict[str, Any]:
    """The stored and sent JSON of an event's payload; refuses a payload of another kind's shape."""
    expected = PAYLOADS[kind]
    if payload is None:
        payload = expected()
    if type(payload) is not expected:
        raise TypeError(f"a {kind} event carries {expected.__name__}, not {type(payload).__name__}")
    return payload.model_dump(mode="json")
