"""`/projects/{id}/assets`: the project's media: upload, preview, name and tags, where each is used."""

from __future__ import annotations

from dataclasses import dataclass

from nicegui import ui

from romergo.common import urls
from romergo.story.media_types import AssetKind
from romergo.story.views import AssetView
from ui.actions import act
from ui.components.asset_upload import asset_upload
from ui.components.buttons import icon_button
from ui.components.dialogs import FormDialog, confirm
from ui.context import PageContext
from ui.frame import Listing, ListingPage

DETECT = "detect"
KINDS = {DETECT: "Detect from the file", "background": "Background", "music": "Music", "sound": "Sound"}


@dataclass
class UploadChoice:
    kind: str = DETECT
    tags: str = ""

    def asset_kind(self) -> AssetKind | None:
        return None if self.kind == DETECT else self.kind  # type: ignore[return-value]


async def page(ctx: PageContext, project_id: str) -> None:
    ctx.place.enter(urls.assets(project_id), "assets", project_id=project_id)
    await _AssetsPage(ctx, project_id).open()


class _AssetsPage(ListingPage[AssetView]):
    """The upload card is drawn once; the list below it is the section that follows changes."""

    nav = "assets"
    heading = "Assets"

    def __init__(self, ctx: PageContext, project_id: str) -> None:
        super().__init__(ctx, project_id)
        self.choice = UploadChoice()

    async def items(self) -> list[AssetView]:
        return await self.services.assets.assets_with_usage(self.ctx.actor, self.project_id)

    def build(self, loaded: Listing[AssetView]) -> None:
        ui.label("Assets").classes("text-h5")
        self._upload_card()
        super().build(loaded)

    def draw(self, loaded: Listing[AssetView]) -> None:
        if not loaded.items:
            ui.label("No assets yet: upload an image or a piece of music above.").classes("text-grey-7")
        with ui.column().classes("w-full gap-2").props('role="list" aria-label="Assets"'):
            for view in loaded.items:
                self._asset_card(view)

    def key(self, loaded: Listing[AssetView]) -> object:
        return tuple(
            (v.asset.id, v.asset.name, v.asset.kind, tuple(v.asset.tags), v.asset.size, tuple(v.used_by))
            for v in loaded.items
        )

    def _upload_card(self) -> None:
        choice = self.choice
        with ui.card().classes("w-full gap-2").props('data-testid="asset-upload"'):
            ui.label("Add media").classes("text-subtitle1 text-weight-medium")
            with ui.row().classes("w-full items-start gap-2"):
                # One-way: the fields fill the choice; nothing polls the choice back over typing.
                ui.select(KINDS, label="Kind", value=choice.kind).bind_value_to(choice, "kind").props(
                    "outlined dense"
                ).classes("w-56")
                ui.input("Tags for new files (comma-separated)", value=choice.tags).bind_value_to(
                    choice, "tags"
                ).props("outlined dense").classes("grow")
            asset_upload(
                self.ctx,
                self.project_id,
                label="Upload an image or audio file",
                kind=choice.asset_kind,
                tags=lambda: _tags(choice.tags),
            ).classes("w-full")

    def _asset_card(self, view: AssetView) -> None:
        asset = view.asset
        card = ui.card().classes("w-full py-2").props(f'role="listitem" data-testid="asset-{asset.id}"')
        card.props["aria-label"] = asset.name
        with card, ui.row().classes("w-full items-center gap-4 no-wrap"):
            if asset.kind == "background":
                image = ui.image(urls.media(asset.id)).classes("w-40 rounded shrink-0")
                image.props["alt"] = asset.name
            else:
                ui.audio(urls.media(asset.id)).classes("w-56 shrink-0").props('preload="none"')
            with ui.column().classes("gap-1 grow min-w-0"):
                with ui.row().classes("items-center gap-2"):
                    ui.label(asset.name).classes("text-subtitle1").props('data-testid="asset-name"')
                    ui.badge(asset.kind, color="grey-7")
                ui.label(f"{asset.mime} · {asset.size / 1024:,.0f} KB").classes("text-caption text-grey-7")
                with ui.row().classes("gap-1"):
                    for tag in asset.tags:
                        ui.chip(tag).props("dense outline")
                self._usage(view)
            icon_button("edit", f"Edit {asset.name}", lambda: self.edit(view))
            icon_button("delete", f"Delete {asset.name}", lambda: self.delete(view))

    def _usage(self, view: AssetView) -> None:
        with ui.row().classes("items-center gap-2 text-body2").props('data-testid="asset-usage"'):
            if not view.used_by:
                ui.label("Not used yet.").classes("text-grey-7")
                return
            ui.label("Used by")
            for use in view.used_by:
                page = urls.scene if use.entity_type == "scene" else urls.chapter
                ui.link(f"{use.title} ({use.slot})", page(self.project_id, use.entity_id))

    # ---- changes -------------------------------------------------------------------------------

    async def edit(self, view: AssetView) -> None:
        asset = view.asset
        form = FormDialog(self.host, f"Edit {asset.name}")
        with form.card:
            name = ui.input("Name", value=asset.name).props("outlined autofocus").classes("w-full")
            tags = ui.input("Tags (comma-separated)", value=", ".join(asset.tags)).props("outlined")
            form.enter_saves(name)
            form.enter_saves(tags.classes("w-full"))

        async def save() -> bool:
            words = _tags(tags.value)
            done = await act(
                self.ctx,
                lambda: self.services.assets.update_asset(self.ctx.actor, asset.id, name.value or "", words),
            )
            return done.ok

        await form.run(save)

    async def delete(self, view: AssetView) -> None:
        uses = len(view.used_by)
        where = (
            "It is not used anywhere." if not uses else f"It is used {uses} time(s); those places lose it."
        )
        if await confirm(self.host, title=f"Delete “{view.asset.name}”?", message=where):
            await act(self.ctx, lambda: self.services.assets.delete_asset(self.ctx.actor, view.asset.id))


def _tags(text: str | None) -> list[str]:
    return [word.strip() for word in (text or "").split(",") if word.strip()]
