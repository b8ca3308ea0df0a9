"""`/projects/{id}/characters`: who speaks in the story, with the colour their lines are shown in."""

from __future__ import annotations

from dataclasses import dataclass

from nicegui import ui

from romergo.bus import project_topic
from romergo.entities import Character
from romergo.errors import RomergoError
from romergo.story.views import Outline
from ui.actions import act
from ui.components.buttons import icon_button
from ui.components.not_found import not_found
from ui.components.project_nav import project_nav
from ui.context import PageContext
from ui.live import Section, watch


@dataclass
class NewCharacter:
    name: str = ""
    color: str = ""


async def page(ctx: PageContext, project_id: str) -> None:
    ctx.place.enter(f"/projects/{project_id}/characters", "characters", project_id=project_id)
    host = ui.column().classes("w-full gap-3")
    new = NewCharacter()

    async def load() -> Outline | None:
        try:
            return await ctx.services.reads.outline(ctx.actor, project_id)
        except RomergoError:
            return None

    def body(outline: Outline | None) -> None:
        if outline is None:
            not_found("project")
            return
        ui.page_title(f"Characters · {outline.project.title} · Romergo")
        project_nav(outline.project, "characters")
        ui.label("Characters").classes("text-h5")
        if not outline.characters:
            ui.label("No characters yet. Lines without a speaker are narration.").classes("text-grey-7")
        with ui.column().classes("w-full gap-2").props('role="list" aria-label="Characters"'):
            for character in outline.characters:
                _character_row(character)

    def _character_row(character: Character) -> None:
        with (
            ui.card().classes("w-full py-2").props(f'role="listitem" data-testid="character-{character.id}"'),
            ui.row().classes("w-full items-center gap-3"),
        ):
            ui.element("div").classes("w-6 h-6 rounded-full").style(f"background: {character.color}")
            name = ui.label(character.name).classes("text-subtitle1").props('data-testid="character-name"')
            name.style(f"color: {character.color}")
            ui.space()
            icon_button("edit", f"Edit {character.name}", lambda: edit(character))

    async def edit(character: Character) -> None:
        with host, ui.dialog() as dialog, ui.card().classes("w-[28rem] max-w-full gap-3"):
            ui.label(f"Edit {character.name}").classes("text-h6")
            name = ui.input("Name", value=character.name).props("outlined autofocus").classes("w-full")
            color = ui.color_input("Colour", value=character.color).props("outlined").classes("w-full")

            async def save() -> None:
                done = await act(
                    ctx,
                    lambda: ctx.services.characters.update_character(
                        ctx.actor, character.id, name.value or "", color.value or None
                    ),
                )
                if done.ok:
                    dialog.submit(True)

            name.on("keydown.enter", save)
            with ui.row().classes("w-full justify-end gap-2"):
                ui.button("Cancel", on_click=lambda: dialog.submit(False)).props("flat")
                ui.button("Save", on_click=save).props("unelevated color=primary")
        await dialog
        if not dialog.is_deleted:
            dialog.delete()

    async def add() -> None:
        done = await act(
            ctx,
            lambda: ctx.services.characters.add_character(ctx.actor, project_id, new.name, new.color or None),
        )
        if done.ok:
            new.name, new.color = "", ""

    section = Section(body, key=_key)

    async def reload() -> None:
        section.show(await load())

    first = await load()
    if first is None:
        not_found("project")
        return
    with host:
        section.show(first)
        with ui.row().classes("items-start gap-2 mt-2").props('data-testid="new-character"'):
            field = (
                ui.input("New character name").bind_value(new, "name").props("outlined dense").classes("w-64")
            )
            field.on("keydown.enter", add)
            ui.color_input("Colour (optional)").bind_value(new, "color").props("outlined dense").classes(
                "w-48"
            )
            ui.button("Add character", on_click=add).props("unelevated color=primary")
    watch(ctx, project_topic(project_id), reload)


def _key(outline: Outline | None) -> object:
    if outline is None:
        return None
    return (outline.project.title, tuple((c.id, c.name, c.color) for c in outline.characters))
