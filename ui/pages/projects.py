"""`/projects`: the author's stories, newest first, and a way to start a new one."""

from __future__ import annotations

from nicegui import ui

from romergo.bus import user_topic
from romergo.clock import iso
from romergo.errors import RomergoError
from ui.context import PageContext
from ui.live import live


async def page(ctx: PageContext) -> None:
    ui.page_title("Projects · Romergo")
    ui.label("Your stories").classes("text-h5")

    @ui.refreshable
    async def listing() -> None:
        rows = await ctx.services.stories.list_projects(ctx.actor)
        if not rows:
            ui.label("No stories yet. Give your first one a title below.").classes("text-grey-7")
        with ui.column().classes("w-full gap-2"):
            for row in rows:
                with ui.card().classes("w-full").props(f'data-testid="project-{row.id}"'):
                    with ui.row().classes("w-full items-center justify-between"):
                        ui.link(row.title, f"/projects/{row.id}").classes("text-subtitle1")
                        ui.label(f"updated {iso(row.updated_at)}").classes("text-caption text-grey-7")

    await listing()
    live(ctx.services.bus, user_topic(ctx.user.id), lambda _: listing.refresh())

    with ui.row().classes("items-start gap-2 mt-4"):
        title = ui.input("New project title").props("outlined dense")

        async def create() -> None:
            if not await ctx.still_signed_in():
                ui.navigate.to("/login")
                return
            try:
                created = await ctx.services.stories.create_project(ctx.actor, title.value or "")
            except RomergoError as error:
                ui.notify(error.message, type="negative")
                return
            ui.navigate.to(f"/projects/{created.id}")

        ui.button("Create project", on_click=create).props("unelevated color=primary")
