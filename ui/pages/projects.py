"""`/projects`: the author's stories, newest first: open, export, rename, delete, start a new one or
import one from a file."""

from __future__ import annotations

from nicegui import ui

from romergo.common import urls
from romergo.common.bus import user_topic
from romergo.story.records import ProjectRecord
from ui.actions import act
from ui.components.buttons import icon_button
from ui.components.dialogs import RENAME_STORY, ask_for_change, confirm
from ui.components.story_files import export_menu, import_box
from ui.context import PageContext
from ui.live import watch


async def page(ctx: PageContext) -> None:
    ctx.place.enter(urls.PROJECTS, None)
    ui.page_title("Projects · Romergo")
    host = ui.column().classes("w-full gap-4")

    @ui.refreshable
    def listing(rows: list[ProjectRecord]) -> None:
        if not rows:
            ui.label("No stories yet. Give your first one a title below.").classes("text-grey-7")
        with ui.column().classes("w-full gap-2").props('role="list" aria-label="Your stories"'):
            for row in rows:
                _project_card(ctx, host, row)

    async def reload() -> None:
        listing.refresh(await ctx.services.projects.list_projects(ctx.actor))

    with host:
        ui.label("Your stories").classes("text-h5")
        listing(await ctx.services.projects.list_projects(ctx.actor))
        watch(ctx, user_topic(ctx.user.id), reload)

        with ui.row().classes("items-start gap-2 mt-2"):
            title = ui.input("New project title").props("outlined dense").classes("w-80")

            async def create() -> None:
                done = await act(
                    ctx, lambda: ctx.services.projects.create_project(ctx.actor, title.value or "")
                )
                if done.value is not None:
                    ui.navigate.to(urls.project(done.value.id))

            title.on("keydown.enter", create)
            ui.button("Create project", on_click=create).props("unelevated color=primary")
        import_box(ctx)


def _project_card(ctx: PageContext, host: ui.element, row: ProjectRecord) -> None:

    async def rename() -> None:
        await ask_for_change(
            ctx,
            host,
            RENAME_STORY,
            lambda text: ctx.services.projects.rename_project(ctx.actor, row.id, text),
            value=row.title,
        )

    async def delete() -> None:
        if await confirm(
            host,
            title=f"Delete “{row.title}”?",
            message="The story disappears from your list, with its chapters, scenes and assets.",
        ):
            await act(ctx, lambda: ctx.services.projects.delete_project(ctx.actor, row.id))

    with (
        ui.card().classes("w-full py-2").props(f'role="listitem" data-testid="project-{row.id}"'),
        ui.row().classes("w-full items-center gap-2"),
    ):
        ui.link(row.title, urls.project(row.id)).classes("text-subtitle1")
        if row.published:
            ui.badge("published", color="positive")
        ui.space()
        ui.label(f"updated {row.updated_at:%Y-%m-%d %H:%M}").classes("text-caption text-grey-7")
        export_menu(row.id, row.title)
        icon_button("edit", f"Rename {row.title}", rename)
        icon_button("delete", f"Delete {row.title}", delete)
