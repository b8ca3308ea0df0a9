"""Icon buttons that still have a name: screen readers, keyboard users and tests find them by it."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from nicegui import ui

Handler = Callable[[], Awaitable[None] | None] | Callable[[Any], Awaitable[None] | None]


def icon_button(icon: str, name: str, on_click: Handler, *, disabled: bool = False) -> ui.button:
    """A round flat button showing `icon`, announced and tooltipped as `name`."""
    button = ui.button(icon=icon, on_click=on_click).props("flat round dense")
    button.props["aria-label"] = name  # assigned, not parsed: names may hold any character
    # The browser's own tooltip: a Quasar tooltip per button is one more component to render in
    # every row of a long list, each time the list redraws.
    button.props["title"] = name
    if disabled:
        button.disable()
    return button


def show_more_button(hidden: int, step: int, on_click: Handler) -> ui.button:
    """Under a list drawn `step` rows at a time: shows the next rows of the `hidden` ones."""
    return ui.button(f"Show {min(hidden, step)} more of {hidden}", on_click=on_click).props(
        "flat dense no-caps color=primary"
    )
