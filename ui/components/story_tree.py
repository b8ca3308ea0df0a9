"""The chapter and scene tree of a project: add, rename, reorder, move, mark and delete.

Scenes move with their buttons, with Alt+↑ / Alt+↓ while a scene row has the focus (crossing into
the neighbouring chapter at either end), through "Move to" in the scene's menu, or by dragging a
row onto another row or chapter. Chapters move with their own buttons or Alt+↑ / Alt+↓ on their
heading. Every change goes through the story service; the tree itself is redrawn by the live
refresh of the page, which also brings back the keyboard focus to what moved.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field, replace
from typing import Any

from nicegui import ui

from romergo import urls
from romergo.entities import Chapter, Scene
from romergo.story.ordering import Direction, list_step, scene_step
from romergo.story.views import ChapterOutline, Outline
from ui.actions import act
from ui.components.buttons import icon_button
from ui.components.dialogs import (
    ADD_CHAPTER,
    ADD_SCENE,
    RENAME_CHAPTER,
    RENAME_SCENE,
    Question,
    ask_for_change,
    confirm_chapter_deletion,
    confirm_scene_deletion,
)
from ui.components.focus import focus_soon
from ui.context import PageContext


@dataclass
class TreeState:
    """What survives a redraw: which row gets the focus back, and which scene is being dragged."""

    focus: str | None = None
    dragging: str | None = None
    outline: Outline | None = field(default=None, repr=False)
    outside: frozenset[str] = frozenset()
    """Chapters the open channel's room does not cover: marked, so the author sees its reach."""


def story_tree(ctx: PageContext, host: ui.element, outline: Outline, state: TreeState) -> None:
    state.outline = outline
    tree = _Tree(ctx, host, state)
    with ui.column().classes("w-full gap-3").props('data-testid="story-tree"'):
        if not outline.chapters:
            ui.label("No chapters yet. Add the first one below.").classes("text-grey-7")
        for index, entry in enumerate(outline.chapters):
            tree.chapter(entry, first=index == 0, last=index == len(outline.chapters) - 1)
        ui.button("Add chapter", icon="add", on_click=tree.add_chapter).props("outline color=primary")
    if state.focus:
        focus_soon(state.focus)
        state.focus = None


