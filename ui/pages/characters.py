"""`/projects/{id}/characters`: who speaks in the story, with the colour their lines are shown in."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from nicegui import ui

from romergo.common import urls
from romergo.story.records import CharacterRecord
from romergo.story.views import Outline
from ui.actions import act
from ui.components.buttons import icon_button
from ui.components.dialogs import FormDialog, confirm
from ui.context import PageContext
from ui.draft_watch import Edited, change_notice
from ui.drafts import Opened, Target, save_draft
from ui.frame import SectionPage


@dataclass
class NewCharacter:
    name: str = ""
    color: str = ""


async def page(ctx: PageContext, project_id: str) -> None:
    ctx.place.enter(urls.characters(project_id), "characters", project_id=project_id)
    await _CharactersPage(ctx, project_id).open()


class _CharactersPage(SectionPage[Outline]):
    nav = "characters"
    heading = "Characters"

    def __init__(self, ctx: PageContext, project_id: str) -> None:
        super().__init__(ctx, project_id)
        self.new = NewCharacter()

    async def load(self) -> Outline:
        return await self.services.reads.outline(self.ctx.actor, self.project_id)

    def build(self, loaded: Outline) -> None:
        super().build(loaded)
        # Outside the section: a name being typed survives a change made elsewhere.
        with ui.row().classes("items-start gap-2 mt-2").props('data-testid="new-character"'):
            # One-way: the fields fill `self.new`; nothing polls it back over what is being typed.
            self.name_field = ui.input("New character name", value=self.new.name).bind_value_to(
                self.new, "name"
            )
            self.name_field.props("outlined dense").classes("w-64").on("keydown.enter", self.add)
            self.color_field = ui.color_input("Colour (optional)", value=self.new.color).bind_value_to(
                self.new, "color"
            )
            self.color_field.props("outlined dense").classes("w-48")
            ui.button("Add character", on_click=self.add).props("unelevated color=primary")

    def draw(self, outline: Outline) -> None:
        ui.label("Characters").classes("text-h5")
        if not outline.characters:
            ui.label("No characters yet. Lines without a speaker are narration.").classes("text-grey-7")
        with ui.column().classes("w-full gap-2").props('role="list" aria-label="Characters"'):
            for character in outline.characters:
                self._character_row(character)

    def key(self, outline: Outline) -> object:
        return tuple((c.id, c.name, c.color) for c in outline.characters)

    def _character_row(self, character: CharacterRecord) -> None:
        with (
            ui.card().classes("w-full py-2").props(f'role="listitem" data-testid="character-{character.id}"'),
            ui.row().classes("w-full items-center gap-3"),
        ):
            ui.element("div").classes("w-6 h-6 rounded-full").style(f"background: {character.color}")
            name = ui.label(character.name).classes("text-subtitle1").props('data-testid="character-name"')
            name.style(f"color: {character.color}")
            ui.space()
            icon_button("edit", f"Edit {character.name}", lambda: self.edit(character))
            icon_button("delete", f"Delete {character.name}", lambda: self.delete(character))

    # ---- changes -------------------------------------------------------------------------------

    async def edit(self, character: CharacterRecord) -> None:
        """Saved on the character's revision when the form opened (ui/drafts.py), which says at once
        when the character changes meanwhile."""
        revision = self.current.revisions.get(character.id, 0) if self.current else 0
        opened = Opened(revision, {"name": character.name, "color": character.color})
        edited = Edited(self.project_id, "character", character.id)
        form = FormDialog(self.host, f"Edit {character.name}")
        with form.header:
            change_notice(self.ctx, edited, opened.revision)
        with form.card:
            name = ui.input("Name", value=character.name).props("outlined autofocus").classes("w-full")
            form.enter_saves(name)
            color = ui.color_input("Colour", value=character.color).props("outlined").classes("w-full")

        async def write(changes: Mapping[str, Any], revision: int) -> object:
            return await self.services.characters.update_character(
                self.ctx.actor,
                character.id,
                changes.get("name"),
                changes.get("color"),
                expected_revision=revision,
            )

        async def save() -> bool:
            typed = {"name": name.value or "", "color": color.value or character.color}
            target = Target(edited, self.host)
            return await save_draft(self.ctx, target, opened, opened.changes(typed), write) is None

        await form.run(save)

    async def delete(self, character: CharacterRecord) -> None:
        """Refused, naming the scenes, while any line is spoken by the character."""
        if await confirm(
            self.host,
            title=f"Delete {character.name}?",
            message="Only a character who speaks no line can go; the history keeps them.",
        ):
            await act(
                self.ctx, lambda: self.services.characters.delete_character(self.ctx.actor, character.id)
            )

    async def add(self) -> None:
        new = self.new
        done = await act(
            self.ctx,
            lambda: self.services.characters.add_character(
                self.ctx.actor, self.project_id, new.name, new.color or None
            ),
        )
        if done.ok:
            self.name_field.value, self.color_field.value = "", ""  # and through them, `self.new`
