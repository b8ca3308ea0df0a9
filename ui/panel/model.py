"""The panel's reading of a channel's history: one card per command, its lifecycle in steps.

Pure functions over the event list (CONTRACT.md §4), so the panel renders the same story after
a page change, a reload or a restart: the events are the only source.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from romergo.channels import EventView, MemberView

STATE_AFTER = {
    "command": "queued",
    "claimed": "claimed",
    "tool_started": "working",
    "status": "working",
    "confirmation_requested": "needs_confirmation",
    "question": "awaiting_answer",
    "answered": "answered",
    "reply": "done",
    "error": "failed",
    "cancelled": "cancelled",
    "stalled": "stalled",
}
OPEN_STATES = ("queued", "claimed", "working", "needs_confirmation", "awaiting_answer", "stalled")
RETRYABLE = ("stalled", "failed", "cancelled")
STATE_WORDS = {
    "queued": "received",
    "claimed": "claimed",
    "working": "working",
    "needs_confirmation": "needs your confirmation",
    "awaiting_answer": "waiting for your answer",
    "answered": "answered",
    "done": "done",
    "failed": "error",
    "cancelled": "cancelled",
    "stalled": "stalled",
}


@dataclass
class Step:
    kind: str
    text: str
    at: datetime
    failed: bool = False


@dataclass
class Card:
    command_id: str
    number: int
    seq: int
    text: str
    at: datetime
    in_reply_to: str | None
    retry_of: str | None
    state: str = "queued"
    agent_name: str | None = None
    steps: list[Step] = field(default_factory=list)
    messages: list[tuple[str, str]] = field(default_factory=list)
    """What the agent said: (kind, text) for status, question, reply and error, in order."""
    summary: dict[str, Any] | None = None
    recorded: list[dict[str, Any]] | None = None
    mismatch: dict[str, Any] | None = None
    confirmations: dict[str, dict[str, Any]] = field(default_factory=dict)
    """Requests still waiting for the owner, by confirmation id."""

    @property
    def is_open(self) -> bool:
        return self.state in OPEN_STATES

    @property
    def can_retry(self) -> bool:
        return self.state in RETRYABLE

    @property
    def state_words(self) -> str:
        return STATE_WORDS.get(self.state, self.state)


@dataclass
class Notice:
    text: str
    at: datetime
    seq: int = 0


@dataclass
class Conversation:
    cards: list[Card] = field(default_factory=list)
    notices: list[Notice] = field(default_factory=list)
    ended: bool = False
    last_seq: int = 0

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
        data = event.data
        if event.kind == "command":
            self.cards.append(
                Card(
                    command_id=event.command_id or "",
                    number=len(self.cards) + 1,
                    seq=event.seq,
                    text=str(data.get("text", "")),
                    at=event.at,
                    in_reply_to=data.get("in_reply_to"),
                    retry_of=data.get("retry_of"),
                )
            )
            return event.command_id or ""
        card = self.card(event.command_id)
        if card is None:
            self._notice(event)
            return ""
        card.state = STATE_AFTER.get(event.kind, card.state)
        if card.confirmations and card.state in ("claimed", "working"):
            card.state = "needs_confirmation"  # the agent talks on, but a request still waits for you
        step = _step(event)
        if step is not None:
            card.steps.append(step)
        if event.kind == "claimed":
            card.agent_name = event.actor_name
        elif event.kind in ("status", "question", "reply", "error"):
            card.messages.append((event.kind, str(data.get("text", ""))))
            if event.kind == "reply":
                card.summary = data.get("summary") if isinstance(data.get("summary"), dict) else None
        elif event.kind == "confirmation_requested":
            card.confirmations[str(data.get("confirmation_id"))] = data
        elif event.kind == "confirmation_decided":
            card.confirmations.pop(str(data.get("confirmation_id")), None)
            if card.state == "needs_confirmation" and not card.confirmations:
                card.state = "working"
        elif event.kind == "changes_recorded":
            card.recorded = list(data.get("changes", []))
        elif event.kind == "summary_mismatch":
            card.mismatch = data
        return card.command_id

    def _notice(self, event: EventView) -> None:
        data = event.data
        text = {
            "agent_joined": f"{data.get('agent_name', event.actor_name)} joined",
            "agent_left": f"{data.get('agent_name', event.actor_name)} left",
            "code_rotated": "A new join code was made; the old one no longer works",
            "settings_changed": "Room settings: " + describe_settings(data),
            "channel_ended": "The channel has ended"
            if data.get("reason") != "expired"
            else "The channel expired",
            "tool_blocked": f"Blocked {data.get('tool')}: {data.get('reason')}",
        }.get(event.kind)
        if event.kind == "channel_ended":
            self.ended = True
        if text:
            self.notices.append(Notice(text, event.at, event.seq))


def describe_settings(data: dict[str, Any]) -> str:
    permissions = data.get("permissions") or {}
    allowed = [name for name in ("read", "edit", "media", "publish", "delete") if permissions.get(name)]
    mode = {
        "none": "no confirmations",
        "publish_and_delete": "confirm publish and delete",
        "every_change": "confirm every change",
    }
    confirming = mode.get(str(data.get("confirmation_mode")), "no confirmations")
    return f"{', '.join(allowed) or 'nothing'} allowed; {confirming}"


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


def _step(event: EventView) -> Step | None:
    data = event.data
    if event.kind == "claimed":
        again = " again (redelivered)" if data.get("redelivered") else ""
        return Step("claimed", f"Claimed by {event.actor_name}{again}", event.at)
    if event.kind == "tool_started":
        return Step("tool", f"Running {data.get('tool')}", event.at)
    if event.kind == "tool_finished":
        changed = len(data.get("changed") or [])
        return Step(
            "tool", f"Finished {data.get('tool')}" + (f" ({changed} changed)" if changed else ""), event.at
        )
    if event.kind == "tool_failed":
        return Step("tool", f"Failed {data.get('tool')}: {data.get('message')}", event.at, failed=True)
    if event.kind == "tool_blocked":
        return Step("blocked", f"Blocked {data.get('tool')}: {data.get('reason')}", event.at, failed=True)
    if event.kind == "confirmation_requested":
        return Step("confirmation", f"Needs confirmation: {data.get('action') or data.get('tool')}", event.at)
    if event.kind == "confirmation_decided":
        words = {
            "allow_once": "Allowed once",
            "reject": "Rejected",
            "expired": "Expired",
            "cancelled": "Cancelled",
        }
        return Step("confirmation", words.get(str(data.get("decision")), str(data.get("decision"))), event.at)
    if event.kind in ("cancelled", "stalled", "answered"):
        return Step(
            event.kind,
            {"cancelled": "Cancelled", "stalled": "Stalled: the agent went quiet", "answered": "Answered"}[
                event.kind
            ],
            event.at,
        )
    return None
