"""One command in the panel: what the owner asked, every step, what the agent said and did.

Everything the agent wrote (messages, summaries, titles, tool arguments) is shown as text, never
HTML. Links from a summary open only paths inside Romergo; anything else is shown, not linked.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from nicegui import background_tasks, ui
from nicegui.events import ValueChangeEventArguments

from romergo.channels import CommandState, Summary
from romergo.channels.events import ConfirmationRequested
from romergo.common import urls
from romergo.common.errors import RomergoError
from romergo.story.review import EntityReview
from ui.components.change_review import change_review
from ui.panel.model import Card, Step

STATE_COLORS = {
    CommandState.QUEUED: "grey",
    CommandState.CLAIMED: "blue-grey",
    CommandState.WORKING: "primary",
    CommandState.NEEDS_CONFIRMATION: "warning",
    CommandState.AWAITING_ANSWER: "warning",
    CommandState.ANSWERED: "positive",
    CommandState.DONE: "positive",
    CommandState.FAILED: "negative",
    CommandState.CANCELLED: "grey",
    CommandState.STALLED: "negative",
}
MESSAGE_ICONS = {"status": "info", "question": "help", "reply": "check_circle", "error": "error"}
STATUS_WORDS = {"success": "Done", "partial": "Partly done", "failed": "Failed", "no_changes": "No changes"}
ENTITY_WORDS = {
    "project": "Story",
    "chapter": "Chapter",
    "scene": "Scene",
    "dialogue_line": "Dialogue line",
    "choice": "Choice",
    "character": "Character",
    "asset": "Asset",
    "variable": "Variable",
}
MEDIA_WORDS = (("background", "Background"), ("music", "Music"))
LINK_WORDS = 60
"""A link's label is cut (at a word) past this many characters; the whole text is its tooltip."""


ID = re.compile(r"\b[a-z]{3}_[a-z2-7]{16}\b")
"""What Romergo's ids look like (`romergo.common.ids.new_id`): a prefix and 16 base32 letters."""


@dataclass(frozen=True)
class CardActions:
    decide: Callable[[str, str], Awaitable[None]]
    answer: Callable[[Card, str], Awaitable[bool]]
    cancel: Callable[[Card], Awaitable[None]]
    retry: Callable[[Card], Awaitable[None]]
    undo: Callable[[Card, bool], Awaitable[None]]
    """Undo the command's changes (False) or redo them (True)."""
    review: Callable[[Card], Awaitable[list[EntityReview]]]
    project_id: str
    names: Callable[[set[str]], Awaitable[dict[str, str]]]
    """What each of these ids names in the project (for confirmation cards)."""


