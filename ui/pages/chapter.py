"""`/projects/{id}/chapters/{id}`: a chapter's title, its music and background, and its scenes."""

from __future__ import annotations

from dataclasses import dataclass

from nicegui import ui

from romergo.bus import project_topic
from romergo.entities import Asset
from romergo.errors import RomergoError
from romergo.story.views import ChapterOutline, Outline
from ui.actions import act
from ui.components.buttons import icon_button
from ui.components.dialogs import ask_text, confirm
from ui.components.media_slot import Slot, media_slot
from ui.components.not_found import not_found
from ui.components.project_nav import project_nav
from ui.context import PageContext
from ui.live import Section, watch


@dataclass(frozen=True)
class Loaded:
    outline: Outline
    entry: ChapterOutline
    assets: list[Asset]

    def asset(self, asset_id: str | None) -> Asset | None:
        return next((a for a in self.assets if a.id == asset_id), None)


async def page(ctx: PageContext, project_id: str, chapter_id: str) -> None:
    route = f"/projects/{project_id}/chapters/{chapter_id}"
    ctx.place.enter(route, "chapter", project_id=project_id, chapter_id=chapter_id)
    host = ui.column().classes("w-full gap-3")

    async def load() -> Loaded | None:
        try:
            outline = await ctx.services.reads.outline(ctx.actor, project_id)
            assets = await ctx.services.assets.find_assets(ctx.actor, project_id)
        except RomergoError:
            return None
        entry = next((e for e in outline.chapters if e.chapter.id == chapter_id), None)
        return Loaded(outline, entry, assets) if entry else None

    def body(loaded: Loaded | None) -> None:
        if loaded is None:
            not_found("chapter")
            return
        chapter = loaded.entry.chapter
        ui.page_title(f"{chapter.title} · {loaded.outline.project.title} · Romergo")
        project_nav(loaded.outline.project, "story")
        with ui.row().classes("w-full items-center gap-2"):
            ui.label(chapter.title).classes("text-h5").props('data-testid="chapter-title"')
            icon_button("edit", "Rename the chapter", lambda: rename(chapter.title))
            ui.space()
            icon_button("delete", "Delete the chapter", lambda: delete(loaded.entry))
        with ui.grid().classes("w-full gap-3 grid-cols-1 md:grid-cols-2"):
            media_slot(
                ctx,
                project_id,
                Slot("background", "chapter", loaded.asset(chapter.background_asset_id)),
                [a for a in loaded.assets if a.kind == "background"],
                lambda asset_id: act(
                    ctx, lambda: ctx.services.chapters.set_chapter_background(ctx.actor, chapter_id, asset_id)
                ),
            )
            media_slot(
                ctx,
                project_id,
                Slot("music", "chapter", loaded.asset(chapter.music_asset_id)),
                [a for a in loaded.assets if a.kind == "music"],
                lambda asset_id: act(
                    ctx, lambda: ctx.services.chapters.set_chapter_music(ctx.actor, chapter_id, asset_id)
                ),
            )
        with ui.card().classes("w-full gap-1"):
            with ui.row().classes("w-full items-center"):
                ui.label("Scenes").classes("text-subtitle1 text-weight-medium")
                ui.space()
                ui.button("Add scene", icon="add", on_click=add_scene).props("flat color=primary")
            if not loaded.entry.scenes:
                ui.label("No scenes yet.").classes("text-grey-6")
            with ui.column().classes("gap-1").props('role="list"'):
                for scene in loaded.entry.scenes:
                    with ui.row().classes("items-center gap-2").props('role="listitem"'):
                        ui.link(scene.title, f"/projects/{project_id}/scenes/{scene.id}")
                        if scene.is_start:
                            ui.badge("start", color="positive")
                        if scene.is_ending:
                            ui.badge("ending", color="accent")

    async def rename(title: str) -> None:
        async def save(text: str) -> str | None:
            change = act(
                ctx,
                lambda: ctx.services.chapters.update_chapter(ctx.actor, chapter_id, text),
                notify_errors=False,
            )
            return (await change).error

        await ask_text(host, title="Rename the chapter", label="Chapter title", value=title, save=save)

    async def add_scene() -> None:
        async def save(text: str) -> str | None:
            change = act(
                ctx, lambda: ctx.services.scenes.add_scene(ctx.actor, chapter_id, text), notify_errors=False
            )
            return (await change).error

        await ask_text(host, title="Add a scene", label="Scene title", action="Add scene", save=save)

    async def delete(entry: ChapterOutline) -> None:
        count = len(entry.scenes)
        scenes = "no scenes" if count == 0 else "1 scene" if count == 1 else f"{count} scenes"
        if await confirm(
            host,
            title=f"Delete the chapter “{entry.chapter.title}”?",
            message=f"It has {scenes}; they are deleted with it, with their dialogue and choices.",
        ):
            done = await act(ctx, lambda: ctx.services.chapters.delete_chapter(ctx.actor, chapter_id))
            if done.ok:
                ui.navigate.to(f"/projects/{project_id}")

    section = Section(body, key=_key)

    async def reload() -> None:
        section.show(await load())

    first = await load()
    if first is None:
        not_found("chapter")
        return
    with host:
        section.show(first)
    watch(ctx, project_topic(project_id), reload)


def _key(loaded: Loaded | None) -> object:
    if loaded is None:
        return None
    chapter = loaded.entry.chapter
    scenes = tuple((s.id, s.title, s.is_start, s.is_ending) for s in loaded.entry.scenes)
    assets = tuple((a.id, a.name, a.kind) for a in loaded.assets)
    own = (chapter.title, chapter.music_asset_id, chapter.background_asset_id)
    return (loaded.outline.project.title, *own, scenes, assets)
