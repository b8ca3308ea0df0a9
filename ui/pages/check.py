"""`/projects/{id}/check`: every problem the story check finds, each with a link to where it is."""

from __future__ import annotations

from nicegui import ui

from romergo.bus import project_topic
from romergo.entities import Project
from romergo.errors import RomergoError
from romergo.story import Problem
from ui.components.not_found import not_found
from ui.components.project_nav import project_nav
from ui.context import PageContext
from ui.live import Section, watch

ICONS = {"error": ("error", "negative"), "warning": ("warning", "warning"), "info": ("info", "info")}
ORDER = {"error": 0, "warning": 1, "info": 2}


async def page(ctx: PageContext, project_id: str) -> None:
    ctx.place.enter(f"/projects/{project_id}/check", "check", project_id=project_id)

    async def load() -> tuple[Project, list[Problem]] | None:
        try:
            return (
                await ctx.services.projects.get_project(ctx.actor, project_id),
                await ctx.services.reads.check_story(ctx.actor, project_id),
            )
        except RomergoError:
            return None

    def body(loaded: tuple[Project, list[Problem]] | None) -> None:
        if loaded is None:
            not_found("project")
            return
        project, problems = loaded
        ui.page_title(f"Check · {project.title} · Romergo")
        project_nav(project, "check")
        ui.label("Story check").classes("text-h5")
        if not problems:
            ui.label("No problems found: every scene can be reached and leads somewhere.").classes(
                "text-positive"
            ).props('role="status"')
            return
        counts = {level: sum(p.severity == level for p in problems) for level in ORDER}
        summary = ", ".join(f"{n} {level}{'s' if n != 1 else ''}" for level, n in counts.items() if n)
        ui.label(f"{len(problems)} problem{'s' if len(problems) != 1 else ''}: {summary}.").props(
            'role="status"'
        )
        with ui.column().classes("w-full gap-1").props('role="list" aria-label="Problems"'):
            for problem in sorted(problems, key=lambda p: ORDER.get(p.severity, 3)):
                _problem(project_id, problem)

    section = Section(body, key=lambda loaded: (loaded[0].title, loaded[1]) if loaded else None)

    async def reload() -> None:
        section.show(await load())

    first = await load()
    if first is None:
        not_found("project")
        return
    with ui.column().classes("w-full gap-3"):
        section.show(first)
    watch(ctx, project_topic(project_id), reload)


def _problem(project_id: str, problem: Problem) -> None:
    icon, color = ICONS.get(problem.severity, ("help", "grey"))
    with (
        ui.row()
        .classes("w-full items-center gap-2 px-2 py-1")
        .props(f'role="listitem" data-testid="problem-{problem.code}"')
    ):
        ui.icon(icon, color=color).props(f'aria-label="{problem.severity}"')
        ui.label(problem.message).classes("grow")
        if problem.scene_id:
            ui.link("Open the scene", f"/projects/{project_id}/scenes/{problem.scene_id}")
        elif problem.chapter_id:
            ui.link("Open the chapter", f"/projects/{project_id}/chapters/{problem.chapter_id}")
        elif problem.code == "unused_asset":
            ui.link("Open the assets", f"/projects/{project_id}/assets")
