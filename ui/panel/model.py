"""The panel's reading of a channel's history: one card per command, its lifecycle in steps.

Pure functions over the event list (CONTRACT.md §4), so the panel renders the same story after
a page change, a reload or a restart: the events are the only source. The words (event kinds,
states, payloads) and the rule moving a command's state are the core's (`romergo.channels`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime

from romergo.channels import EventView, MemberView, Summary
from romergo.channels.events import (
    AgentPresence,
    ChangesRecorded,
    ChannelEnded,
    Claimed,
    CommandPosted,
    CommandUndone,
    ConfirmationDecided,
    ConfirmationRequested,
    RecordedChange,
    Report,
    SettingsChanged,
    SummaryMismatch,
    ToolBlocked,
    ToolFailed,
    ToolFinished,
    ToolStarted,
)
from romergo.channels.memberships import MAX_RECORDED
from romergo.channels.reach import MODE_WORDS
from romergo.channels.vocabulary import (
    OPEN_STATES,
    PERMISSIONS,
    RETRYABLE_STATES,
    UNDOABLE_STATES,
    CommandState,
    ConfirmationMode,
    Decision,
    EventKind,
    next_state,
)
from ui.panel.replaced import replaced_words

STATE_WORDS = {
    CommandState.QUEUED: "received",
    CommandState.CLAIMED: "claimed",
    CommandState.WORKING: "working",
    CommandState.NEEDS_CONFIRMATION: "needs your confirmation",
    CommandState.AWAITING_ANSWER: "waiting for your answer",
    CommandState.ANSWERED: "answered",
    CommandState.DONE: "done",
    CommandState.FAILED: "error",
    CommandState.CANCELLED: "cancelled",
    CommandState.STALLED: "stalled",
}
REMOVAL_WORDS = {"removed": "its removal", "revoked": "its revocation"}
DECISION_WORDS = {
    Decision.ALLOW_ONCE: "Allowed once",
    Decision.REJECT: "Rejected",
    Decision.EXPIRED: "Expired",
    Decision.CANCELLED: "Cancelled",
}


@dataclass
class Step:
    kind: str
    text: str
    at: datetime
    failed: bool = False
    tool: str | None = None
    """For a tool call: its tool. "Running" becomes "Finished" (or "Failed") in place: one line per call."""
    flagged: bool = False
    """The call replaced a newer change (its words say whose): shown as a warning."""


@dataclass
class Card:
    command_id: str
    number: int
    seq: int
    text: str
    at: datetime
    in_reply_to: str | None
    retry_of: str | None
    state: CommandState = CommandState.QUEUED
    agent_name: str | None = None
    steps: list[Step] = field(default_factory=list)
    messages: list[tuple[str, str]] = field(default_factory=list)
    """What the agent said: (kind, text) for status, question, reply and error, in order."""
    summary: Summary | None = None
    recorded: list[RecordedChange] | None = None
    mismatch: SummaryMismatch | None = None
    confirmations: dict[str, ConfirmationRequested] = field(default_factory=dict)
    """Requests still waiting for the owner, by confirmation id."""
    undone: bool = False
    """The owner took the command's changes back (and has not redone them)."""

    @property
    def is_open(self) -> bool:
        return self.state in OPEN_STATES

    @property
    def can_retry(self) -> bool:
        return self.state in RETRYABLE_STATES

    @property
    def can_undo(self) -> bool:
        """The agent is done with it and it changed the story: "Undo this command" (or "Redo")."""
        return self.state in UNDOABLE_STATES and bool(self.recorded)

    @property
    def state_words(self) -> str:
        return STATE_WORDS[self.state]

    def _running(self, tool: str | None) -> Step | None:
        """The newest call of `tool` still running (what its finish replaces)."""
        return next((s for s in reversed(self.steps) if s.kind == "running" and s.tool == tool), None)

    def apply(self, event: EventView) -> None:
        """One event about this command: its state by the core's rule, then what it shows."""
        payload = event.payload
        if isinstance(payload, ConfirmationRequested):
            self.confirmations[payload.confirmation_id] = payload
        elif isinstance(payload, ConfirmationDecided):
            self.confirmations.pop(payload.confirmation_id, None)
        self.state = next_state(
            self.state,
            event.kind,
            redelivered=isinstance(payload, Claimed) and payload.redelivered,
            waiting_confirmations=len(self.confirmations),
        )
        step = _step(event)
        running = self._running(step.tool) if step is not None and step.kind == "tool" else None
        if running is not None and step is not None:
            running.kind, running.text, running.failed = step.kind, step.text, step.failed
            running.flagged = step.flagged
        elif step is not None:
            self.steps.append(step)
        _SHOWS.get(type(payload), _nothing)(self, event)


@dataclass
class Notice:
    text: str
    at: datetime
    seq: int = 0


