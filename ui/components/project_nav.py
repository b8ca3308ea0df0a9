"""The bar on top of every project page: the story's title and its sections."""

from __future__ import annotations

from typing import Literal

from nicegui import ui

from romergo.entities import Project

Section = Literal["story", "characters", "assets", "check", "history", "play"]


def project_nav(project: Project, active: Section | None) -> None:
    sections: list[tuple[Section, str, str]] = [
        ("story", "Story", f"/projects/{project.id}"),
        ("characters", "Characters", f"/projects/{project.id}/characters"),
        ("assets", "Assets", f"/projects/{project.id}/assets"),
        ("check", "Check", f"/projects/{project.id}/check"),
        ("history", "History", f"/projects/{project.id}/history"),
        ("play", "Play", f"/play/{project.id}"),
    ]
    with ui.row().classes("w-full items-center gap-4 mb-2").props('role="navigation" aria-label="Project"'):
        ui.link(project.title, f"/projects/{project.id}").classes(
            "text-subtitle1 text-weight-medium text-black no-underline"
        ).props('data-testid="project-name"')
        ui.space()
        for key, label, href in sections:
            link = ui.link(label, href).classes("no-underline")
            if key == active:
                link.classes("text-weight-bold text-primary").props('aria-current="page"')
            else:
                link.classes("text-grey-8")