class CardView:
    """One command's card, kept on screen and changed in place as its events arrive.

    Parts are added or removed, never redrawn: a button the owner is about to click ("Allow
    once", "Cancel command") and an answer being typed must survive the agent's next event.
    """

    def __init__(self, card: Card, actions: CardActions, live: bool) -> None:
        self.card, self.actions, self.live = card, actions, live
        self.messages_drawn = 0
        self.step_labels: list[ui.label] = []
        self.confirmation_boxes: dict[str, ui.card] = {}
        self.summary_drawn: Summary | None = None
        self.recorded_drawn: tuple[Any, Any, bool] = (None, None, False)
        self.answer_box: ui.row | None = None
        with (
            ui.card().classes("w-full p-2 gap-1").props(f'data-testid="command-{card.number}" flat bordered')
        ) as self.element:
            with ui.row().classes("w-full items-center justify-between no-wrap"):
                ui.label(f"#{card.number}").classes("text-caption text-grey-7")
                self.badge = ui.badge().props(f'data-testid="command-{card.number}-state"')
            if card.in_reply_to:
                ui.label("Your answer").classes("text-caption text-grey-7")
            if card.retry_of:
                ui.label("Sent again").classes("text-caption text-grey-7")
            ui.label(card.text).classes("bg-blue-1 rounded p-2 whitespace-pre-wrap break-words")
            with (
                ui.expansion(value=True)
                .classes("w-full text-caption")
                .props(
                    'dense header-class="q-pa-none text-grey-7" data-testid="steps"'
                ) as self.steps_expansion
            ):
                self.steps = ui.column().classes("w-full gap-0")
            self.messages = ui.column().classes("w-full gap-1")
            self.confirmations = ui.column().classes("w-full gap-1")
            self.summary = ui.column().classes("w-full gap-0")
            self.recorded = ui.column().classes("w-full gap-0")
            self.answer_area = ui.column().classes("w-full gap-0")
            with ui.row().classes("gap-1"):
                self.cancel_button = ui.button("Cancel command", on_click=lambda: actions.cancel(self.card))
                self.cancel_button.props("flat dense size=sm")
                self.retry_button = ui.button("Retry", on_click=lambda: actions.retry(self.card))
                self.retry_button.props("flat dense size=sm color=primary")
                self.undo_button = ui.button(
                    "Undo this command", on_click=lambda: actions.undo(self.card, False)
                )
                self.undo_button.props("flat dense size=sm color=primary icon=undo")
                self.redo_button = ui.button("Redo", on_click=lambda: actions.undo(self.card, True))
                self.redo_button.props("flat dense size=sm color=primary icon=redo")
        self.update(card, live)

    def update(self, card: Card, live: bool) -> None:
        self.card, self.live = card, live
        self.badge.text = card.state_words + (" · undone" if card.undone else "")
        self.badge.set_background_color(STATE_COLORS[card.state])
        self._update_steps()
        with self.messages:
            for kind, text in card.messages[self.messages_drawn :]:
                with ui.row().classes("items-start no-wrap gap-1"):
                    ui.icon(MESSAGE_ICONS.get(kind, "chat"), size="xs").classes("mt-1")
                    ui.label(text).classes("whitespace-pre-wrap break-words").props(f'data-kind="{kind}"')
        self.messages_drawn = len(card.messages)
        self._update_confirmations()
        if card.summary != self.summary_drawn:
            self.summary.clear()
            if card.summary is not None:
                with self.summary:
                    _summary(card.summary, [text for kind, text in card.messages if kind == "reply"])
            self.summary_drawn = card.summary
        if (card.recorded, card.mismatch, card.undone) != self.recorded_drawn:
            self.recorded.clear()
            if card.recorded is not None:
                with self.recorded:
                    self._recorded()
            self.recorded_drawn = (card.recorded, card.mismatch, card.undone)
        self._update_answer_box()
        self.cancel_button.visible = live and card.is_open
        self.retry_button.visible = live and card.can_retry
        self.undo_button.visible = card.can_undo and not card.undone
        self.redo_button.visible = card.can_undo and card.undone

    def _update_steps(self) -> None:
        """New steps are added; a tool call's line changes in place when it finishes."""
        for label, step in zip(self.step_labels, self.card.steps, strict=False):
            if label.text != step.text:
                label.text = step.text
                label.classes(replace=_step_classes(step))
        with self.steps:
            for step in self.card.steps[len(self.step_labels) :]:
                label = ui.label(step.text).classes(_step_classes(step))
                self.step_labels.append(label)
        self.steps_expansion.text = _steps_words(self.card)

    def _recorded(self) -> None:
        """ "Romergo recorded N changes": opening it shows them reviewed (read then, so current)."""
        card = self.card
        changes = card.recorded or []
        words = f"Romergo recorded {len(changes)} change{'s' if len(changes) != 1 else ''}"
        expansion = ui.expansion(words).classes("w-full text-caption").props('dense data-testid="recorded"')
        with expansion:
            shown = ui.column().classes("w-full gap-0")

        async def opened(event: ValueChangeEventArguments[bool]) -> None:
            if not event.value:
                return
            entries = await self.actions.review(card)
            shown.clear()
            with shown:
                change_review(self.actions.project_id, entries)

        expansion.on_value_change(opened)
        _mismatch(card)

    def _update_confirmations(self) -> None:
        waiting = self.card.confirmations if self.live else {}
        for confirmation_id in list(self.confirmation_boxes):
            if confirmation_id not in waiting:
                self.confirmation_boxes.pop(confirmation_id).delete()
        for confirmation_id, request in waiting.items():
            if confirmation_id not in self.confirmation_boxes:
                with self.confirmations:
                    self.confirmation_boxes[confirmation_id] = _confirmation(
                        confirmation_id, request, self.actions
                    )

    def _update_answer_box(self) -> None:
        wanted = self.live and self.card.state == CommandState.AWAITING_ANSWER
        if wanted and self.answer_box is None:
            with self.answer_area:
                self.answer_box = _answer_box(self)
        elif not wanted and self.answer_box is not None:
            self.answer_box.delete()
            self.answer_box = None


