"""Publish / unpublish a project: a frozen, read-only copy behind a share link anyone may open."""

from __future__ import annotations

from nicegui import ui

from romergo import urls
from romergo.entities import Project
from ui.actions import act
from ui.context import PageContext


def publish_card(ctx: PageContext, project: Project) -> None:

    async def publish() -> None:
        done = await act(ctx, lambda: ctx.services.publishing.publish_project(ctx.actor, project.id))
        if done.ok:
            ui.notify("Published. The link shows the story as it is now.", type="positive")

    async def unpublish() -> None:
        done = await act(ctx, lambda: ctx.services.publishing.unpublish_project(ctx.actor, project.id))
        if done.ok:
            ui.notify("Unpublished. The link no longer works.", type="info")

    with (
        ui.card().classes("w-full").props('data-testid="publish"'),
        ui.row().classes("w-full items-center gap-3"),
    ):
        ui.icon(
            "public" if project.published else "public_off", color="primary" if project.published else "grey"
        )
        if project.published and project.share_id:
            path = urls.published(project.share_id)
            with ui.column().classes("gap-0"):
                ui.label("Published: anyone with the link can read and play the story.")
                ui.link(urls.absolute(ctx.services.settings.base_url, path), path, new_tab=True).props(
                    'data-testid="share-link"'
                )
            ui.space()
            ui.button("Publish again", on_click=publish).props("flat color=primary")
            ui.button("Unpublish", on_click=unpublish).props("outline color=primary")
        else:
            ui.label("Not published. Publishing freezes a read-only copy behind a share link.")
            ui.space()
            ui.button("Publish", on_click=publish).props("unelevated color=primary")
