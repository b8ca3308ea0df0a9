"""`/projects/{id}/scenes/{id}`: the scene editor.

Title and start / ending marks, background and music (the chapter's unless the scene has its own),
dialogue lines and choices. Each part redraws on its own when the project changes, so a draft
being typed in one part survives a change made elsewhere (or in another tab, or by an agent).
Every change is saved on the scene's revision as this page last showed it (ui/drafts.py): a
change made meanwhile merges, or the conflict view asks.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from nicegui import background_tasks, ui

from romergo.common import urls
from romergo.story.records import AssetRecord, ProjectRecord
from romergo.story.views import Outline, SceneView
from ui.actions import act
from ui.components.buttons import icon_button
from ui.components.choices_editor import ChoicesEditor
from ui.components.dialogs import ENTRY_EFFECTS, RENAME_SCENE, confirm_scene_deletion
from ui.components.lines_editor import LinesEditor
from ui.components.media_slot import SlotKind, media_slots
from ui.context import PageContext
from ui.draft_watch import Edited
from ui.drafts import Opened, Target, ask_for_based_change, save_draft
from ui.frame import ProjectPage
from ui.live import Section
from ui.on_scene import OthersOnScene


@dataclass(frozen=True)
class Loaded:
    view: SceneView
    outline: Outline
    assets: list[AssetRecord]

    @property
    def project(self) -> ProjectRecord:
        return self.view.project


async def page(ctx: PageContext, project_id: str, scene_id: str) -> None:
    ctx.place.enter(urls.scene(project_id, scene_id), "scene", project_id=project_id, scene_id=scene_id)
    await _SceneEditor(ctx, project_id, scene_id).open()


class _SceneEditor(ProjectPage[Loaded]):
    what = "scene"

    def __init__(self, ctx: PageContext, project_id: str, scene_id: str) -> None:
        super().__init__(ctx, project_id)
        self.scene_id = scene_id
        self.parts: _Parts | None = None

    async def load(self) -> Loaded | None:
        view = await self.services.scenes.scene_view(self.ctx.actor, self.scene_id)
        if view.project.id != self.project_id:
            return None
        outline = await self.services.reads.outline(self.ctx.actor, self.project_id)
        assets = await self.services.assets.find_assets(self.ctx.actor, self.project_id)
        return Loaded(view, outline, assets)

    def title(self, loaded: Loaded) -> str:
        return f"{loaded.view.scene.title} · {loaded.view.project.title}"

    def show(self, loaded: Loaded) -> None:
        self.ctx.place.chapter_id = loaded.view.chapter.id
        if self.parts is not None:
            self.parts.show(loaded)

    def build(self, loaded: Loaded) -> None:
        self.ctx.place.chapter_id = loaded.view.chapter.id
        crumbs = Section(self.breadcrumb, key=_breadcrumb_key)
        crumbs.show(loaded)
        # Built once and updated in place: a click on a switch is never lost to a redraw.
        with ui.row().classes("w-full items-center gap-2"):
            title = ui.label().classes("text-h5").props('data-testid="scene-title"')
            icon_button("edit", "Rename the scene", self.rename)
            ui.space()
            start = ui.switch("Start scene", on_change=lambda e: self.mark(is_start=e.value))
            ending = ui.switch("Ending", on_change=lambda e: self.mark(is_ending=e.value))
            play = ui.button("Play from here", icon="play_arrow").props("flat color=primary")
            play.props["href"] = urls.play(self.project_id, self.scene_id)
            on_map = ui.button("On the map", icon="account_tree").props("flat color=primary")
            on_map.props["href"] = urls.story_map(self.project_id, self.scene_id)
            changes = ui.button("Scene history", icon="history").props("flat color=primary")
            changes.props["href"] = urls.history(self.project_id, scene_id=self.scene_id)
            icon_button("delete", "Delete the scene", self.delete)
        others = OthersOnScene(self.ctx, self.scene_id)
        background_tasks.create(others.show(), name="others on the scene")
        media = Section(self.media, key=_media_key)
        media.show(loaded)
        entry = Section(self.entry_effects, key=lambda shown: shown.view.scene.entry_effects)
        entry.show(loaded)
        lines = LinesEditor(self.ctx, self.host, loaded.view)
        choices = ChoicesEditor(self.ctx, self.host, loaded.view, loaded.outline)
        self.parts = _Parts(crumbs, title, start, ending, media, entry, lines, choices)
        self.parts.show(loaded)

    def breadcrumb(self, loaded: Loaded) -> None:
        view = loaded.view
        with ui.row().classes("items-center gap-1 text-grey-8").props('aria-label="Breadcrumb"'):
            ui.link(view.chapter.title, urls.chapter(self.project_id, view.chapter.id))
            ui.label("›")
            ui.label(view.scene.title)

    def media(self, loaded: Loaded) -> None:
        view = loaded.view
        media_slots(
            self.ctx, self.project_id, loaded.assets, view.scene, self.set_media, chapter=view.chapter
        )

    def entry_effects(self, loaded: Loaded) -> None:
        effects = loaded.view.scene.entry_effects
        with ui.row().classes("w-full items-center gap-2").props('data-testid="entry-effects"'):
            ui.icon("login", color="grey-7")
            if effects:
                ui.label("On entering:").classes("text-grey-8")
                ui.label(effects).classes("font-mono text-teal-8").props('data-testid="entry-effects-text"')
            else:
                ui.label("Entering this scene changes no variables.").classes("text-grey-7")
            icon_button("edit", "Edit what entering this scene sets", self.edit_entry_effects)

    # ---- changes -------------------------------------------------------------------------------

    async def edit_entry_effects(self) -> None:
        if self.current is None:
            return
        await ask_for_based_change(
            self.ctx,
            self._target(),
            ENTRY_EFFECTS,
            "entry_effects",
            self._opened(entry_effects=self.current.view.scene.entry_effects or ""),
            self._update,
        )

    async def rename(self) -> None:
        if self.current is None:
            return
        await ask_for_based_change(
            self.ctx,
            self._target(),
            RENAME_SCENE,
            "title",
            self._opened(title=self.current.view.scene.title),
            self._update,
        )

    async def set_media(self, kind: SlotKind, asset_id: str | None) -> None:
        if self.current is None:
            return
        name = f"{kind}_asset_id"
        scene = self.current.view.scene
        opened = self._opened(**{name: getattr(scene, name)})
        setting = (
            self.services.scenes.set_scene_background
            if kind == "background"
            else self.services.scenes.set_scene_music
        )

        async def write(changes: Mapping[str, Any], revision: int) -> object:
            return await setting(self.ctx.actor, self.scene_id, changes[name], expected_revision=revision)

        await save_draft(self.ctx, self._target(), opened, opened.changes({name: asset_id}), write)

    async def mark(self, *, is_start: bool | None = None, is_ending: bool | None = None) -> None:
        scene = self.current.view.scene if self.current else None
        if scene is None or (is_start, is_ending) in ((scene.is_start, None), (None, scene.is_ending)):
            return  # the switch was only brought up to date with the stored scene
        opened = self._opened(is_start=scene.is_start, is_ending=scene.is_ending)
        wanted = {
            name: flag
            for name, flag in (("is_start", is_start), ("is_ending", is_ending))
            if flag is not None
        }
        await save_draft(self.ctx, self._target(), opened, opened.changes(wanted), self._update)
        if self.parts is not None and self.current is not None:
            self.parts.show(self.current)  # a switch whose change was not written shows the scene again

    def _opened(self, **values: Any) -> Opened:
        """The scene's revision as this page shows it, with the values a form opened on."""
        revision = self.current.view.revisions.get(self.scene_id, 0) if self.current else 0
        return Opened(revision, values)

    def _target(self) -> Target:
        return Target(Edited(self.project_id, "scene", self.scene_id), self.host, self._value_words)

    async def _update(self, changes: Mapping[str, Any], revision: int) -> object:
        return await self.services.scenes.update_scene(
            self.ctx.actor, self.scene_id, **changes, expected_revision=revision
        )

    def _value_words(self, name: str, value: Any) -> str | None:
        if name.endswith("_asset_id") and self.current is not None:
            return next(
                (a.name for a in self.current.assets if a.id == value), None if value else "the chapter's"
            )
        return None

    async def delete(self) -> None:
        title = self.current.view.scene.title if self.current else "this scene"
        if await confirm_scene_deletion(self.host, title):
            done = await act(
                self.ctx, lambda: self.services.scenes.delete_scene(self.ctx.actor, self.scene_id)
            )
            if done.ok:
                ui.navigate.to(urls.project(self.project_id))


@dataclass(frozen=True)
class _Parts:
    crumbs: Section[Loaded]
    title: ui.label
    start: ui.switch
    ending: ui.switch
    media: Section[Loaded]
    entry: Section[Loaded]
    lines: LinesEditor
    choices: ChoicesEditor

    def show(self, loaded: Loaded) -> None:
        scene = loaded.view.scene
        self.crumbs.show(loaded)
        self.title.set_text(scene.title)
        self.start.set_value(scene.is_start)
        self.ending.set_value(scene.is_ending)
        self.media.show(loaded)
        self.entry.show(loaded)
        self.lines.show(loaded.view)
        self.choices.show(loaded.view, loaded.outline)


def _breadcrumb_key(loaded: Loaded) -> tuple[str, ...]:
    view = loaded.view
    return (view.chapter.id, view.chapter.title, view.scene.title)


def _media_key(loaded: Loaded) -> tuple[object, ...]:
    scene, chapter = loaded.view.scene, loaded.view.chapter
    assets = tuple((a.id, a.name, a.kind) for a in loaded.assets)
    own = (scene.background_asset_id, scene.music_asset_id)
    return (*own, chapter.background_asset_id, chapter.music_asset_id, assets)
