"""`/projects/{id}/chapters/{id}`: a chapter's title, its music and background, and its scenes.

A rename or a new background or music is saved on the chapter's revision as the page showed it
(ui/drafts.py): a change made meanwhile merges, or the conflict view asks.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from nicegui import ui

from romergo.common import urls
from romergo.story.records import AssetRecord, ProjectRecord
from romergo.story.views import ChapterOutline, Outline
from ui.actions import act
from ui.components.buttons import icon_button
from ui.components.dialogs import ADD_SCENE, RENAME_CHAPTER, ask_for_change, confirm_chapter_deletion
from ui.components.media_slot import SlotKind, media_slots
from ui.context import PageContext
from ui.draft_watch import Edited
from ui.drafts import Opened, Target, ask_for_based_change, save_draft
from ui.frame import SectionPage


@dataclass(frozen=True)
class Loaded:
    outline: Outline
    entry: ChapterOutline
    assets: list[AssetRecord]

    @property
    def project(self) -> ProjectRecord:
        return self.outline.project


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
        outline = await self.services.reads.outline(self.ctx.actor, self.project_id)
        assets = await self.services.assets.find_assets(self.ctx.actor, self.project_id)
        entry = next((e for e in outline.chapters if e.chapter.id == self.chapter_id), None)
        return Loaded(outline, entry, assets) if entry else None

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
            icon_button("edit", "Rename the chapter", self.rename)
            ui.space()
            icon_button("delete", "Delete the chapter", lambda: self.delete(loaded.entry))
        media_slots(self.ctx, self.project_id, loaded.assets, chapter, self.set_media)
        self._scenes(loaded.entry)

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

    async def set_media(self, kind: SlotKind, asset_id: str | None) -> None:
        if self.current is None:
            return
        name = f"{kind}_asset_id"
        opened = self._opened(**{name: getattr(self.current.entry.chapter, name)})
        chapters = self.services.chapters
        setting = chapters.set_chapter_background if kind == "background" else chapters.set_chapter_music

        async def write(changes: Mapping[str, Any], revision: int) -> object:
            return await setting(self.ctx.actor, self.chapter_id, changes[name], expected_revision=revision)

        await save_draft(self.ctx, self._target(), opened, opened.changes({name: asset_id}), write)

    async def rename(self) -> None:
        if self.current is None:
            return

        async def write(changes: Mapping[str, Any], revision: int) -> object:
            return await self.services.chapters.update_chapter(
                self.ctx.actor, self.chapter_id, changes["title"], expected_revision=revision
            )

        opened = self._opened(title=self.current.entry.chapter.title)
        await ask_for_based_change(self.ctx, self._target(), RENAME_CHAPTER, "title", opened, write)

    def _opened(self, **values: Any) -> Opened:
        revision = self.current.outline.revisions.get(self.chapter_id, 0) if self.current else 0
        return Opened(revision, values)

    def _target(self) -> Target:
        return Target(Edited(self.project_id, "chapter", self.chapter_id), self.host, self._value_words)

    def _value_words(self, name: str, value: Any) -> str | None:
        if name.endswith("_asset_id") and self.current is not None:
            return next((a.name for a in self.current.assets if a.id == value), None)
        return None

    async def add_scene(self) -> None:
        await ask_for_change(
            self.ctx,
            self.host,
            ADD_SCENE,
            lambda text: self.services.scenes.add_scene(self.ctx.actor, self.chapter_id, text),
        )

    async def delete(self, entry: ChapterOutline) -> None:
        if await confirm_chapter_deletion(self.host, entry):
            done = await act(
                self.ctx, lambda: self.services.chapters.delete_chapter(self.ctx.actor, self.chapter_id)
            )
            if done.ok:
                ui.navigate.to(urls.project(self.project_id))
