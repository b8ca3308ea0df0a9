"""`/projects/{id}/chapters/{id}`: a chapter's title, its music and background, and its scenes."""

from __future__ import annotations

from dataclasses import dataclass

from nicegui import ui

from romergo import urls
from romergo.entities import Asset, Project
from romergo.story.views import ChapterOutline, Outline
from ui.actions import act
from ui.components.buttons import icon_button
from ui.components.dialogs import ask_for_change, confirm_chapter_deletion
from ui.components.media_slot import Slot, media_slot
from ui.context import PageContext
from ui.frame import SectionPage


@dataclass(frozen=True)
class Loaded:
    outline: Outline
    entry: ChapterOutline
    assets: list[Asset]

    def asset(self, asset_id: str | None) -> Asset | None:
        return next((a for a in self.assets if a.id == asset_id), None)


async def page(ctx: PageContext, project_id: str, chapter_id: str) -> None:
    route = urls.chapter(project_id, chapter_id)
    ctx.place.enter(route, "chapter", project_id=project_id, chapter_id=chapter_id)
    await _ChapterPage(ctx, project_id, chapter_id).open()


class _ChapterPage(SectionPage[Loaded]):
    what = "chapter"

    def __init__(self, ctx: PageContext, project_id: str, chapter_id: str) -> None:
        super().__init__(ctx, project_id)
        self.chapter_id = chapter_id

    async def load(self) -> Loaded | None:
        outline = await self.stories.outline(self.ctx.actor, self.project_id)
        assets = await self.stories.find_assets(self.ctx.actor, self.project_id)
        entry = next((e for e in outline.chapters if e.chapter.id == self.chapter_id), None)
        return Loaded(outline, entry, assets) if entry else None

    def project(self, loaded: Loaded) -> Project:
        return loaded.outline.project

    def title(self, loaded: Loaded) -> str:
        return f"{loaded.entry.chapter.title} · {loaded.outline.project.title}"

    def key(self, loaded: Loaded) -> object:
        chapter = loaded.entry.chapter
        scenes = tuple((s.id, s.title, s.is_start, s.is_ending) for s in loaded.entry.scenes)
        assets = tuple((a.id, a.name, a.kind) for a in loaded.assets)
        return (chapter.title, chapter.music_asset_id, chapter.background_asset_id, scenes, assets)

    def draw(self, loaded: Loaded) -> None:
        chapter = loaded.entry.chapter
        with ui.row().classes("w-full items-center gap-2"):
            ui.label(chapter.title).classes("text-h5").props('data-testid="chapter-title"')
            icon_button("edit", "Rename the chapter", lambda: self.rename(chapter.title))
            ui.space()
            icon_button("delete", "Delete the chapter", lambda: self.delete(loaded.entry))
        self._media(loaded)
        self._scenes(loaded.entry)

    def _media(self, loaded: Loaded) -> None:
        chapter = loaded.entry.chapter
        with ui.grid().classes("w-full gap-3 grid-cols-1 md:grid-cols-2"):
            media_slot(
                self.ctx,
                self.project_id,
                Slot("background", "chapter", loaded.asset(chapter.background_asset_id)),
                [a for a in loaded.assets if a.kind == "background"],
                self.set_background,
            )
            media_slot(
                self.ctx,
                self.project_id,
                Slot("music", "chapter", loaded.asset(chapter.music_asset_id)),
                [a for a in loaded.assets if a.kind == "music"],
                self.set_music,
            )

    def _scenes(self, entry: ChapterOutline) -> None:
        with ui.card().classes("w-full gap-1"):
            with ui.row().classes("w-full items-center"):
                ui.label("Scenes").classes("text-subtitle1 text-weight-medium")
                ui.space()
                ui.button("Add scene", icon="add", on_click=self.add_scene).props("flat color=primary")
            if not entry.scenes:
                ui.label("No scenes yet.").classes("text-grey-6")
            with ui.column().classes("gap-1").props('role="list"'):
                for scene in entry.scenes:
                    with ui.row().classes("items-center gap-2").props('role="listitem"'):
                        ui.link(scene.title, urls.scene(self.project_id, scene.id))
                        if scene.is_start:
                            ui.badge("start", color="positive")
                        if scene.is_ending:
                            ui.badge("ending", color="accent")

    # ---- changes -------------------------------------------------------------------------------

    async def set_background(self, asset_id: str | None) -> None:
        await act(
            self.ctx, lambda: self.stories.set_chapter_background(self.ctx.actor, self.chapter_id, asset_id)
        )

    async def set_music(self, asset_id: str | None) -> None:
        await act(self.ctx, lambda: self.stories.set_chapter_music(self.ctx.actor, self.chapter_id, asset_id))

    async def rename(self, title: str) -> None:
        await ask_for_change(
            self.ctx,
            self.host,
            lambda text: self.stories.update_chapter(self.ctx.actor, self.chapter_id, text),
            title="Rename the chapter",
            label="Chapter title",
            value=title,
        )

    async def add_scene(self) -> None:
        await ask_for_change(
            self.ctx,
            self.host,
            lambda text: self.stories.add_scene(self.ctx.actor, self.chapter_id, text),
            title="Add a scene",
            label="Scene title",
            action="Add scene",
        )

    async def delete(self, entry: ChapterOutline) -> None:
        if await confirm_chapter_deletion(self.host, entry):
            done = await act(self.ctx, lambda: self.stories.delete_chapter(self.ctx.actor, self.chapter_id))
            if done.ok:
                ui.navigate.to(urls.project(self.project_id))
