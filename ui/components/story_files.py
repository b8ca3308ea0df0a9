"""Import a story file as a new project, and export a project as a file.

Exports are plain downloads from the JSON API (the browser's session signs them in); an import
goes through the interchange service, which checks the whole file first and creates the project
in one step, or nothing. What the file had that Romergo keeps no equivalent of is listed under
the result, never dropped silently.
"""

from __future__ import annotations

from pathlib import Path

from nicegui import ui
from nicegui.events import UploadEventArguments

from romergo.common import urls
from ui.actions import act
from ui.context import PageContext

FORMATS = [
    ("archive", "Romergo archive (.romergo.zip)"),
    ("twee", "Twine (Twee 3)"),
    ("yarn", "Yarn Spinner"),
]
MAX_IMPORT_BYTES = 30 * 1024 * 1024
NOTES_SHOWN = 20


def export_menu(project_id: str, title: str) -> None:
    """A download button whose menu offers each format."""
    with ui.button(icon="download").props(f'flat round dense aria-label="Export {title}" title="Export"'):
        with ui.menu():
            for format, label in FORMATS:
                url = f"/api/v1/projects/{project_id}/export?format={format}"
                ui.menu_item(label, on_click=lambda u=url: ui.download.from_url(u))


def import_box(ctx: PageContext) -> None:
    """An upload box for a .romergo.zip, .twee, Twine .html or .yarn file, and where its outcome is shown."""
    outcome = ui.column().classes("w-full gap-1").props('role="status" aria-live="polite"')

    async def received(event: UploadEventArguments) -> None:
        data = await event.file.read()
        upload.reset()
        name = Path(event.file.name).name
        interchange = ctx.services.interchange
        done = await act(ctx, lambda: interchange.import_file(ctx.actor, name, data))
        outcome.clear()
        imported = done.value
        if imported is None:
            return
        with outcome:
            with ui.row().classes("items-center gap-2"):
                ui.label(f"Imported “{imported.project.title}”: {imported.scenes} scenes.").props(
                    'data-testid="import-result"'
                )
                ui.link("Open it", urls.project(imported.project.id))
            if imported.notes:
                ui.label("Not kept, because Romergo has no equivalent yet:").classes("text-caption")
                for note in imported.notes[:NOTES_SHOWN]:
                    ui.label(f"• {note}").classes("text-caption text-grey-8").props(
                        'data-testid="import-note"'
                    )
                if len(imported.notes) > NOTES_SHOWN:
                    ui.label(f"… and {len(imported.notes) - NOTES_SHOWN} more.").classes("text-caption")

    def rejected() -> None:
        ui.notify("That file is too large to import (at most 30 MB).", type="negative")

    upload = ui.upload(
        label="Import a story (.romergo.zip, .twee, Twine .html, .yarn)",
        auto_upload=True,
        max_file_size=MAX_IMPORT_BYTES,
        on_upload=received,
        on_rejected=rejected,
    ).props('flat bordered data-testid="story-import"')
    upload.props["accept"] = ".zip,.twee,.tw,.html,.htm,.yarn,.txt"
