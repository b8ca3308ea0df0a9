"""The bar on top of every project page: the story's title and its sections."""

from __future__ import annotations

from typing import Literal

from nicegui import ui

from romergo.common import urls
from romergo.story.records import ProjectRecord

NavEntry = Literal[
    "story", "map", "characters", "variables", "assets", "check", "search", "history", "members", "play"
]


def project_nav(project: ProjectRecord, active: NavEntry | None) -> None:
    entries: list[tuple[NavEntry, str, str]] = [
        ("story", "Story", urls.project(project.id)),
        ("map", "Map", urls.story_map(project.id)),
        ("characters", "Characters", urls.characters(project.id)),
        ("variables", "Variables", urls.variables(project.id)),
        ("assets", "Assets", urls.assets(project.id)),
        ("check", "Check", urls.check(project.id)),
        ("search", "Search", urls.search(project.id)),
        ("history", "History", urls.history(project.id)),
        ("members", "Members", urls.members(project.id)),
        ("play", "Play", urls.play(project.id)),
    ]
    with ui.row().classes("w-full items-center gap-3 mb-2").props('role="navigation" aria-label="Project"'):
        ui.link(project.title, urls.project(project.id)).classes(
            "text-subtitle1 text-weight-medium text-black no-underline"
        ).props('data-testid="project-name"')
        ui.space()
        for key, label, href in entries:
            link = ui.link(label, href).classes("no-underline")
            if key == active:
                link.classes("text-weight-bold text-primary").props('aria-current="page"')
            else:
                link.classes("text-grey-8")