def _confirmation(confirmation_id: str, request: ConfirmationRequested, actions: CardActions) -> ui.card:
    """What the agent asks to do, in names the owner knows ("Change chapter “The Storm”", then
    Chapter “The Storm”, Title: …); the tool and its raw arguments stay under Details."""
    with ui.card().classes("w-full bg-orange-1 p-2 gap-1").props('flat data-testid="confirmation"') as box:
        ui.label("Your agent asks to:").classes("text-caption")
        headline = ui.label(_visible(request.action or request.tool)).classes(
            "text-weight-medium break-words"
        )
        parts = ui.column().classes("w-full gap-0")
        with parts:
            _arguments(request, {})
        with ui.expansion("Details").classes("w-full text-caption").props("dense"):
            ui.label(f"Tool: {request.tool}").classes("text-caption font-mono")
            arguments = json.dumps(request.arguments, ensure_ascii=True, indent=1, sort_keys=True)
            ui.label(arguments).classes("text-caption font-mono whitespace-pre-wrap break-all")

        async def named() -> None:
            try:
                names = await actions.names(_ids_in(request))
            except RomergoError:  # the project went: the ids stay shown, the decision does not need names
                return
            if headline.is_deleted:
                return
            headline.text = _with_names(request.action or request.tool, names)
            parts.clear()
            with parts:
                _arguments(request, names)

        background_tasks.create(named(), name="confirmation names")
        with ui.row().classes("gap-2"):
            ui.button("Allow once", on_click=lambda: actions.decide(confirmation_id, "allow_once")).props(
                "unelevated dense color=positive"
            )
            ui.button("Reject", on_click=lambda: actions.decide(confirmation_id, "reject")).props(
                "outline dense color=negative"
            )
    return box


def _step_classes(step: Step) -> str:
    return "text-caption " + (
        "text-negative" if step.failed else "text-warning" if step.flagged else "text-grey-8"
    )


def _steps_words(card: Card) -> str:
    calls = sum(1 for step in card.steps if step.tool is not None)
    return f"Steps ({calls} tool call{'s' if calls != 1 else ''})" if calls else "Steps"


def _arguments(request: ConfirmationRequested, names: dict[str, str]) -> None:
    """One line per argument: ids as what they name ("Scene “The Beacon”"), text as it is."""
    for key, value in request.arguments.items():
        if key == "command_id" or value is None:
            continue
        word = _argument_word(key, request.tool)
        if key.endswith("_id") and isinstance(value, str):
            shown = f"{word} “{names[value]}”" if value in names else f"{word} {value}"
        else:
            text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
            shown = f"{word}: {_named(text, names)}"
        ui.label(_visible(shown)).classes("text-caption break-words whitespace-pre-wrap")


def _ids_in(request: ConfirmationRequested) -> set[str]:
    """Every id the card could name: string values anywhere in the arguments (a choice's target
    sits inside a list) and ids quoted in the guard's action sentence."""
    found = set(ID.findall(request.action or ""))
    pending: list[Any] = [request.arguments]
    while pending:
        value = pending.pop()
        if isinstance(value, dict):
            pending.extend(value.values())
        elif isinstance(value, list):
            pending.extend(value)
        elif isinstance(value, str) and ID.fullmatch(value):
            found.add(value)
    return found


def _visible(text: str) -> str:
    """`text` with every character that could hide or reorder what the owner reads (bidi
    overrides, zero-width and control characters) written as its \\uXXXX escape: an agent's
    argument must not look like something else on the card the owner decides on."""
    return "".join(f"\\u{ord(c):04x}" if _hidden(c) else c for c in text)


