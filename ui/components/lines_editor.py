"""A scene's dialogue: lines spoken by a character or narrated; add, edit, reorder, delete.

The list is redrawn on every change (live refresh); the form for a new line and the drafts of lines
being edited live outside the redraw, so typing survives a change made in another tab. Keyboard:
Alt+↑ / Alt+↓ on a line moves it, Ctrl+Enter saves a draft, Escape cancels an edit.

Each line's text carries `data-line-id`, which the selection tracker (ui/selection.py) looks for.

A line's draft remembers the line's revision when it opened (ui/drafts.py): its save sends only the
fields the author changed, merged with what changed since, and a line someone else changes while
its draft is open says so in the draft at once, with who did it (ui/draft_watch.py, as every form).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from typing import Any

from nicegui import ui
from nicegui.events import ValueChangeEventArguments

from romergo.story import UNCHANGED
from romergo.story.ordering import Direction, list_step
from romergo.story.records import CharacterRecord
from romergo.story.views import LineView, SceneView
from ui.actions import act
from ui.components.buttons import icon_button
from ui.components.focus import focus_soon
from ui.context import PageContext
from ui.draft_watch import ChangeNotice, Edited, watch_draft
from ui.drafts import Opened, Target, save_draft
from ui.live import LiveTopic
from ui.place import Selection

NARRATION = ""


@dataclass
class Draft:
    """What is typed in a line's form. Filled from the form's change events only: a two-way binding
    polls the draft back into the field, which could put an older text back over a fresh one."""

    text: str
    speaker: str
    condition: str = ""
    opened: Opened = field(default_factory=lambda: Opened(0))
    """The line's revision and values when the draft opened: what its save is based on."""
    changed_by: str | None = None
    """Who changed the line since the draft opened (None: nobody yet)."""
    watcher: LiveTopic | None = None
    notice: ChangeNotice | None = None
    """Where the open form says who changed the line (rebuilt with the form)."""
    """Finds out who changed the line, while the draft is open (ui/draft_watch.py)."""

    @classmethod
    def of(cls, line_view: LineView, revision: int) -> Draft:
        line = line_view.line
        draft = cls(line.text, line.character_id or NARRATION, line.condition or "")
        draft.opened = Opened(revision, draft.values())
        return draft

    def values(self) -> dict[str, Any]:
        """The draft in the line's own terms (a narrated line's speaker is NARRATION)."""
        return {"text": self.text, "character_id": self.speaker, "condition": self.condition}

    def set_condition(self, event: ValueChangeEventArguments[str | None]) -> None:
        self.condition = event.value or ""

    def set_text(self, event: ValueChangeEventArguments[str | None]) -> None:
        self.text = event.value or ""

    def set_speaker(self, event: ValueChangeEventArguments[str]) -> None:
        self.speaker = event.value or NARRATION