class _Tree:
    def __init__(self, ctx: PageContext, host: ui.element, state: TreeState) -> None:
        self.ctx = ctx
        self.host = host
        self.state = state
        self.services = ctx.services

    # ---- drawing -------------------------------------------------------------------------------

    def chapter(self, entry: ChapterOutline, *, first: bool, last: bool) -> None:
        chapter = entry.chapter
        card = ui.card().classes("w-full gap-1").props(f'data-testid="chapter-{chapter.id}"')
        card.props["aria-label"] = f"Chapter {chapter.title}"
        card.props["role"] = "group"
        self._drop_target(card, chapter.id, None)
        with card:
            heading = ui.row().classes("w-full items-center gap-1 outline-none").props("tabindex=0")
            heading.props["data-chapter-row"] = chapter.id
            heading.on("keydown.alt.up.prevent", lambda: self.move_chapter(chapter, "up"))
            heading.on("keydown.alt.down.prevent", lambda: self.move_chapter(chapter, "down"))
            with heading:
                ui.link(chapter.title, urls.chapter(chapter.project_id, chapter.id)).classes(
                    "text-subtitle1 text-weight-medium"
                )
                if chapter.id in self.state.outside:
                    ui.badge("outside the agent's room", color="grey-6").props(
                        'outline data-testid="outside-room"'
                    ).tooltip("The open channel's agent cannot see or change this chapter.")
                ui.space()
                icon_button("add", f"Add a scene to {chapter.title}", lambda: self.add_scene(chapter))
                icon_button("edit", f"Rename {chapter.title}", lambda: self.rename_chapter(chapter))
                icon_button(
                    "arrow_upward",
                    f"Move {chapter.title} up",
                    lambda: self.move_chapter(chapter, "up"),
                    disabled=first,
                )
                icon_button(
                    "arrow_downward",
                    f"Move {chapter.title} down",
                    lambda: self.move_chapter(chapter, "down"),
                    disabled=last,
                )
                icon_button("delete", f"Delete {chapter.title}", lambda: self.delete_chapter(entry))
            scenes = ui.column().classes("w-full gap-0 pl-2").props('role="list"')
            scenes.props["aria-label"] = f"Scenes of {chapter.title}"
            with scenes:
                if not entry.scenes:
                    ui.label("No scenes yet.").classes("text-grey-6 text-caption pl-2")
                for scene in entry.scenes:
                    self.scene(scene)

    def scene(self, scene: Scene) -> None:
        outline = self.state.outline
        assert outline is not None
        row = ui.row().classes(
            "w-full items-center gap-1 px-2 rounded hover:bg-grey-2 focus:bg-blue-1 outline-none"
        )
        row.props(f'role="listitem" tabindex=0 draggable=true data-scene-row="{scene.id}"')
        row.props["aria-label"] = scene.title
        row.on("keydown.alt.up.prevent", lambda: self.step_scene(scene, "up"))
        row.on("keydown.alt.down.prevent", lambda: self.step_scene(scene, "down"))
        row.on("dragstart", lambda: setattr(self.state, "dragging", scene.id))
        self._drop_target(row, scene.chapter_id, scene.position)
        with row:
            ui.icon("drag_indicator", color="grey-5").classes("cursor-grab")
            ui.link(scene.title, urls.scene(scene.project_id, scene.id))
            if scene.is_start:
                ui.badge("start", color="positive")
            if scene.is_ending:
                ui.badge("ending", color="accent")
            ui.space()
            icon_button(
                "arrow_upward",
                f"Move {scene.title} up",
                lambda: self.step_scene(scene, "up"),
                disabled=scene_step(outline, scene.id, "up") is None,
            )
            icon_button(
                "arrow_downward",
                f"Move {scene.title} down",
                lambda: self.step_scene(scene, "down"),
                disabled=scene_step(outline, scene.id, "down") is None,
            )
            self._scene_menu(scene, outline)

    def _scene_menu(self, scene: Scene, outline: Outline) -> None:
        with icon_button("more_vert", f"More actions for {scene.title}", lambda: None), ui.menu():
            _menu_item("Rename", lambda: self.rename_scene(scene))
            if not scene.is_start:
                _menu_item("Make it the start", lambda: self.mark(scene, is_start=True))
            _menu_item(
                "Unmark ending" if scene.is_ending else "Mark as ending",
                lambda: self.mark(scene, is_ending=not scene.is_ending),
            )
            for entry in outline.chapters:
                if entry.chapter.id != scene.chapter_id:
                    _menu_item(f"Move to {entry.chapter.title}", self._mover(scene, entry))
            _menu_item("Delete", lambda: self.delete_scene(scene)).classes("text-negative")

    def _mover(self, scene: Scene, target: ChapterOutline) -> Callable[[], Awaitable[None]]:
        """Moves the scene to the end of `target`."""
        return lambda: self.move_scene_id(scene.id, target.chapter.id, len(target.scenes))

    def _drop_target(self, element: ui.element, chapter_id: str, position: int | None) -> None:
        element.on("dragover.prevent", js_handler="() => {}")

        async def dropped() -> None:
            dragged, self.state.dragging = self.state.dragging, None
            if dragged is None or self.state.outline is None:
                return
            count = next(
                (len(e.scenes) for e in self.state.outline.chapters if e.chapter.id == chapter_id), 0
            )
            await self.move_scene_id(dragged, chapter_id, count if position is None else position)

        element.on("drop.prevent.stop", dropped)

    # ---- changes -------------------------------------------------------------------------------

    async def add_chapter(self) -> None:
        project_id = self.state.outline.project.id if self.state.outline else ""
        await self._ask(
            ADD_CHAPTER, lambda text: self.services.chapters.add_chapter(self.ctx.actor, project_id, text)
        )

    async def add_scene(self, chapter: Chapter) -> None:
        question = replace(ADD_SCENE, title=f"Add a scene to “{chapter.title}”")
        await self._ask(
            question, lambda text: self.services.scenes.add_scene(self.ctx.actor, chapter.id, text)
        )

    async def rename_chapter(self, chapter: Chapter) -> None:
        await self._ask(
            RENAME_CHAPTER,
            lambda text: self.services.chapters.update_chapter(self.ctx.actor, chapter.id, text),
            chapter.title,
        )

    async def rename_scene(self, scene: Scene) -> None:
        await self._ask(
            RENAME_SCENE,
            lambda text: self.services.scenes.update_scene(self.ctx.actor, scene.id, title=text),
            scene.title,
        )

    async def move_chapter(self, chapter: Chapter, direction: Direction) -> None:
        outline = self.state.outline
        ids = [entry.chapter.id for entry in outline.chapters] if outline else []
        position = list_step(ids, chapter.id, direction)
        if position is None:
            return
        self.state.focus = f'[data-chapter-row="{chapter.id}"]'
        await act(self.ctx, lambda: self.services.chapters.move_chapter(self.ctx.actor, chapter.id, position))

    async def step_scene(self, scene: Scene, direction: Direction) -> None:
        step = scene_step(self.state.outline, scene.id, direction) if self.state.outline else None
        if step is not None:
            await self.move_scene_id(scene.id, step.chapter_id, step.position)

    async def move_scene_id(self, scene_id: str, chapter_id: str, position: int) -> None:
        self.state.focus = f'[data-scene-row="{scene_id}"]'
        await act(
            self.ctx, lambda: self.services.scenes.move_scene(self.ctx.actor, scene_id, chapter_id, position)
        )

    async def mark(
        self, scene: Scene, *, is_start: bool | None = None, is_ending: bool | None = None
    ) -> None:
        await act(
            self.ctx,
            lambda: self.services.scenes.update_scene(
                self.ctx.actor, scene.id, is_start=is_start, is_ending=is_ending
            ),
        )

    async def delete_scene(self, scene: Scene) -> None:
        if await confirm_scene_deletion(self.host, scene.title):
            await act(self.ctx, lambda: self.services.scenes.delete_scene(self.ctx.actor, scene.id))

    async def delete_chapter(self, entry: ChapterOutline) -> None:
        if await confirm_chapter_deletion(self.host, entry):
            await act(
                self.ctx, lambda: self.services.chapters.delete_chapter(self.ctx.actor, entry.chapter.id)
            )

    async def _ask(
        self, question: Question, change: Callable[[str], Awaitable[object]], value: str = ""
    ) -> None:
        await ask_for_change(self.ctx, self.host, question, change, value=value)


def _menu_item(label: str, on_click: Callable[[], Any]) -> ui.menu_item:
    # Quasar marks menu entries as list items; assistive technology (and tests) expect menu items.
    return ui.menu_item(label, on_click).props('role="menuitem"')
