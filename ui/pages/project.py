"""`/projects/{id}`: the story's outline (chapters and scenes), its title, publishing and deletion."""

from __future__ import annotations

from nicegui import ui

from romergo.bus import project_topic
from romergo.errors import RomergoError
from romergo.story.views import Outline
from ui.actions import act
from ui.components.buttons import icon_button
from ui.components.dialogs import ask_text, confirm
from ui.components.not_found import not_found
from ui.components.project_nav import project_nav
from ui.components.publish import publish_card
from ui.components.story_tree import TreeState, story_tree
from ui.context import PageContext
from ui.live import Section, watch


async def page(ctx: PageContext, project_id: str) -> None:
    ctx.place.enter(f"/projects/{project_id}", "project", project_id=project_id)
    host = ui.column().classes("w-full gap-3")
    tree_state = TreeState()

    async def load() -> Outline | None:
        try:
            return await ctx.services.reads.outline(ctx.actor, project_id)
        except RomergoError:
            return None

    def body(outline: Outline | None) -> None:
        if outline is None:
            not_found("project")
            return
        project = outline.project
        ui.page_title(f"{project.title} · Romergo")
        project_nav(project, "story")
        with ui.row().classes("w-full items-center gap-1"):
            ui.label(project.title).classes("text-h5").props('data-testid="project-title"')
            icon_button("edit", "Rename the story", rename)
            ui.space()
            icon_button("delete", "Delete the story", delete)
        publish_card(ctx, project)
        story_tree(ctx, host, outline, tree_state)

    async def rename() -> None:
        current = tree_state.outline.project.title if tree_state.outline else ""

        async def save(text: str) -> str | None:
            done = await act(
                ctx,
                lambda: ctx.services.projects.rename_project(ctx.actor, project_id, text),
                notify_errors=False,
            )
            return done.error

        await ask_text(host, title="Rename the story", label="Title", value=current, save=save)

    async def delete() -> None:
        title = tree_state.outline.project.title if tree_state.outline else "this story"
        if await confirm(
            host,
            title=f"Delete “{title}”?",
            message="The story goes, with its chapters, scenes and assets; its share link stops working.",
        ):
            done = await act(ctx, lambda: ctx.services.projects.delete_project(ctx.actor, project_id))
            if done.ok:
                ui.navigate.to("/projects")

    section = Section(body, key=_outline_key)

    async def reload() -> None:
        section.show(await load())

    first = await load()
    if first is None:
        not_found("project")
        return
    with host:
        section.show(first)
    watch(ctx, project_topic(project_id), reload)


def _outline_key(outline: Outline | None) -> object:
    """What the page shows: a change to a line or an asset elsewhere leaves the tree (and its focus) be."""
    if outline is None:
        return None
    project = outline.project
    chapters = tuple(
        (
            entry.chapter.id,
            entry.chapter.title,
            tuple((s.id, s.title, s.is_start, s.is_ending) for s in entry.scenes),
        )
        for entry in outline.chapters
    )
    return (project.title, project.published, project.share_id, chapters)
