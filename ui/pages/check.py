"""`/projects/{id}/check`: every problem the story check finds, each with a link to where it is.

The most severe come first, `PROBLEMS_AT_ONCE` at a time ("Show more" adds as many again): a long
story can have thousands of problems, and the page stays as quick as for a short one.
"""

from __future__ import annotations

from nicegui import ui

from romergo.common import urls
from romergo.story import Problem
from ui.components.buttons import show_more_button
from ui.context import PageContext
from ui.frame import Listing, ListingPage

ICONS = {"error": ("error", "negative"), "warning": ("warning", "warning"), "info": ("info", "info")}
ORDER = {"error": 0, "warning": 1, "info": 2}
PROBLEMS_AT_ONCE = 100


async def page(ctx: PageContext, project_id: str) -> None:
    ctx.place.enter(urls.check(project_id), "check", project_id=project_id)
    await _CheckPage(ctx, project_id).open()


class _CheckPage(ListingPage[Problem]):
    nav = "check"
    heading = "Check"
    shown = PROBLEMS_AT_ONCE

    async def items(self) -> list[Problem]:
        return await self.services.reads.check_story(self.ctx.actor, self.project_id)

    def key(self, loaded: Listing[Problem]) -> object:
        return loaded.items

    def draw(self, loaded: Listing[Problem]) -> None:
        problems = loaded.items
        ui.label("Story check").classes("text-h5")
        if not problems:
            ui.label("No problems found: every scene can be reached and leads somewhere.").classes(
                "text-positive"
            ).props('role="status"')
            return
        ui.label(_summary(problems)).props('role="status"')
        listed = ui.column().classes("w-full gap-1")
        self._list(listed, sorted(problems, key=lambda p: ORDER.get(p.severity, 3)))

    def _list(self, listed: ui.column, problems: list[Problem]) -> None:
        listed.clear()
        with listed:
            with ui.column().classes("w-full gap-1").props('role="list" aria-label="Problems"'):
                for problem in problems[: self.shown]:
                    _problem(self.project_id, problem)
            hidden = len(problems) - self.shown
            if hidden > 0:
                show_more_button(hidden, PROBLEMS_AT_ONCE, lambda: self._more(listed, problems))

    def _more(self, listed: ui.column, problems: list[Problem]) -> None:
        self.shown += PROBLEMS_AT_ONCE
        self._list(listed, problems)


def _summary(problems: list[Problem]) -> str:
    counts = {level: sum(p.severity == level for p in problems) for level in ORDER}
    levels = ", ".join(f"{n} {level}{'s' if n != 1 else ''}" for level, n in counts.items() if n)
    return f"{len(problems)} problem{'s' if len(problems) != 1 else ''}: {levels}."


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
            ui.link("Open the scene", urls.scene(project_id, problem.scene_id))
        elif problem.chapter_id:
            ui.link("Open the chapter", urls.chapter(project_id, problem.chapter_id))
        elif problem.code == "unused_asset":
            ui.link("Open the assets", urls.assets(project_id))