def _hidden(character: str) -> bool:
    return unicodedata.category(character) in ("Cc", "Cf") and character not in "\n\t"


def _argument_word(key: str, tool: str) -> str:
    if key == "asset_id":
        return next((word for part, word in MEDIA_WORDS if part in tool), "Asset")
    return key.removesuffix("_id").replace("_", " ").capitalize()


def _with_names(action: str, names: dict[str, str]) -> str:
    """The guard's action sentence with each id it mentions given as the name it stands for."""
    return _visible(_named(action, names))


def _named(text: str, names: dict[str, str]) -> str:
    return ID.sub(lambda found: f"“{names[found[0]]}”" if found[0] in names else found[0], text)


def _summary(summary: Summary, replies: list[str]) -> None:
    """The summary's structured parts, in words: its description only when no reply already said
    it, the changed entities by kind and name (the id on hover), checks, links."""
    with ui.column().classes("w-full gap-0 border-l-4 border-green-300 pl-2").props('data-testid="summary"'):
        status = ui.label(STATUS_WORDS.get(summary.status, summary.status)).classes(
            "text-caption text-weight-medium"
        )
        status.props(f'data-status="{summary.status}"')
        if summary.description and not any(_same_words(summary.description, reply) for reply in replies):
            ui.label(summary.description).classes("text-caption whitespace-pre-wrap break-words")
        for entity in summary.changed_entities:
            kind = ENTITY_WORDS.get(entity.type, entity.type.replace("_", " ").capitalize())
            _link(
                f"Changed: {kind} {entity.title or entity.id}", entity.url, hover=f"{entity.type} {entity.id}"
            )
        for check in summary.checks:
            mark = "✓" if check.passed else "✗"
            detail = f" — {check.detail}" if check.detail else ""
            shown = ui.label(f"{mark} {_words(check.name)}{detail}").classes(
                "text-caption " + ("text-positive" if check.passed else "text-negative")
            )
            shown.props["title"] = check.name
        for link in summary.links:
            _link(link.title, link.url)


def _mismatch(card: Card) -> None:
    if card.mismatch:
        claimed = ", ".join(f"{e.type} {e.id}" for e in card.mismatch.claimed_not_recorded)
        missing = ", ".join(f"{e.type} {e.id}" for e in card.mismatch.recorded_not_claimed)
        text = "The summary differs from what was recorded."
        if claimed:
            text += f" Claimed but not recorded: {claimed}."
        if missing:
            text += f" Recorded but not in the summary: {missing}."
        ui.label(text).classes("text-caption text-negative").props('role="alert" data-testid="mismatch"')


def _answer_box(view: CardView) -> ui.row:
    with ui.row().classes("w-full items-center no-wrap gap-1") as row:
        box = ui.input("Your answer").props("outlined dense").classes("grow")

        async def send() -> None:
            if await view.actions.answer(view.card, box.value or ""):
                box.value = ""

        box.on("keydown.enter", send)
        ui.button("Answer", on_click=send).props("unelevated dense color=primary")
    return row


def _link(text: str, url: object, *, hover: str | None = None) -> None:
    """A link only to a Romergo page, and then the path Romergo builds for it, never the string
    sent. A long label is cut at a word; the whole label (or `hover`) is its tooltip."""
    path = urls.page_link(url)
    shown = _cut(text)
    element = ui.link(shown, path) if path is not None else ui.label(shown)
    element.classes("text-caption")
    if hover or shown != text:
        element.props["title"] = hover or text


def _cut(text: str) -> str:
    if len(text) <= LINK_WORDS:
        return text
    room = text[: LINK_WORDS - 1]
    cut = room.rsplit(" ", 1)[0] if " " in room else room
    return cut.rstrip(" ,.;:") + "…"


def _words(code: str) -> str:
    """A check named by a code (`dangling_target`) in words ("Dangling target"); text stays as sent."""
    if " " in code or "_" not in code:
        return code
    return code.replace("_", " ").capitalize()


def _same_words(a: str, b: str) -> bool:
    return " ".join(a.split()).casefold() == " ".join(b.split()).casefold()
