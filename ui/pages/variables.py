"""`/projects/{id}/variables`: what the story remembers. Each variable has a name the
conditions and effects use, a type (flag, number, text), the value a play-through starts with and
a description. Renaming one rewrites every condition and effect that uses it; deleting one is
refused, naming where, while anything still uses it."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from nicegui import ui

from romergo.common import urls
from romergo.story.records import VariableRecord
from romergo.story.state.variables import UNSET
from ui.actions import act
from ui.components.buttons import icon_button
from ui.components.dialogs import FormDialog, confirm
from ui.components.numbers import NUMBER_IN_RANGE
from ui.context import PageContext
from ui.draft_watch import Edited, change_notice
from ui.drafts import Opened, Target, save_draft
from ui.frame import Listing, ListingPage

TYPES = {"flag": "Flag (true or false)", "number": "Number", "text": "Text"}
HELP = (
    "Use the names in a choice's condition (has_key and courage >= 2) and in effects "
    "(set courage = courage + 1; set has_key = true), in the scene editor."
)


@dataclass
class NewVariable:
    name: str = ""
    type: str = "flag"
    description: str = ""


async def page(ctx: PageContext, project_id: str) -> None:
    ctx.place.enter(urls.variables(project_id), "variables", project_id=project_id)
    await _VariablesPage(ctx, project_id).open()


class _VariablesPage(ListingPage[VariableRecord]):
    nav = "variables"
    heading = "Variables"

    def __init__(self, ctx: PageContext, project_id: str) -> None:
        super().__init__(ctx, project_id)
        self.new = NewVariable()

    async def items(self) -> list[VariableRecord]:
        return await self.services.variables.list_variables(self.ctx.actor, self.project_id)

    def build(self, loaded: Listing[VariableRecord]) -> None:
        ui.label("Variables").classes("text-h5")
        ui.label(HELP).classes("text-grey-7")
        # Outside the section: what is being typed survives a change made elsewhere.
        with ui.row().classes("items-start gap-2").props('data-testid="new-variable"'):
            self.name_field = ui.input("New variable name").bind_value_to(self.new, "name")
            self.name_field.props("outlined dense").classes("w-56").on("keydown.enter", self.add)
            ui.select(TYPES, value=self.new.type, label="Type").bind_value_to(self.new, "type").props(
                "outlined dense"
            ).classes("w-56")
            self.description_field = ui.input("What it tracks (optional)").bind_value_to(
                self.new, "description"
            )
            self.description_field.props("outlined dense").classes("w-72")
            ui.button("Add variable", on_click=self.add).props("unelevated color=primary")
        super().build(loaded)

    def draw(self, loaded: Listing[VariableRecord]) -> None:
        if not loaded.items:
            ui.label("No variables yet: the story does not remember anything.").classes("text-grey-7")
        with ui.column().classes("w-full gap-2").props('role="list" aria-label="Variables"'):
            for variable in loaded.items:
                self._row(variable)

    def key(self, loaded: Listing[VariableRecord]) -> object:
        return tuple((v.id, v.name, v.type, v.initial, v.description) for v in loaded.items)

    def _row(self, variable: VariableRecord) -> None:
        with (
            ui.card().classes("w-full py-2").props(f'role="listitem" data-testid="variable-{variable.name}"'),
            ui.row().classes("w-full items-center gap-3 no-wrap"),
        ):
            ui.label(variable.name).classes("text-subtitle1 font-mono").props('data-testid="variable-name"')
            ui.badge(variable.type).props("outline color=grey-8")
            ui.label(f"starts as {_shown(variable.initial)}").classes("text-grey-8").props(
                'data-testid="variable-initial"'
            )
            ui.label(variable.description).classes("text-grey-7 ellipsis")
            ui.space()
            icon_button("edit", f"Edit {variable.name}", lambda: self.edit(variable))
            icon_button("delete", f"Delete {variable.name}", lambda: self.delete(variable))

    # ---- changes -------------------------------------------------------------------------------

    async def add(self) -> None:
        new = self.new
        done = await act(
            self.ctx,
            lambda: self.services.variables.add_variable(
                self.ctx.actor, self.project_id, new.name, new.type, None, new.description
            ),
        )
        if done.ok:
            self.name_field.value, self.description_field.value = "", ""

    async def edit(self, variable: VariableRecord) -> None:
        """Saved on the variable's revision when the form opened (ui/drafts.py). The list is read
        without revisions, so the form reads its variable's as it opens: the row it opens from is
        redrawn within moments of any change, so the two agree."""
        last = await self.services.history.last_change(
            self.ctx.actor, self.project_id, "variable", variable.id
        )
        values = {"name": variable.name, "initial": variable.initial, "description": variable.description}
        opened = Opened(last.revision if last else 0, values)
        edited = Edited(self.project_id, "variable", variable.id)
        form = FormDialog(self.host, f"Edit {variable.name}")
        with form.header:
            change_notice(self.ctx, edited, opened.revision)
        with form.card:
            name = ui.input("Name", value=variable.name).props("outlined autofocus").classes("w-full")
            form.enter_saves(name)
            start = _initial_field(variable)
            description = (
                ui.input("What it tracks", value=variable.description).props("outlined").classes("w-full")
            )
            ui.label("A new name is written into every condition and effect that uses it.").classes(
                "text-caption text-grey-7"
            )

        async def write(changes: Mapping[str, Any], revision: int) -> object:
            return await self.services.variables.update_variable(
                self.ctx.actor,
                variable.id,
                changes.get("name"),
                changes.get("initial", UNSET),
                changes.get("description"),
                expected_revision=revision,
            )

        async def save() -> bool:
            typed = {"name": name.value or "", "description": description.value or ""}
            initial = _initial_value(variable.type, start.value)
            if initial is not UNSET:
                typed["initial"] = initial
            target = Target(edited, self.host)
            return await save_draft(self.ctx, target, opened, opened.changes(typed), write) is None

        await form.run(save)

    async def delete(self, variable: VariableRecord) -> None:
        if await confirm(
            self.host,
            title=f"Delete {variable.name}?",
            message="The variable goes; the history keeps it. Nothing may still use it.",
        ):
            await act(self.ctx, lambda: self.services.variables.delete_variable(self.ctx.actor, variable.id))


def _initial_field(variable: VariableRecord) -> ui.switch | ui.number | ui.input:
    if variable.type == "flag":
        return ui.switch("Starts as true", value=bool(variable.initial))
    if variable.type == "number":
        value = variable.initial if isinstance(variable.initial, int | float) else 0
        return (
            ui.number("Starts as", value=value, validation=NUMBER_IN_RANGE)
            .props("outlined")
            .classes("w-full")
        )
    return ui.input("Starts as", value=str(variable.initial)).props("outlined").classes("w-full")


def _initial_value(kind: str, value: object) -> object:
    """The field's value as the service takes it (a cleared number field leaves it unchanged)."""
    if kind == "number":
        if value is None:
            return UNSET
        number = float(str(value))
        return int(number) if number.is_integer() else number
    return value if kind == "flag" else str(value or "")


def _shown(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return f'"{value}"'
    return str(value)
