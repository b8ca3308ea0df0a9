"""A scene's choices: label → target scene, each with an optional condition (offered only when it
holds) and effects (variables set when picked). Add, edit, reorder, delete.

The story service replaces a scene's choices as one list (`set_choices`), so every change here
sends the whole list with one entry added, changed, moved or left out, based on the scene's
revision the list (or the choice's dialog) was shown at (ui/drafts.py): when someone else changed
the choices meanwhile, the conflict view asks before anything is replaced. An open choice's dialog
says at once when its scene changes, and who changed it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from nicegui import ui

from romergo.common import urls
from romergo.story import ChoiceSpec
from romergo.story.choice_lists import in_choice
from romergo.story.ordering import Direction
from romergo.story.records import ChoiceWithTarget
from romergo.story.views import Outline, SceneView
from ui.components.buttons import icon_button
from ui.components.choice_conflicts import settle_choices
from ui.context import PageContext
from ui.draft_watch import Edited, change_notice
from ui.drafts import Opened, Target, save_draft


@dataclass
class NewChoice:
    label: str = ""
    target: str | None = None


class ChoicesEditor:
    def __init__(self, ctx: PageContext, host: ui.element, view: SceneView, outline: Outline) -> None:
        self.ctx = ctx
        self.host = host
        self.services = ctx.services
        self.view = view
        self.outline = outline
        self.new = NewChoice()
        with ui.card().classes("w-full gap-2").props('data-testid="choices"'):
            ui.label("Choices").classes("text-subtitle1 text-weight-medium")
            self._list()
            self._new_choice_form()

    def show(self, view: SceneView, outline: Outline) -> None:
        """Redraw when the choices or the scenes they may lead to changed."""
        targets = _targets(outline)
        targets_changed = targets != _targets(self.outline)
        changed = _key(view) != _key(self.view) or targets_changed
        self.view, self.outline = view, outline
        if targets_changed:
            self.target_select.set_options(
                targets, value=self.new.target if self.new.target in targets else None
            )
        if changed:
            self._list.refresh()

    @ui.refreshable_method
    def _list(self) -> None:
        choices = self.view.choices
        if not choices:
            ending = (
                "This scene is an ending."
                if self.view.scene.is_ending
                else "Without choices the story stops here."
            )
            ui.label(f"No choices. {ending}").classes("text-grey-6")
        with ui.column().classes("w-full gap-1").props('role="list" aria-label="Choices"'):
            for number, choice in enumerate(choices, start=1):
                self._choice(choice, number, last=number == len(choices))

    def _choice(self, choice: ChoiceWithTarget, number: int, *, last: bool) -> None:
        with (
            ui.row()
            .classes("w-full items-center gap-2 px-2")
            .props(f'role="listitem" data-testid="choice-{number}"')
        ):
            ui.label(choice.choice.label).classes("text-weight-medium")
            ui.icon("arrow_forward", color="grey-6")
            target = choice.choice.target_scene_id
            if target and choice.target_title is not None:
                ui.link(choice.target_title, urls.scene(self.view.project.id, target))
            else:
                ui.label("nowhere (the target scene is gone)").classes("text-negative")
            if choice.choice.condition:
                ui.label(f"if {choice.choice.condition}").classes(
                    "text-caption font-mono text-indigo-8"
                ).props('data-testid="choice-condition"')
            if choice.choice.effects:
                ui.label(choice.choice.effects).classes("text-caption font-mono text-teal-8").props(
                    'data-testid="choice-effects"'
                )
            ui.space()
            icon_button("edit", f"Edit choice {number}", lambda: self.edit(number - 1))
            icon_button(
                "arrow_upward",
                f"Move choice {number} up",
                lambda: self.move(number - 1, "up"),
                disabled=number == 1,
            )
            icon_button(
                "arrow_downward",
                f"Move choice {number} down",
                lambda: self.move(number - 1, "down"),
                disabled=last,
            )
            icon_button("delete", f"Delete choice {number}", lambda: self.delete(number - 1))

    def _new_choice_form(self) -> None:
        with ui.row().classes("w-full items-start gap-2").props('data-testid="new-choice"'):
            # One-way: the fields fill `self.new`; nothing polls it back over what is being typed.
            self.label_field = ui.input("Choice label", value=self.new.label).bind_value_to(self.new, "label")
            self.label_field.props("outlined dense").classes("grow").on("keydown.enter", self.add)
            self.target_select = (
                ui.select(_targets(self.outline), label="Leads to", with_input=True, value=self.new.target)
                .bind_value_to(self.new, "target")
                .props("outlined dense")
                .classes("w-72")
            )
            ui.button("Add choice", on_click=self.add).props("unelevated color=primary")

    # ---- changes -------------------------------------------------------------------------------

    def _specs(self) -> list[ChoiceSpec]:
        return [
            # Each with its id: the core merges a list by choice id, so an edit of one choice
            # and someone else's edit of another are both kept.
            ChoiceSpec(
                c.choice.label, c.choice.target_scene_id, c.choice.condition, c.choice.effects, c.choice.id
            )
            for c in self.view.choices
        ]

    def _opened(self) -> Opened:
        """The choices as shown now, with the scene's revision: what a change here is based on."""
        return Opened(self.view.revisions.get(self.view.scene.id, 0), {"choices": self._specs()})

    async def _set(self, specs: list[ChoiceSpec], opened: Opened | None = None) -> bool:
        based = opened or self._opened()
        scene_id = self.view.scene.id

        async def write(changes: Mapping[str, Any], revision: int) -> object:
            return await self.services.scenes.set_choices(
                self.ctx.actor, scene_id, changes["choices"], expected_revision=revision
            )

        target = Target(self._edited(), self.host, self._value_words, settle_choices)
        return await save_draft(self.ctx, target, based, based.changes({"choices": specs}), write) is None

    def _edited(self) -> Edited:
        """Choices are fields of their scene: the scene's revision covers them."""
        return Edited(self.view.project.id, "scene", self.view.scene.id)

    def _value_words(self, name: str, value: Any) -> str | None:
        titles = _targets(self.outline)
        if name == "choices" and isinstance(value, list):
            return "; ".join(_choice_words(choice, titles) for choice in value) or "no choices"
        in_list = in_choice(name)
        if in_list is None:
            return None
        if in_list[1] is None:  # a whole choice: one side removed it
            return _choice_words(value, titles) if value else "removed"
        if in_list[1] == "target_scene_id":
            return titles.get(value or "", "nowhere")
        return None

    async def add(self) -> None:
        if not self.new.target:
            ui.notify("Pick the scene this choice leads to.", type="warning")
            return
        if await self._set([*self._specs(), ChoiceSpec(self.new.label, self.new.target)]):
            self.label_field.value = ""  # and through the fields, `self.new`
            self.target_select.value = None

    async def move(self, index: int, direction: Direction) -> None:
        specs = self._specs()
        other = index - 1 if direction == "up" else index + 1
        if 0 <= other < len(specs):
            specs[index], specs[other] = specs[other], specs[index]
            await self._set(specs)

    async def delete(self, index: int) -> None:
        specs = self._specs()
        if 0 <= index < len(specs):
            del specs[index]
            await self._set(specs)

    async def edit(self, index: int) -> None:
        opened = self._opened()
        specs = list(opened.values["choices"])
        if not 0 <= index < len(specs):
            return
        with self.host, ui.dialog() as dialog, ui.card().classes("w-[28rem] max-w-full gap-3"):
            with ui.column().classes("w-full gap-0"):
                ui.label(f"Edit choice {index + 1}").classes("text-h6")
                change_notice(self.ctx, self._edited(), opened.revision)
            label = (
                ui.input("Choice label", value=specs[index].label)
                .props("outlined autofocus")
                .classes("w-full")
            )
            target = (
                ui.select(
                    _targets(self.outline),
                    label="Leads to",
                    value=specs[index].target_scene_id,
                    with_input=True,
                )
                .props("outlined")
                .classes("w-full")
            )
            condition = (
                ui.input("Offered only when (optional)", value=specs[index].condition or "")
                .props('outlined hint="as in: has_key and courage >= 2" data-testid="choice-condition-field"')
                .classes("w-full font-mono")
            )
            effects = (
                ui.input("When picked (optional)", value=specs[index].effects or "")
                .props('outlined hint="as in: set courage = courage + 1" data-testid="choice-effects-field"')
                .classes("w-full font-mono")
            )
            ui.link("The story's variables", urls.variables(self.view.project.id)).classes("text-caption")

            async def save() -> None:
                # Based on the list this dialog opened on: a change made since merges or asks.
                edited = list(specs)
                edited[index] = ChoiceSpec(
                    label.value or "",
                    target.value,
                    condition.value or None,
                    effects.value or None,
                    specs[index].id,
                )
                if await self._set(edited, opened):
                    dialog.submit(True)

            label.on("keydown.enter", save)
            with ui.row().classes("w-full justify-end gap-2"):
                ui.button("Cancel", on_click=lambda: dialog.submit(False)).props("flat")
                ui.button("Save", on_click=save).props("unelevated color=primary")
        await dialog
        if not dialog.is_deleted:
            dialog.delete()


def _key(view: SceneView) -> tuple[object, ...]:
    choices = tuple(
        (c.choice.label, c.choice.target_scene_id, c.target_title, c.choice.condition, c.choice.effects)
        for c in view.choices
    )
    return (choices, view.scene.is_ending)


def _targets(outline: Outline) -> dict[str, str]:
    """Every scene of the project, as "Chapter › Scene", in story order."""
    return {
        scene.id: f"{entry.chapter.title} › {scene.title}"
        for entry in outline.chapters
        for scene in entry.scenes
    }


def _choice_words(choice: Any, titles: dict[str, str]) -> str:
    """A choice as the conflict view lists it: its label and where it leads."""
    label: Any
    target: Any
    if isinstance(choice, ChoiceSpec):
        label, target = choice.label, choice.target_scene_id
    elif isinstance(choice, Mapping):  # one choice of a conflict: its fields by name
        label, target = choice.get("label"), choice.get("target_scene_id")
    else:  # as the scene's snapshot holds it: [label, target, condition, effects]
        label, target = choice[0], choice[1]
    return f"{label} → {titles.get(target or '', 'nowhere')}"
