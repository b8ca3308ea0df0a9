"""A background or music slot of a scene or chapter: preview, picker, and upload of a new file.

A scene without its own background or music uses its chapter's; the slot says which one plays,
and when a scene's own music overrides the chapter's.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Literal

from nicegui import ui

from romergo import urls
from romergo.entities import Asset
from ui.components.asset_upload import asset_upload
from ui.context import PageContext

SlotKind = Literal["background", "music"]
NONE = ""


@dataclass(frozen=True)
class Slot:
    kind: SlotKind
    owner: Literal["scene", "chapter"]
    own: Asset | None
    """The entity's own asset (None: none of its own)."""
    inherited: Asset | None = None
    """For a scene: its chapter's asset in the same slot."""

    @property
    def playing(self) -> Asset | None:
        return self.own or self.inherited


def media_slot(
    ctx: PageContext,
    project_id: str,
    slot: Slot,
    choices: list[Asset],
    choose: Callable[[str | None], Awaitable[Any]],
) -> None:
    """`choices` are the project's assets of the slot's kind; `choose(None)` clears the own asset."""
    title = "Background" if slot.kind == "background" else "Music"
    with ui.card().classes("w-full gap-2").props(f'data-testid="{slot.kind}-slot"'):
        ui.label(title).classes("text-subtitle1 text-weight-medium")
        playing = slot.playing
        if playing is None:
            ui.label("Nothing yet.").classes("text-grey-6")
        elif slot.kind == "background":
            image = (
                ui.image(urls.media(playing.id))
                .classes("w-full max-w-md rounded")
                .props('data-testid="background-preview"')
            )
            image.props["alt"] = f"Background: {playing.name}"
        else:
            ui.audio(urls.media(playing.id), loop=True).classes("w-full").props('data-testid="music-player"')
        ui.label(_status(slot)).classes("text-body2").props(f'data-testid="{slot.kind}-status"')

        options = {NONE: _none_label(slot), **{asset.id: asset.name for asset in choices}}
        current = slot.own.id if slot.own and slot.own.id in options else NONE

        async def picked(event: Any) -> None:
            value = event.value or None
            if value != (slot.own.id if slot.own else None):
                await choose(value)

        ui.select(options, label=title, value=current, on_change=picked).props("outlined dense").classes(
            "w-full"
        )

        async def uploaded(asset: Asset) -> None:
            await choose(asset.id)

        asset_upload(
            ctx,
            project_id,
            label="Upload an image" if slot.kind == "background" else "Upload audio",
            kind=slot.kind,
            uploaded=uploaded,
        ).classes("w-full").props(f'data-testid="{slot.kind}-upload"')


def _none_label(slot: Slot) -> str:
    what = "background" if slot.kind == "background" else "music"
    if slot.owner == "scene" and slot.inherited is not None:
        return f"The chapter's {what} ({slot.inherited.name})"
    return f"No {what}"


def _status(slot: Slot) -> str:
    what = "background" if slot.kind == "background" else "music"
    own, inherited = slot.own, slot.inherited
    if own is not None and slot.owner == "scene" and inherited is not None and inherited.id != own.id:
        return f"Scene {what} “{own.name}” overrides the chapter's {what} “{inherited.name}”."
    if own is not None:
        return f"{slot.owner.capitalize()} {what}: “{own.name}”."
    if inherited is not None:
        return f"Chapter {what}: “{inherited.name}” (this scene has none of its own)."
    if slot.owner == "scene":
        return f"No {what}: neither this scene nor its chapter has any."
    return f"No {what} for this chapter's scenes unless a scene has its own."