@dataclass(frozen=True)
class Refusal:
    """A call the agent made after the room closed to it, refused and recorded."""

    agent_name: str
    tool: str
    at: datetime
    after: str
    """ "the end", or "its removal" / "its revocation" while the room lives on for others."""


@dataclass
class Conversation:
    cards: list[Card] = field(default_factory=list)
    notices: list[Notice] = field(default_factory=list)
    ended: bool = False
    last_seq: int = 0
    removed: dict[str, str] = field(default_factory=dict)
    """Client id → why the owner took it out of the room ("its removal", "its revocation")."""
    refused: list[Refusal] = field(default_factory=list)

    def card(self, command_id: str | None) -> Card | None:
        return next((card for card in self.cards if card.command_id == command_id), None)

    def number_of(self, command_id: str | None) -> int | None:
        card = self.card(command_id)
        return card.number if card else None

    def apply(self, events: list[EventView]) -> set[str]:
        """Fold new events in; returns the ids of the cards that changed ("" for notices)."""
        changed: set[str] = set()
        for event in events:
            if event.seq <= self.last_seq:
                continue
            self.last_seq = event.seq
            changed.add(self._apply(event))
        return changed

    def _apply(self, event: EventView) -> str:
        payload = event.payload
        if isinstance(payload, CommandPosted):
            self.cards.append(
                Card(
                    command_id=event.command_id or "",
                    number=len(self.cards) + 1,
                    seq=event.seq,
                    text=payload.text,
                    at=event.at,
                    in_reply_to=payload.in_reply_to,
                    retry_of=payload.retry_of,
                )
            )
            return event.command_id or ""
        card = self.card(event.command_id)
        if card is None:
            self._notice(event)
            return ""
        card.apply(event)
        return card.command_id

    def _notice(self, event: EventView) -> None:
        payload = event.payload
        if event.kind == EventKind.CHANNEL_ENDED:
            self.ended = True
        if isinstance(payload, AgentPresence) and payload.reason in REMOVAL_WORDS:
            self.removed[payload.client_id] = REMOVAL_WORDS[payload.reason]
        if isinstance(payload, ToolBlocked) and (self.ended or event.actor_id in self.removed):
            after = "the end" if self.ended else self.removed[event.actor_id]
            self.refused.append(Refusal(event.actor_name, payload.tool, event.at, after))
            return
        text = _notice_text(event)
        if text:
            self.notices.append(Notice(text, event.at, event.seq))


def describe_settings(settings: SettingsChanged) -> str:
    allowed = [name for name in PERMISSIONS if settings.permissions.get(name)]
    mode = settings.confirmation_mode
    confirming = (
        MODE_WORDS[ConfirmationMode(mode)] if mode in MODE_WORDS else MODE_WORDS[ConfirmationMode.NONE]
    )
    chapters = len((settings.scope or {}).get("chapter_ids", ()))
    reach = f"; limited to {chapters} chapter{'s' if chapters != 1 else ''}" if settings.scope else ""
    return f"{', '.join(allowed) or 'nothing'} allowed; {confirming}{reach}"


def refused_words(refusals: list[Refusal], shown: int = 3) -> list[str]:
    """ "After the end: 3 calls refused (romergo_get_scene 10:42:03, …)", one line per reason
    (an agent removed from a room that lives on has its own line)."""
    groups: dict[tuple[str, str], list[Refusal]] = {}
    for refusal in refusals:
        key = (refusal.after, "" if refusal.after == "the end" else refusal.agent_name)
        groups.setdefault(key, []).append(refusal)
    lines = []
    for (after, agent), group in groups.items():
        count = len(group)
        calls = "at least" if count >= MAX_RECORDED else ""
        listed = ", ".join(f"{r.tool} {r.at.strftime('%H:%M:%S')}" for r in group[:shown])
        more = ", …" if count > shown else ""
        who = f"{agent}, after {after}" if agent else f"After {after}"
        number = f"{calls} {count}".strip()
        lines.append(f"{who}: {number} call{'s' if count != 1 else ''} refused ({listed}{more})")
    return lines


def presence(members: list[MemberView], conversation: Conversation, now: datetime) -> str:
    """Listening / working on #N / not listening since HH:MM, from the members rows."""
    if not members:
        return "No agent has joined yet"
    for member in members:
        if member.active_command_id:
            number = conversation.number_of(member.active_command_id)
            return (
                f"{member.agent_name} is working on #{number}"
                if number
                else f"{member.agent_name} is working"
            )
    listening = [m for m in members if m.polling and m.left_at is None]
    if listening:
        return f"{listening[0].agent_name} is listening"
    last = max(members, key=lambda m: m.last_seen_at)
    return f"{last.agent_name} is not listening since {last.last_seen_at.strftime('%H:%M')} UTC"


