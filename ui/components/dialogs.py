"""Small modal dialogs: a form with Cancel / Save, a text to ask for (add, rename), a confirmation,
and the questions asked before deleting a chapter or a scene (the same wherever that happens).

Dialogs are made inside `host`, an element that lives as long as the page, never inside a part a
live refresh rebuilds: otherwise a change from another tab would close the dialog under the
author's fingers.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TypeVar

from nicegui import ui

from romergo.story.views import ChapterOutline
from ui.actions import act
from ui.context import PageContext

Save = Callable[[str], Awaitable[str | None]]
"""Gets the typed text; returns None when saved, else the message to show (the dialog stays open)."""
Submit = Callable[[], Awaitable[bool]]
"""Saves a form; True when the dialog may close, False to keep it open (the author corrects it)."""
Field = TypeVar("Field", bound=ui.element)


class FormDialog:
    """A modal form: draw its fields inside `with form.card:`, then `await form.run(save)`; what
    belongs to the title (an open draft's notice) inside `with form.header:`."""

    def __init__(self, host: ui.element, title: str, *, action: str = "Save") -> None:
        self.action = action
        self._submitting: list[ui.element] = []
        with host, ui.dialog() as self.dialog, ui.card().classes("w-[28rem] max-w-full gap-3") as self.card:
            with ui.column().classes("w-full gap-0") as self.header:
                ui.label(title).classes("text-h6")

    def enter_saves(self, field: Field) -> Field:
        """Enter in this field saves the form."""
        self._submitting.append(field)
        return field

    async def run(self, save: Submit) -> bool:
        """True when `save` accepted the form, False when the author cancelled."""

        async def submit() -> None:
            if await save():
                self.dialog.submit(True)

        for field in self._submitting:
            field.on("keydown.enter", submit)
        with self.card, ui.row().classes("w-full justify-end gap-2"):
            ui.button("Cancel", on_click=lambda: self.dialog.submit(False)).props("flat")
            ui.button(self.action, on_click=submit).props("unelevated color=primary")
        return bool(await _run(self.dialog))


@dataclass(frozen=True)
class Question:
    """A dialog asking for one text: its title, the field's label and the button that saves."""

    title: str
    label: str
    action: str = "Save"


RENAME_STORY = Question("Rename the story", "Title")
RENAME_CHAPTER = Question("Rename the chapter", "Chapter title")
RENAME_SCENE = Question("Rename the scene", "Scene title")
ADD_CHAPTER = Question("Add a chapter", "Chapter title", "Add chapter")
ADD_SCENE = Question("Add a scene", "Scene title", "Add scene")
ENTRY_EFFECTS = Question(
    "On entering this scene", "Effects, as in: set has_key = true; set courage = courage + 1 (empty: none)"
)


async def ask_text(
    host: ui.element,
    question: Question,
    save: Save,
    *,
    value: str = "",
    above: Callable[[], None] | None = None,
) -> bool:
    """True when `save` accepted a text, False when the author cancelled. `above` draws what goes
    under the title (the notice of an open draft)."""
    form = FormDialog(host, question.title, action=question.action)
    if above is not None:
        with form.header:
            above()
    with form.card:
        field = ui.input(question.label, value=value).props("outlined autofocus").classes("w-full")
        form.enter_saves(field)
        error = ui.label().props('role="alert"').classes("text-negative")
        error.visible = False

    async def submit() -> bool:
        message = await save(field.value or "")
        if message is not None:
            error.text = message
            error.visible = True
        return message is None

    return await form.run(submit)


async def ask_for_change(
    ctx: PageContext,
    host: ui.element,
    question: Question,
    change: Callable[[str], Awaitable[object]],
    *,
    value: str = "",
) -> bool:
    """Ask for a text (a title) and make `change` with it; a refusal shows in the dialog, which stays."""

    async def save(text: str) -> str | None:
        return (await act(ctx, lambda: change(text), notify_errors=False)).error

    return await ask_text(host, question, save, value=value)


async def confirm(
    host: ui.element, *, title: str, message: str, action: str = "Delete", danger: bool = True
) -> bool:
    """Ask before something hard to take back (or, not `danger`, before something others will
    see); True only for an explicit yes."""
    with host, ui.dialog() as dialog, ui.card().classes("w-[28rem] max-w-full gap-3"):
        ui.label(title).classes("text-h6")
        ui.label(message).classes("text-grey-8")
        with ui.row().classes("w-full justify-end gap-2"):
            ui.button("Cancel", on_click=lambda: dialog.submit(False)).props("flat autofocus")
            color = "negative" if danger else "primary"
            ui.button(action, on_click=lambda: dialog.submit(True)).props(f"unelevated color={color}")
    return bool(await _run(dialog))


async def confirm_chapter_deletion(host: ui.element, entry: ChapterOutline) -> bool:
    count = len(entry.scenes)
    scenes = "no scenes" if count == 0 else "1 scene" if count == 1 else f"{count} scenes"
    return await confirm(
        host,
        title=f"Delete the chapter “{entry.chapter.title}”?",
        message=f"It has {scenes}; they are deleted with it, with their dialogue and choices.",
    )


async def confirm_scene_deletion(host: ui.element, title: str) -> bool:
    return await confirm(
        host,
        title=f"Delete the scene “{title}”?",
        message="Its dialogue and choices go with it. Choices that lead here will lead nowhere.",
    )


async def _run(dialog: ui.dialog) -> object:
    result = await dialog
    if not dialog.is_deleted:
        dialog.delete()
    return result
