"""`/projects/{id}/history`: the latest changes to the story: who changed what, and when."""

from __future__ import annotations

from nicegui import ui

from romergo.bus import project_topic
from romergo.entities import Project
from romergo.errors import RomergoError
from romergo.story.views import RevisionView
from ui.components.not_found import not_found
from ui.components.project_nav import project_nav
from ui.context import PageContext
from ui.live import watch

ENTITY_NAMES = {
    "project": "story",
    "chapter": "chapter",
    "scene": "scene",
    "dialogue_line": "line",
    "choice": "choice",
    "character": "character",
    "asset": "asset",
}
SHOWN = 200


async def page(ctx: PageContext, project_id: str) -> None:
    ctx.place.enter(f"/projects/{project_id}/history", "history", project_id=project_id)

    async def load() -> tuple[Project, list[RevisionView]] | None:
        try:
            return (
                await ctx.services.projects.get_project(ctx.actor, project_id),
                await ctx.services.reads.history(ctx.actor, project_id, limit=SHOWN),
            )
        except RomergoError:
            return None

    @ui.refreshable
    def body(loaded: tuple[Project, list[RevisionView]] | None) -> None:
        if loaded is None:
            not_found("project")
            return
        project, revisions = loaded
        ui.page_title(f"History · {project.title} · Romergo")
        project_nav(project, "history")
        ui.label("History").classes("text-h5")
        ui.label(f"The latest {SHOWN} changes, newest first.").classes("text-caption text-grey-7")
        with ui.column().classes("w-full gap-0").props('role="list" aria-label="Changes"'):
            for view in revisions:
                _revision(ctx, project_id, view)

    async def reload() -> None:
        body.refresh(await load())

    first = await load()
    if first is None:
        not_found("project")
        return
    with ui.column().classes("w-full gap-3"):
        body(first)
    watch(ctx, project_topic(project_id), reload)


def _revision(ctx: PageContext, project_id: str, view: RevisionView) -> None:
    revision = view.revision
    what = ENTITY_NAMES.get(revision.entity_type, revision.entity_type)
    with (
        ui.row()
        .classes("w-full items-baseline gap-3 px-2 py-1 border-b")
        .props('role="listitem" data-testid="revision"')
    ):
        ui.label(f"{revision.created_at:%Y-%m-%d %H:%M:%S}").classes("text-caption text-grey-7 w-36")
        ui.label(_who(ctx, revision.actor_type, revision.actor_id, revision.tool)).classes(
            "w-40 text-weight-medium"
        )
        ui.label(f"{revision.action} {what}").classes("w-36")
        if revision.entity_type in ("scene", "chapter") and revision.action != "deleted":
            ui.link(view.title, f"/projects/{project_id}/{revision.entity_type}s/{revision.entity_id}")
        else:
            ui.label(view.title).classes("text-grey-9")


def _who(ctx: PageContext, actor_type: str, actor_id: str, tool: str | None) -> str:
    if actor_type == "user":
        return "you" if actor_id == ctx.user.id else "another user"
    if actor_type == "system":
        return "Romergo"
    return f"agent ({tool})" if tool else "agent"
