"""The chapter and scene tree of a project: add, rename, reorder, move, mark and delete.

Scenes move with their buttons, with Alt+↑ / Alt+↓ while a scene row has the focus (crossing into
the neighbouring chapter at either end), through "Move to" in the scene's menu, or by dragging a
row onto another row or chapter. Chapters move with their own buttons or Alt+↑ / Alt+↓ on their
heading. Every change goes through the story service; the tree itself is redrawn by the live
refresh of the page, which also brings back the keyboard focus to what moved.

A long story stays quick to open: above `OPEN_UP_TO` scenes the chapters start closed (the author
opens the ones they work on, and this tab remembers it), an open chapter shows its scenes
`SCENES_AT_ONCE` at a time, and a scene's menu is built when it is first opened. What the page
draws is bounded by what the author opened, not by the size of the story.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field, replace
from typing import Any

from nicegui import ui

from romergo.common import urls
from romergo.story.ordering import Direction, list_step, scene_step
from romergo.story.records import ChapterRecord, SceneRecord
from romergo.story.views import ChapterOutline, Outline
from ui.actions import act
from ui.components.buttons import icon_button, show_more_button
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

OPEN_UP_TO = 100
"""Stories with more scenes than this open with every chapter closed."""
SCENES_AT_ONCE = 100


@dataclass
class TreeState:
    """What survives a redraw: which row gets the focus back, and which scene is being dragged."""

    focus: str | None = None
    dragging: str | None = None
    outline: Outline | None = field(default=None, repr=False)
    outside: frozenset[str] = frozenset()
    """Chapters the open channel's room does not cover: marked, so the author sees its reach."""
    opened: set[str] = field(default_factory=set)
    closed: set[str] = field(default_factory=set)
    """The chapters the author opened or closed in this tab; the others follow the story's size."""
    shown: dict[str, int] = field(default_factory=dict)
    """How many scenes of a long open chapter are shown (it grows with "Show more")."""

    def is_open(self, chapter_id: str) -> bool:
        if chapter_id in self.opened or chapter_id in self.closed:
            return chapter_id in self.opened
        return self.outline is not None and self.outline.scene_count <= OPEN_UP_TO

    def toggle(self, chapter_id: str) -> None:
        opening = not self.is_open(chapter_id)
        (self.opened if opening else self.closed).add(chapter_id)
        (self.closed if opening else self.opened).discard(chapter_id)

    def reveal(self, chapter_id: str, position: int) -> None:
        """Open the chapter far enough to show the scene at `position` (where a scene moved to)."""
        self.opened.add(chapter_id)
        self.closed.discard(chapter_id)
        if position >= self.limit(chapter_id):
            self.shown[chapter_id] = (position // SCENES_AT_ONCE + 1) * SCENES_AT_ONCE

    def limit(self, chapter_id: str) -> int:
        return self.shown.get(chapter_id, SCENES_AT_ONCE)


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

        def fill() -> None:
            self._fill(scenes, toggle, entry, fill, first=first, last=last)

        def open_or_close() -> None:
            self.state.toggle(chapter.id)
            fill()

        with card:
            toggle = self._heading(entry, open_or_close, first=first, last=last)
            scenes = ui.column().classes("w-full gap-0 pl-2").props('role="list"')
            scenes.props["aria-label"] = f"Scenes of {chapter.title}"
        fill()

    def _heading(
        self, entry: ChapterOutline, open_or_close: Callable[[], None], *, first: bool, last: bool
    ) -> ui.button:
        """The chapter's heading row; returns its open/close button."""
        chapter = entry.chapter
        heading = ui.row().classes("w-full items-center gap-1 outline-none").props("tabindex=0")
        heading.props["data-chapter-row"] = chapter.id
        heading.on("keydown.alt.up.prevent", lambda: self.move_chapter(chapter, "up"))
        heading.on("keydown.alt.down.prevent", lambda: self.move_chapter(chapter, "down"))
        with heading:
            toggle = icon_button("chevron_right", "", open_or_close)
            ui.link(chapter.title, urls.chapter(chapter.project_id, chapter.id)).classes(
                "text-subtitle1 text-weight-medium"
            )
            ui.label(_scenes_count(len(entry.scenes))).classes("text-caption text-grey-7")
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
            icon_button("content_copy", f"Duplicate {chapter.title}", lambda: self.duplicate_chapter(chapter))
            icon_button("delete", f"Delete {chapter.title}", lambda: self.delete_chapter(entry))
        return toggle

    def _fill(
        self,
        scenes: ui.column,
        toggle: ui.button,
        entry: ChapterOutline,
        refill: Callable[[], None],
        *,
        first: bool,
        last: bool,
    ) -> None:
        """The chapter's scenes when it is open: at most as many as the author asked to see."""
        chapter = entry.chapter
        is_open = self.state.is_open(chapter.id)
        toggle.props["icon"] = "expand_more" if is_open else "chevron_right"
        name = f"{'Hide' if is_open else 'Show'} the scenes of {chapter.title}"
        toggle.props.update({"aria-label": name, "title": name, "aria-expanded": str(is_open).lower()})
        toggle.update()
        scenes.clear()
        if not is_open:
            return
        limit = self.state.limit(chapter.id)
        with scenes:
            if not entry.scenes:
                ui.label("No scenes yet.").classes("text-grey-6 text-caption pl-2")
            count = len(entry.scenes)
            for index, scene in enumerate(entry.scenes[:limit]):
                self.scene(scene, top=first and index == 0, bottom=last and index == count - 1)
            if count > limit:
                show_more_button(count - limit, SCENES_AT_ONCE, lambda: self._more(chapter.id, refill))

    def _more(self, chapter_id: str, refill: Callable[[], None]) -> None:
        self.state.shown[chapter_id] = self.state.limit(chapter_id) + SCENES_AT_ONCE
        refill()

    def scene(self, scene: SceneRecord, *, top: bool, bottom: bool) -> None:
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
                "arrow_upward", f"Move {scene.title} up", lambda: self.step_scene(scene, "up"), disabled=top
            )
            icon_button(
                "arrow_downward",
                f"Move {scene.title} down",
                lambda: self.step_scene(scene, "down"),
                disabled=bottom,
            )
            more: ui.button = icon_button(
                "more_vert", f"More actions for {scene.title}", lambda: self._scene_menu(more, scene)
            )

    def _scene_menu(self, anchor: ui.button, scene: SceneRecord) -> None:
        """Built on the first click: a menu in every row of a long story is thousands of elements."""
        if anchor.default_slot.children:
            return  # built before: Quasar opens it itself
        outline = self.state.outline
        assert outline is not None
        with anchor, ui.menu() as menu:
            _menu_item("Rename", lambda: self.rename_scene(scene))
            _menu_item("Duplicate", lambda: self.duplicate_scene(scene))
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
        menu.open()

    def _mover(self, scene: SceneRecord, target: ChapterOutline) -> Callable[[], Awaitable[None]]:
        """Moves the scene to the end of `target`."""
        return lambda: self.move_scene_id(scene.id, target.chapter.id, len(target.scenes))

    def _drop_target(self, element: ui.element, chapter_id: str, position: int | None) -> None:
        element.on("dragover.prevent", js_handler="() => {}")

        async def dropped() -> None:
            dragged, self.state.dragging = self.state.dragging, None
            if dragged is None or self.state.outline is None:
                return
            target = self._entry(chapter_id)
            count = len(target.scenes) if target else 0
            await self.move_scene_id(dragged, chapter_id, count if position is None else position)

        element.on("drop.prevent.stop", dropped)

    # ---- changes -------------------------------------------------------------------------------

    async def add_chapter(self) -> None:
        project_id = self.state.outline.project.id if self.state.outline else ""
        await self._ask(
            ADD_CHAPTER, lambda text: self.services.chapters.add_chapter(self.ctx.actor, project_id, text)
        )

    async def add_scene(self, chapter: ChapterRecord) -> None:
        question = replace(ADD_SCENE, title=f"Add a scene to “{chapter.title}”")
        entry = self._entry(chapter.id)
        self.state.reveal(chapter.id, len(entry.scenes) if entry else 0)
        await self._ask(
            question, lambda text: self.services.scenes.add_scene(self.ctx.actor, chapter.id, text)
        )

    def _entry(self, chapter_id: str) -> ChapterOutline | None:
        chapters = self.state.outline.chapters if self.state.outline else []
        return next((entry for entry in chapters if entry.chapter.id == chapter_id), None)

    async def rename_chapter(self, chapter: ChapterRecord) -> None:
        await self._ask(
            RENAME_CHAPTER,
            lambda text: self.services.chapters.update_chapter(self.ctx.actor, chapter.id, text),
            chapter.title,
        )

    async def rename_scene(self, scene: SceneRecord) -> None:
        await self._ask(
            RENAME_SCENE,
            lambda text: self.services.scenes.update_scene(self.ctx.actor, scene.id, title=text),
            scene.title,
        )

    async def move_chapter(self, chapter: ChapterRecord, direction: Direction) -> None:
        outline = self.state.outline
        ids = [entry.chapter.id for entry in outline.chapters] if outline else []
        position = list_step(ids, chapter.id, direction)
        if position is None:
            return
        self.state.focus = f'[data-chapter-row="{chapter.id}"]'
        await act(self.ctx, lambda: self.services.chapters.move_chapter(self.ctx.actor, chapter.id, position))

    async def step_scene(self, scene: SceneRecord, direction: Direction) -> None:
        step = scene_step(self.state.outline, scene.id, direction) if self.state.outline else None
        if step is not None:
            await self.move_scene_id(scene.id, step.chapter_id, step.position)

    async def move_scene_id(self, scene_id: str, chapter_id: str, position: int) -> None:
        self.state.focus = f'[data-scene-row="{scene_id}"]'
        self.state.reveal(chapter_id, position)
        await act(
            self.ctx, lambda: self.services.scenes.move_scene(self.ctx.actor, scene_id, chapter_id, position)
        )

    async def mark(
        self, scene: SceneRecord, *, is_start: bool | None = None, is_ending: bool | None = None
    ) -> None:
        await act(
            self.ctx,
            lambda: self.services.scenes.update_scene(
                self.ctx.actor, scene.id, is_start=is_start, is_ending=is_ending
            ),
        )

    async def duplicate_scene(self, scene: SceneRecord) -> None:
        await act(self.ctx, lambda: self.services.copies.duplicate_scene(self.ctx.actor, scene.id))

    async def duplicate_chapter(self, chapter: ChapterRecord) -> None:
        await act(self.ctx, lambda: self.services.copies.duplicate_chapter(self.ctx.actor, chapter.id))

    async def delete_scene(self, scene: SceneRecord) -> None:
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


def _scenes_count(count: int) -> str:
    return f"{count} scene{'' if count == 1 else 's'}"
