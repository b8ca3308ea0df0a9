"""Small modal dialogs: ask for a text (add, rename) and confirm a deletion.

Dialogs are made inside `host`, an element that lives as long as the page, never inside a part a
live refresh rebuilds: otherwise a change from another tab would close the dialog under the
author's fingers.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from nicegui import ui

Save = Callable[[str], Awaitable[str | None]]
"""Gets the typed text; returns None when saved, else the message to show (the dialog stays open)."""


async def ask_text(
    host: ui.element,
    *,
    title: str,
    label: str,
    save: Save,
    value: str = "",
    action: str = "Save",
) -> bool:
    """True when `save` accepted a text, False when the author cancelled."""
    with host, ui.dialog() as dialog, ui.card().classes("w-[28rem] max-w-full gap-3"):
        ui.label(title).classes("text-h6")
        field = ui.input(label, value=value).props("outlined autofocus").classes("w-full")
        error = ui.label().props('role="alert"').classes("text-negative")
        error.visible = False

        async def submit() -> None:
            message = await save(field.value or "")
            if message is None:
                dialog.submit(True)
                return
            error.text = message
            error.visible = True

        field.on("keydown.enter", submit)
        with ui.row().classes("w-full justify-end gap-2"):
            ui.button("Cancel", on_click=lambda: dialog.submit(False)).props("flat")
            ui.button(action, on_click=submit).props("unelevated color=primary")
    return bool(await _run(dialog))


async def confirm(host: ui.element, *, title: str, message: str, action: str = "Delete") -> bool:
    """Ask before something hard to take back; True only for an explicit yes."""
    with host, ui.dialog() as dialog, ui.card().classes("w-[28rem] max-w-full gap-3"):
        ui.label(title).classes("text-h6")
        ui.label(message).classes("text-grey-8")
        with ui.row().classes("w-full justify-end gap-2"):
            ui.button("Cancel", on_click=lambda: dialog.submit(False)).props("flat autofocus")
            ui.button(action, on_click=lambda: dialog.submit(True)).props("unelevated color=negative")
    return bool(await _run(dialog))


async def _run(dialog: ui.dialog) -> object:
    result = await dialog
    if not dialog.is_deleted:
        dialog.delete()
    return result
