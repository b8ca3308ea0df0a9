"""One command in the panel: what the owner asked, every step, what the agent said and did.

Everything the agent wrote (messages, summaries, titles, tool arguments) is shown as text, never
HTML. Links from a summary open only paths inside Romergo; anything else is shown, not linked.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from nicegui import ui

from ui.panel.model import Card

STATE_COLORS = {
    "queued": "grey",
    "claimed": "blue-grey",
    "working": "primary",
    "needs_confirmation": "warning",
    "awaiting_answer": "warning",
    "answered": "positive",
    "done": "positive",
    "failed": "negative",
    "cancelled": "grey",
    "stalled": "negative",
}
MESSAGE_ICONS = {"status": "info", "question": "help", "reply": "check_circle", "error": "error"}


@dataclass(frozen=True)
class CardActions:
    decide: Callable[[str, str], Awaitable[None]]
    answer: Callable[[Card, str], Awaitable[bool]]
    cancel: Callable[[Card], Awaitable[None]]
    retry: Callable[[Card], Awaitable[None]]


def draw_card(card: Card, actions: CardActions, live: bool) -> None:
    with ui.card().classes("w-full p-2 gap-1").props(f'data-testid="command-{card.number}" flat bordered'):
        with ui.row().classes("w-full items-center justify-between no-wrap"):
            ui.label(f"#{card.number}").classes("text-caption text-grey-7")
            ui.badge(card.state_words, color=STATE_COLORS.get(card.state, "grey")).props(
                f'data-testid="command-{card.number}-state"'
            )
        if card.in_reply_to:
            ui.label("Your answer").classes("text-caption text-grey-7")
        if card.retry_of:
            ui.label("Sent again").classes("text-caption text-grey-7")
        ui.label(card.text).classes("bg-blue-1 rounded p-2 whitespace-pre-wrap break-words")
        for step in card.steps:
            ui.label(step.text).classes("text-caption " + ("text-negative" if step.failed else "text-grey-8"))
        for kind, text in card.messages:
            with ui.row().classes("items-start no-wrap gap-1"):
                ui.icon(MESSAGE_ICONS.get(kind, "chat"), size="xs").classes("mt-1")
                ui.label(text).classes("whitespace-pre-wrap break-words").props(f'data-kind="{kind}"')
        if live:
            for confirmation_id, request in card.confirmations.items():
                _confirmation(confirmation_id, request, actions)
        if card.summary is not None:
            _summary(card.summary)
        if card.recorded is not None:
            _recorded(card)
        if live and card.state == "awaiting_answer":
            _answer_box(card, actions)
        with ui.row().classes("gap-1"):
            if live and card.is_open:
                ui.button("Cancel command", on_click=lambda: actions.cancel(card)).props("flat dense size=sm")
            if live and card.can_retry:
                ui.button("Retry", on_click=lambda: actions.retry(card)).props(
                    "flat dense size=sm color=primary"
                )


def _confirmation(confirmation_id: str, request: dict[str, Any], actions: CardActions) -> None:
    with ui.card().classes("w-full bg-orange-1 p-2 gap-1").props("flat"):
        ui.label("Your agent asks to:").classes("text-caption")
        ui.label(str(request.get("action") or request.get("tool"))).classes("text-weight-medium break-words")
        ui.label(f"Tool: {request.get('tool')}").classes("text-caption font-mono")
        arguments = json.dumps(request.get("arguments", {}), ensure_ascii=True, indent=1, sort_keys=True)
        ui.label(arguments).classes("text-caption font-mono whitespace-pre-wrap break-all")
        with ui.row().classes("gap-2"):
            ui.button("Allow once", on_click=lambda: actions.decide(confirmation_id, "allow_once")).props(
                "unelevated dense color=positive"
            )
            ui.button("Reject", on_click=lambda: actions.decide(confirmation_id, "reject")).props(
                "outline dense color=negative"
            )


def _summary(summary: dict[str, Any]) -> None:
    with ui.column().classes("w-full gap-0 border-l-4 border-green-300 pl-2").props('data-testid="summary"'):
        ui.label(f"Summary: {summary.get('status', '')}").classes("text-caption text-weight-medium")
        if summary.get("description"):
            ui.label(str(summary["description"])).classes("text-caption whitespace-pre-wrap break-words")
        for entity in summary.get("changed_entities") or []:
            _link(
                f"Changed {entity.get('type')}: {entity.get('title') or entity.get('id')}", entity.get("url")
            )
        for check in summary.get("checks") or []:
            mark = "✓" if check.get("passed") else "✗"
            detail = f" — {check['detail']}" if check.get("detail") else ""
            ui.label(f"{mark} {check.get('name')}{detail}").classes(
                "text-caption " + ("text-positive" if check.get("passed") else "text-negative")
            )
        for link in summary.get("links") or []:
            _link(str(link.get("title")), link.get("url"))


def _recorded(card: Card) -> None:
    changes = card.recorded or []
    words = f"Romergo recorded {len(changes)} change{'s' if len(changes) != 1 else ''}"
    with ui.expansion(words).classes("w-full text-caption").props("dense"):
        for change in changes:
            ui.label(f"{change.get('action')} {change.get('entity_type')}: {change.get('title')}").classes(
                "text-caption"
            )
    if card.mismatch:
        claimed = ", ".join(f"{e['type']} {e['id']}" for e in card.mismatch.get("claimed_not_recorded", []))
        missing = ", ".join(f"{e['type']} {e['id']}" for e in card.mismatch.get("recorded_not_claimed", []))
        text = "The summary differs from what was recorded."
        if claimed:
            text += f" Claimed but not recorded: {claimed}."
        if missing:
            text += f" Recorded but not in the summary: {missing}."
        ui.label(text).classes("text-caption text-negative").props('role="alert" data-testid="mismatch"')


def _answer_box(card: Card, actions: CardActions) -> None:
    with ui.row().classes("w-full items-center no-wrap gap-1"):
        box = ui.input("Your answer").props("outlined dense").classes("grow")

        async def send() -> None:
            if await actions.answer(card, box.value or ""):
                box.value = ""

        box.on("keydown.enter", send)
        ui.button("Answer", on_click=send).props("unelevated dense color=primary")


def _link(text: str, url: object) -> None:
    if isinstance(url, str) and url.startswith("/") and not url.startswith("//") and "\\" not in url:
        ui.link(text, url).classes("text-caption")
    else:
        ui.label(text).classes("text-caption")
