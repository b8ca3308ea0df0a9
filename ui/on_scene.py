"""This tab's presence on scenes: it is on a scene while its place is the scene page, and off it
when it moves elsewhere or closes (`romergo.story.on_scene`)."""

from __future__ import annotations

from nicegui import ui

from ui.context import PageContext


def follow_tab(ctx: PageContext) -> None:
    """Keep the tab's presence where its place is, for the tab's lifetime (once per tab)."""
    presence, client, user = ctx.services.on_scene, ui.context.client, ctx.user

    def moved() -> None:
        scene_id = ctx.place.scene_id if ctx.place.surface == "scene" else None
        presence.tab_at(client.id, scene_id, user.id, user.username)

    ctx.place.listeners.append(moved)
    client.on_delete(lambda: presence.tab_closed(client.id))
