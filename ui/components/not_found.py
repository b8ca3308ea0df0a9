"""The friendly page for an unknown or foreign id: says what was not found, offers a way back."""

from __future__ import annotations

from nicegui import ui

from romergo.common import urls


def not_found(what: str = "page", back: tuple[str, str] = (urls.PROJECTS, "Back to your projects")) -> None:
    with ui.column().classes("w-full items-center mt-16 gap-2").props('role="main"'):
        ui.icon("explore_off", size="xl").classes("text-grey-6")
        ui.label(f"This {what} does not exist").classes("text-h5").props('data-testid="not-found"')
        ui.label("It may have been deleted, or the link is wrong.").classes("text-grey-7")
        ui.link(back[1], back[0]).classes("mt-2")
