"""This tab's presence on scenes, and who else is on the scene it shows.

A tab is on a scene while its place is the scene page, and off it when it moves elsewhere or
closes (`romergo.story.on_scene`). The scene page names the others there: the author's other
tabs, other authors' tabs, and agents at work on the scene under an open command, as they come
and go.
"""

from __future__ import annotations

import asyncio
from typing import Any

from nicegui import ui

from romergo.channels.store import channel_topic
from romergo.story.on_scene import AgentAtWork, Tab, on_scene_topic
from ui.context import PageContext
from ui.live import live


def follow_tab(ctx: PageContext) -> None:
    """Keep the tab's presence where its place is, for the tab's lifetime (once per tab)."""
    presence, client, user = ctx.services.on_scene, ui.context.client, ctx.user

    def moved() -> None:
        scene_id = ctx.place.scene_id if ctx.place.surface == "scene" else None
        presence.tab_at(client.id, scene_id, user.id, user.username)

    ctx.place.listeners.append(moved)
    client.on_delete(lambda: presence.tab_closed(client.id))


class OthersOnScene:
    """The line under the scene's title naming who else is on it; empty when nobody is."""

    def __init__(self, ctx: PageContext, scene_id: str) -> None:
        self.ctx = ctx
        self.scene_id = scene_id
        self.tab_id = ui.context.client.id
        self.row = ui.row().classes("items-center gap-2 text-caption text-grey-8")
        self.row.props('role="status" aria-label="Also on this scene" data-testid="on-scene"')
        self.watchers = ui.element().style("display: none")
        with self.watchers:
            live(ctx.services.bus, on_scene_topic(scene_id), self.show)
        self._channels: set[str] = set()
        self._showing = asyncio.Lock()

    async def show(self, _: Any = None) -> None:
        """Read who is here and show it; shows take turns, so the last read is the one shown."""
        async with self._showing:
            await self._show()

    async def _show(self) -> None:
        on_scene = self.ctx.services.on_scene.on(self.scene_id)
        agents = await self.ctx.services.channels.at_work.agents_on(self.ctx.user.id, self.scene_id)
        for channel_id in {agent.channel_id for agent in agents} - self._channels:
            # An agent leaves when its command ends, which its channel announces.
            self._channels.add(channel_id)
            with self.watchers:
                live(self.ctx.services.bus, channel_topic(channel_id), self.show)
        others = [self._tab(tab) for tab in on_scene.others(self.tab_id)] + [_agent(a) for a in agents]
        self.row.clear()
        with self.row:
            if others:
                ui.label("Also here: " + "; ".join(others))

    def _tab(self, tab: Tab) -> str:
        who = "you" if tab.user_id == self.ctx.user.id else tab.name
        editing = len(tab.editing)
        lines = f", editing {editing} line{'s' if editing > 1 else ''}" if editing else ""
        return f"{who}, in another tab{lines}"


def _agent(agent: AgentAtWork) -> str:
    return f"your agent “{agent.name}”, working here on command #{agent.command_number}"