class LinesEditor:
    def __init__(self, ctx: PageContext, host: ui.element, view: SceneView) -> None:
        self.ctx = ctx
        self.host = host
        self.services = ctx.services
        self.view = view
        self.drafts: dict[str, Draft] = {}
        self.new = Draft("", NARRATION)
        self.focus: str | None = None
        self.tab_id = ui.context.client.id
        """The drafts open here are this tab's (`romergo.story.on_scene`: agents see them)."""
        with ui.card().classes("w-full gap-2").props('data-testid="lines"'):
            with ui.row().classes("w-full items-center"):
                ui.label("Dialogue").classes("text-subtitle1 text-weight-medium")
                ui.space()
                ui.label().classes("text-caption text-grey-8").props(
                    'data-testid="selection"'
                ).bind_text_from(ctx.place, "selection", backward=_describe)
            self._list()
            self._new_line_form()

    def show(self, view: SceneView) -> None:
        """Redraw when the lines or the cast changed; a change elsewhere leaves focus and drafts be."""
        changed = _key(view, self.drafts) != _key(self.view, self.drafts)
        cast_changed = _cast(view) != _cast(self.view)
        self.view = view
        if cast_changed:
            self.speaker_select.set_options(_speakers(view.characters), value=self._known(self.new.speaker))
        if changed or self.focus:
            shown = {lv.line.id for lv in view.lines}
            for gone in [line_id for line_id in self.drafts if line_id not in shown]:
                self._close_draft(gone)
            self._list.refresh()

    # ---- drawing -------------------------------------------------------------------------------

    @ui.refreshable_method
    def _list(self) -> None:
        lines = self.view.lines
        self.ctx.place.show_lines({lv.line.id: lv.line.text for lv in lines})
        if not lines:
            ui.label("No dialogue yet: add the first line below.").classes("text-grey-6")
        with ui.column().classes("w-full gap-1").props('role="list" aria-label="Dialogue lines"'):
            for number, line_view in enumerate(lines, start=1):
                if line_view.line.id in self.drafts:
                    self._editing(line_view, number)
                else:
                    self._line(line_view, number, last=number == len(lines))
        if self.focus:
            focus_soon(self.focus)
            self.focus = None

    def _line(self, line_view: LineView, number: int, *, last: bool) -> None:
        line = line_view.line
        row = ui.row().classes("w-full items-start gap-2 px-2 py-1 rounded hover:bg-grey-2 outline-none")
        row.props(f'role="listitem" tabindex=0 data-testid="line-{number}"')
        row.props["aria-label"] = f"Line {number}"
        row.on("keydown.alt.up.prevent", lambda: self.move(line.id, "up"))
        row.on("keydown.alt.down.prevent", lambda: self.move(line.id, "down"))
        with row:
            ui.label(f"{number}.").classes("text-grey-6 w-6 pt-1")
            with ui.column().classes("gap-0 grow min-w-0"):
                speaker = ui.label(line_view.speaker or "Narration").classes("text-caption text-weight-bold")
                if line_view.speaker_color:
                    speaker.style(f"color: {line_view.speaker_color}")
                else:
                    speaker.classes("text-grey-7 text-italic")
                text = ui.label(line.text).classes("select-text whitespace-pre-wrap break-words")
                text.props["data-line-id"] = line.id
                text.props["data-testid"] = "line-text"
                if line.condition:
                    ui.label(f"shown only if {line.condition}").classes(
                        "text-caption font-mono text-indigo-8"
                    ).props('data-testid="line-condition"')
            icon_button("edit", f"Edit line {number}", lambda: self.edit(line_view))
            icon_button(
                "arrow_upward",
                f"Move line {number} up",
                lambda: self.move(line.id, "up"),
                disabled=number == 1,
            )
            icon_button(
                "arrow_downward",
                f"Move line {number} down",
                lambda: self.move(line.id, "down"),
                disabled=last,
            )
            icon_button("delete", f"Delete line {number}", lambda: self.delete(line.id))

    def _editing(self, line_view: LineView, number: int) -> None:
        line_id = line_view.line.id
        draft = self.drafts[line_id]
        draft.speaker = self._known(draft.speaker)
        with ui.column().classes("w-full gap-2 p-2 rounded bg-blue-1").props(f'data-testid="line-{number}"'):
            draft.notice = ChangeNotice(draft.changed_by)
            draft.notice.set_visibility(draft.changed_by is not None)
            ui.select(
                _speakers(self.view.characters),
                label="Speaker",
                value=draft.speaker,
                on_change=draft.set_speaker,
            ).props("outlined dense").classes("w-64")
            area = ui.textarea("Line text", value=draft.text, on_change=draft.set_text)
            area.props("outlined autogrow autofocus").classes("w-full")
            area.props["data-line-id"] = line_id
            area.on("keydown.ctrl.enter", lambda: self.save(line_id))
            area.on("keydown.esc", lambda: self.cancel(line_id))
            ui.input(
                "Shown only when (optional)", value=draft.condition, on_change=draft.set_condition
            ).props(
                'outlined dense hint="as in: has_key and courage >= 2" data-testid="line-condition-field"'
            ).classes("w-full font-mono")
            with ui.row().classes("gap-2"):
                ui.button("Save", on_click=lambda: self.save(line_id)).props("unelevated color=primary")
                ui.button("Cancel", on_click=lambda: self.cancel(line_id)).props("flat")

    def _new_line_form(self) -> None:
        with ui.row().classes("w-full items-start gap-2").props('data-testid="new-line"'):
            self.speaker_select = (
                ui.select(
                    _speakers(self.view.characters),
                    label="Speaker",
                    value=self.new.speaker,
                    on_change=self.new.set_speaker,
                )
                .props("outlined dense")
                .classes("w-48")
            )
            self.new_text = ui.textarea("New line", value=self.new.text, on_change=self.new.set_text)
            area = self.new_text.props("outlined dense autogrow")
            area.classes("grow")
            area.on("keydown.ctrl.enter", self.add)
            ui.button("Add line", on_click=self.add).props("unelevated color=primary")

    # ---- changes -------------------------------------------------------------------------------

    async def add(self) -> None:
        speaker = self.new.speaker or None
        done = await act(
            self.ctx,
            lambda: self.services.lines.add_line(self.ctx.actor, self.view.scene.id, self.new.text, speaker),
        )
        if done.ok:
            self.new_text.value = ""  # its change event empties the draft too

    def edit(self, line_view: LineView) -> None:
        """Open the line's draft; a second request for a line already open keeps what was typed."""
        if line_view.line.id in self.drafts:
            return
        line_id = line_view.line.id
        draft = Draft.of(line_view, self.view.revisions.get(line_id, 0))
        self.drafts[line_id] = draft
        with self.host:  # outside the list, which redraws
            draft.watcher = watch_draft(
                self.ctx,
                self._edited(line_id),
                draft.opened.revision,
                lambda who: self._note_change(line_id, draft, who),
            )
        self.services.on_scene.editing(self.tab_id, line_id, is_open=True)
        self._list.refresh()

    def cancel(self, line_id: str) -> None:
        self._close_draft(line_id)
        self._list.refresh()

    async def save(self, line_id: str) -> None:
        draft = self.drafts.get(line_id)
        if draft is None:
            return

        async def write(changes: Mapping[str, Any], revision: int) -> object:
            speaker = changes.get("character_id", UNCHANGED)
            return await self.services.lines.update_line(
                self.ctx.actor,
                line_id,
                changes.get("text"),
                speaker or None if isinstance(speaker, str) else speaker,
                condition=changes.get("condition"),
                expected_revision=revision,
            )

        target = Target(self._edited(line_id), self.host, self._shown)
        if (
            await save_draft(self.ctx, target, draft.opened, draft.opened.changes(draft.values()), write)
            is None
        ):
            self._close_draft(line_id)
            self._list.refresh()

    def _edited(self, line_id: str) -> Edited:
        return Edited(self.view.project.id, "dialogue_line", line_id)

    def _close_draft(self, line_id: str) -> None:
        draft = self.drafts.pop(line_id, None)
        if draft is not None and draft.watcher is not None and not draft.watcher.is_deleted:
            draft.watcher.delete()
        self.services.on_scene.editing(self.tab_id, line_id, is_open=False)

    def _note_change(self, line_id: str, draft: Draft, who: str) -> None:
        """Say in the open draft who changed its line, as soon as the change arrives."""
        if self.drafts.get(line_id) is draft and draft.changed_by != who:
            draft.changed_by = who
            # In place, not by a redraw: a Save pressed as the form is rebuilt would be lost.
            if draft.notice is not None and not draft.notice.is_deleted:
                draft.notice.say(who)
                draft.notice.set_visibility(True)

    def _shown(self, name: str, value: Any) -> str | None:
        if name != "character_id":
            return None
        if not value:
            return "Narration"
        return next(
            (c.name for c in self.view.characters if c.id == value), "a character no longer in the story"
        )

    async def move(self, line_id: str, direction: Direction) -> None:
        ids = [lv.line.id for lv in self.view.lines]
        position = list_step(ids, line_id, direction)
        if position is None:
            return
        self.focus = f'[data-testid="line-{position + 1}"]'
        await act(self.ctx, lambda: self.services.lines.move_line(self.ctx.actor, line_id, position))

    async def delete(self, line_id: str) -> None:
        await act(self.ctx, lambda: self.services.lines.delete_line(self.ctx.actor, line_id))

    def _known(self, speaker: str) -> str:
        return speaker if any(c.id == speaker for c in self.view.characters) else NARRATION


def _cast(view: SceneView) -> tuple[tuple[str, str, str], ...]:
    return tuple((c.id, c.name, c.color) for c in view.characters)


def _key(view: SceneView, drafted: Collection[str] = ()) -> tuple[object, ...]:
    """What the list shows of `view`: a line open in a draft shows the draft, not its stored values,
    so a change to those alone needs no redraw (which would lose a Save pressed meanwhile)."""
    lines = tuple(
        (lv.line.id,)
        if lv.line.id in drafted
        else (lv.line.id, lv.line.text, lv.line.character_id, lv.line.condition)
        for lv in view.lines
    )
    return (lines, _cast(view))


def _speakers(characters: list[CharacterRecord]) -> dict[str, str]:
    return {NARRATION: "Narration", **{c.id: c.name for c in characters}}


def _describe(selection: Selection | None) -> str:
    if selection is None:
        return ""
    text = selection.text if len(selection.text) <= 40 else selection.text[:39] + "…"
    return f"Selected “{text}” ({selection.start}–{selection.end})"
