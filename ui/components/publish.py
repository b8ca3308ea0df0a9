"""Publish / unpublish a project: a frozen, read-only copy behind a share link anyone may open."""

from __future__ import annotations

from nicegui import ui

from romergo.common import urls
from romergo.common.errors import RomergoError
from romergo.story.records import ProjectRecord
from ui.actions import act
from ui.components.dialogs import confirm
from ui.context import PageContext


def publish_card(ctx: PageContext, project: ProjectRecord) -> None:
    host = ui.element("div")
    """Where the confirmation dialog lives, outside the card that redraws."""

    async def publish() -> None:
        if not await confirm(
            host,
            title="Publish this story?" if not project.published else "Publish the story again?",
            message=await _what_goes_public(ctx, project),
            action="Publish",
            danger=False,
        ):
            return
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


async def _what_goes_public(ctx: PageContext, project: ProjectRecord) -> str:
    """What publishing shows to anyone with the link, counted from the story as it is now."""
    try:
        outline = await ctx.services.reads.outline(ctx.actor, project.id)
        size = f"{len(outline.chapters)} chapter(s), {outline.scene_count} scene(s) with their dialogue, "
    except RomergoError:
        size = "the story's chapters and scenes with their dialogue, "
    replaced = " It replaces the copy published before." if project.published else ""
    return (
        f"Anyone with the link will be able to read and play a frozen copy of the story as it is now: "
        f"{size}choices, backgrounds and music. Your later edits stay private until you publish "
        f"again; unpublishing makes the link stop working.{replaced}"
    )
