"""A background or music slot of a scene or chapter: preview, picker, and upload of a new file.

A scene without its own background or music uses its chapter's; the slot says which one plays,
and when a scene's own music overrides the chapter's.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Literal, Protocol

from nicegui import ui

from romergo.common import urls
from romergo.story.records import AssetRecord
from ui.components.asset_upload import asset_upload
from ui.context import PageContext

SlotKind = Literal["background", "music"]
Choose = Callable[[str | None], Awaitable[Any]]
"""Sets the asset of one slot; None clears the entity's own asset."""
NONE = ""


class HasMedia(Protocol):
    """A chapter or a scene: what fills its two slots."""

    @property
    def background_asset_id(self) -> str | None: ...

    @property
    def music_asset_id(self) -> str | None: ...


@dataclass(frozen=True)
class Slot:
    kind: SlotKind
    owner: Literal["scene", "chapter"]
    own: AssetRecord | None
    """The entity's own asset (None: none of its own)."""
    inherited: AssetRecord | None = None
    """For a scene: its chapter's asset in the same slot."""

    @property
    def playing(self) -> AssetRecord | None:
        return self.own or self.inherited


def media_slots(
    ctx: PageContext,
    project_id: str,
    assets: list[AssetRecord],
    own: HasMedia,
    choose: Callable[[SlotKind, str | None], Awaitable[Any]],
    *,
    chapter: HasMedia | None = None,
) -> None:
    """The background and music slots side by side: a chapter's, or a scene's over its `chapter`'s."""
    owner: Literal["scene", "chapter"] = "chapter" if chapter is None else "scene"
    kinds: tuple[SlotKind, ...] = ("background", "music")
    with ui.grid().classes("w-full gap-3 grid-cols-1 md:grid-cols-2"):
        for kind in kinds:
            inherited = _find(assets, _asset_id(chapter, kind)) if chapter is not None else None
            slot = Slot(kind, owner, _find(assets, _asset_id(own, kind)), inherited)
            media_slot(ctx, project_id, slot, [a for a in assets if a.kind == kind], _chooser(choose, kind))


def media_slot(
    ctx: PageContext, project_id: str, slot: Slot, choices: list[AssetRecord], choose: Choose
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

        async def uploaded(asset: AssetRecord) -> None:
            await choose(asset.id)

        asset_upload(
            ctx,
            project_id,
            label="Upload an image" if slot.kind == "background" else "Upload audio",
            kind=slot.kind,
            uploaded=uploaded,
        ).classes("w-full").props(f'data-testid="{slot.kind}-upload"')


def _chooser(choose: Callable[[SlotKind, str | None], Awaitable[Any]], kind: SlotKind) -> Choose:
    return lambda asset_id: choose(kind, asset_id)


def _asset_id(entity: HasMedia, kind: SlotKind) -> str | None:
    return entity.background_asset_id if kind == "background" else entity.music_asset_id


def _find(assets: list[AssetRecord], asset_id: str | None) -> AssetRecord | None:
    return next((asset for asset in assets if asset.id == asset_id), None)


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
