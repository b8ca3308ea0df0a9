"""`/projects/{id}/assets`: the project's media: upload, preview, name and tags, where each is used."""

from __future__ import annotations

from dataclasses import dataclass

from nicegui import ui

from romergo.bus import project_topic
from romergo.entities import Project
from romergo.errors import RomergoError
from romergo.story.media_types import AssetKind
from romergo.story.views import AssetView
from ui.actions import act
from ui.components.asset_upload import asset_upload
from ui.components.buttons import icon_button
from ui.components.dialogs import confirm
from ui.components.not_found import not_found
from ui.components.project_nav import project_nav
from ui.context import PageContext
from ui.live import Section, watch

DETECT = "detect"
KINDS = {DETECT: "Detect from the file", "background": "Background", "music": "Music", "sound": "Sound"}


@dataclass
class UploadChoice:
    kind: str = DETECT
    tags: str = ""


async def page(ctx: PageContext, project_id: str) -> None:
    ctx.place.enter(f"/projects/{project_id}/assets", "assets", project_id=project_id)
    host = ui.column().classes("w-full gap-3")
    choice = UploadChoice()

    async def load() -> tuple[Project, list[AssetView]] | None:
        try:
            return (
                await ctx.services.projects.get_project(ctx.actor, project_id),
                await ctx.services.assets.assets_with_usage(ctx.actor, project_id),
            )
        except RomergoError:
            return None

    def listing(loaded: tuple[Project, list[AssetView]] | None) -> None:
        if loaded is None:
            not_found("project")
            return
        project, assets = loaded
        ui.page_title(f"Assets · {project.title} · Romergo")
        if not assets:
            ui.label("No assets yet: upload an image or a piece of music above.").classes("text-grey-7")
        with ui.column().classes("w-full gap-2").props('role="list" aria-label="Assets"'):
            for view in assets:
                _asset_card(view)

    def _asset_card(view: AssetView) -> None:
        asset = view.asset
        card = ui.card().classes("w-full py-2").props(f'role="listitem" data-testid="asset-{asset.id}"')
        card.props["aria-label"] = asset.name
        with card, ui.row().classes("w-full items-center gap-4 no-wrap"):
            if asset.kind == "background":
                image = ui.image(f"/media/{asset.id}").classes("w-40 rounded shrink-0")
                image.props["alt"] = asset.name
            else:
                ui.audio(f"/media/{asset.id}").classes("w-56 shrink-0").props('preload="none"')
            with ui.column().classes("gap-1 grow min-w-0"):
                with ui.row().classes("items-center gap-2"):
                    ui.label(asset.name).classes("text-subtitle1").props('data-testid="asset-name"')
                    ui.badge(asset.kind, color="grey-7")
                ui.label(f"{asset.mime} · {asset.size / 1024:,.0f} KB").classes("text-caption text-grey-7")
                with ui.row().classes("gap-1"):
                    for tag in asset.tags:
                        ui.chip(tag).props("dense outline")
                with ui.row().classes("items-center gap-2 text-body2").props('data-testid="asset-usage"'):
                    if not view.used_by:
                        ui.label("Not used yet.").classes("text-grey-7")
                    else:
                        ui.label("Used by")
                        for use in view.used_by:
                            kind = "scenes" if use.entity_type == "scene" else "chapters"
                            ui.link(
                                f"{use.title} ({use.slot})", f"/projects/{project_id}/{kind}/{use.entity_id}"
                            )
            icon_button("edit", f"Edit {asset.name}", lambda: edit(view))
            icon_button("delete", f"Delete {asset.name}", lambda: delete(view))

    async def edit(view: AssetView) -> None:
        asset = view.asset
        with host, ui.dialog() as dialog, ui.card().classes("w-[28rem] max-w-full gap-3"):
            ui.label(f"Edit {asset.name}").classes("text-h6")
            name = ui.input("Name", value=asset.name).props("outlined autofocus").classes("w-full")
            tags = (
                ui.input("Tags (comma-separated)", value=", ".join(asset.tags))
                .props("outlined")
                .classes("w-full")
            )

            async def save() -> None:
                words = _tags(tags.value)
                done = await act(
                    ctx,
                    lambda: ctx.services.assets.update_asset(ctx.actor, asset.id, name.value or "", words),
                )
                if done.ok:
                    dialog.submit(True)

            name.on("keydown.enter", save)
            tags.on("keydown.enter", save)
            with ui.row().classes("w-full justify-end gap-2"):
                ui.button("Cancel", on_click=lambda: dialog.submit(False)).props("flat")
                ui.button("Save", on_click=save).props("unelevated color=primary")
        await dialog
        if not dialog.is_deleted:
            dialog.delete()

    async def delete(view: AssetView) -> None:
        uses = len(view.used_by)
        where = (
            "It is not used anywhere." if not uses else f"It is used {uses} time(s); those places lose it."
        )
        if await confirm(host, title=f"Delete “{view.asset.name}”?", message=where):
            await act(ctx, lambda: ctx.services.assets.delete_asset(ctx.actor, view.asset.id))

    def upload_kind() -> AssetKind | None:
        return None if choice.kind == DETECT else choice.kind  # type: ignore[return-value]

    nav = Section(_nav, key=lambda project: project.title if project else None)
    assets = Section(listing, key=_key)

    async def reload() -> None:
        loaded = await load()
        nav.show(loaded[0] if loaded else None)
        assets.show(loaded)

    first = await load()
    if first is None:
        not_found("project")
        return

    with host:
        nav.show(first[0])
        ui.label("Assets").classes("text-h5")
        with ui.card().classes("w-full gap-2").props('data-testid="asset-upload"'):
            ui.label("Add media").classes("text-subtitle1 text-weight-medium")
            with ui.row().classes("w-full items-start gap-2"):
                ui.select(KINDS, label="Kind").bind_value(choice, "kind").props("outlined dense").classes(
                    "w-56"
                )
                ui.input("Tags for new files (comma-separated)").bind_value(choice, "tags").props(
                    "outlined dense"
                ).classes("grow")
            asset_upload(
                ctx,
                project_id,
                label="Upload an image or audio file",
                kind=upload_kind,
                tags=lambda: _tags(choice.tags),
            ).classes("w-full")
        assets.show(first)
    watch(ctx, project_topic(project_id), reload)


def _tags(text: str | None) -> list[str]:
    return [word.strip() for word in (text or "").split(",") if word.strip()]


def _nav(project: Project | None) -> None:
    if project is not None:
        project_nav(project, "assets")


def _key(loaded: tuple[Project, list[AssetView]] | None) -> object:
    if loaded is None:
        return None
    project, views = loaded
    return (
        project.title,
        tuple(
            (v.asset.id, v.asset.name, v.asset.kind, tuple(v.asset.tags), v.asset.size, tuple(v.used_by))
            for v in views
        ),
    )
