"""`/projects/{id}`: the story's outline, chapters with their scenes."""

from __future__ import annotations

from nicegui import ui

from romergo.bus import project_topic
from romergo.errors import RomergoError
from ui.components.not_found import not_found
from ui.context import PageContext
from ui.live import live


async def page(ctx: PageContext, project_id: str) -> None:
    try:
        outline = await ctx.services.stories.outline(ctx.actor, project_id)
    except RomergoError:
        not_found("project")
        return
    ui.page_title(f"{outline.project.title} · Romergo")

    @ui.refreshable
    async def tree() -> None:
        try:
            current = await ctx.services.stories.outline(ctx.actor, project_id)
        except RomergoError:
            not_found("project")
            return
        ui.label(current.project.title).classes("text-h5").props('data-testid="project-title"')
        for chapter in current.chapters:
            with ui.card().classes("w-full").props(f'data-testid="chapter-{chapter.chapter.id}"'):
                ui.label(chapter.chapter.title).classes("text-subtitle1 text-weight-medium")
                with ui.column().classes("gap-1 pl-4"):
                    for scene in chapter.scenes:
                        with ui.row().classes("items-center gap-2"):
                            ui.label(scene.title)
                            if scene.is_start:
                                ui.badge("start", color="positive")
                            if scene.is_ending:
                                ui.badge("ending", color="accent")

    await tree()
    live(ctx.services.bus, project_topic(project_id), lambda _: tree.refresh())