def _notice_text(event: EventView) -> str | None:
    payload = event.payload
    if isinstance(payload, AgentPresence):
        verb = "joined" if event.kind == EventKind.AGENT_JOINED else "left"
        if payload.reason == "revoked":
            verb = "was revoked: its tokens no longer work and it left the channel"
        elif payload.reason == "removed":
            verb = "was removed from the channel: it cannot rejoin with the current code"
        return f"{payload.agent_name or event.actor_name} {verb}"
    if isinstance(payload, SettingsChanged):
        return "Room settings: " + describe_settings(payload)
    if isinstance(payload, ChannelEnded):
        return "The channel expired" if payload.reason == "expired" else "The channel has ended"
    if isinstance(payload, ToolBlocked):
        return f"Blocked {payload.tool}: {payload.reason}"
    if event.kind == EventKind.CODE_ROTATED:
        return "A new join code was made; the old one no longer works"
    return None


def _step(event: EventView) -> Step | None:
    make = _STEPS.get(type(event.payload))
    if make is not None:
        return make(event)
    words = {
        EventKind.CANCELLED: "Cancelled",
        EventKind.STALLED: "Stalled: the agent went quiet",
        EventKind.ANSWERED: "Answered",
    }
    return Step(event.kind.value, words[event.kind], event.at) if event.kind in words else None


def _claimed_step(event: EventView) -> Step:
    assert isinstance(event.payload, Claimed)
    again = " again (redelivered)" if event.payload.redelivered else ""
    return Step("claimed", f"Claimed by {event.actor_name}{again}", event.at)


def _tool_step(event: EventView) -> Step:
    payload = event.payload
    if isinstance(payload, ToolStarted):
        return Step("running", f"Running {payload.tool}", event.at, tool=payload.tool)
    if isinstance(payload, ToolFinished):
        changed = len(payload.changed)
        text = f"Finished {payload.tool}" + (f" ({changed} changed)" if changed else "")
        flag = replaced_words(payload.replaced_newer_changes)
        return Step("tool", text + flag, event.at, tool=payload.tool, flagged=bool(flag))
    if isinstance(payload, ToolFailed):
        failure = f"Failed {payload.tool}: {payload.message}"
        return Step("tool", failure, event.at, failed=True, tool=payload.tool)
    assert isinstance(payload, ToolBlocked)
    return Step("blocked", f"Blocked {payload.tool}: {payload.reason}", event.at, failed=True)


def _confirmation_step(event: EventView) -> Step:
    payload = event.payload
    if isinstance(payload, ConfirmationRequested):
        return Step("confirmation", f"Needs confirmation: {payload.action or payload.tool}", event.at)
    assert isinstance(payload, ConfirmationDecided)
    return Step("confirmation", DECISION_WORDS[payload.decision], event.at)


def _undo_step(event: EventView) -> Step:
    payload = event.payload
    assert isinstance(payload, CommandUndone)
    count = f"{payload.reverted} change{'s' if payload.reverted != 1 else ''}"
    who = event.actor_name or "you"
    if payload.undone:
        return Step("undo", f"Undone by {who}: {count} taken back", event.at)
    return Step("undo", f"Redone by {who}: {count} back as the agent left them", event.at)


_STEPS: dict[type, Callable[[EventView], Step]] = {
    Claimed: _claimed_step,
    ToolStarted: _tool_step,
    ToolFinished: _tool_step,
    ToolFailed: _tool_step,
    ToolBlocked: _tool_step,
    ConfirmationRequested: _confirmation_step,
    ConfirmationDecided: _confirmation_step,
    CommandUndone: _undo_step,
}
"""The step an event of a command adds to its card, by payload type."""


def _claimed(card: Card, event: EventView) -> None:
    card.agent_name = event.actor_name


def _report(card: Card, event: EventView) -> None:
    assert isinstance(event.payload, Report)
    card.messages.append((event.kind.value, event.payload.text))
    if event.kind == EventKind.REPLY:
        card.summary = event.payload.summary


def _recorded(card: Card, event: EventView) -> None:
    assert isinstance(event.payload, ChangesRecorded)
    card.recorded = list(event.payload.changes)


def _mismatch(card: Card, event: EventView) -> None:
    assert isinstance(event.payload, SummaryMismatch)
    card.mismatch = event.payload


def _undone(card: Card, event: EventView) -> None:
    assert isinstance(event.payload, CommandUndone)
    card.undone = event.payload.undone


def _nothing(card: Card, event: EventView) -> None:
    return None


_SHOWS: dict[type, Callable[[Card, EventView], None]] = {
    Claimed: _claimed,
    Report: _report,
    ChangesRecorded: _recorded,
    SummaryMismatch: _mismatch,
    CommandUndone: _undone,
}
"""What an event adds to its card beyond the state and the step."""
