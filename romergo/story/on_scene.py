"""Who is on a scene right now: the open tabs showing it, the lines they are editing, and agents
working on it under a command.

A tab is on a scene while its scene page is open (it follows the tab's place: another page, or
the tab closed, takes it off); a line counts as being edited while a draft of it is open in a tab.
An agent counts as working on the scene from its first tool call on it under a command until that
command is done.
The agent's tools read `being_edited` to wait or ask before changing a line the author is typing.

Kept in memory by the process, never written to the database: tabs and their drafts live in the
process that serves them (NiceGUI keeps each browser client in one), so with several instances
a tab and an agent's call served by different instances do not see each other. Every change wakes
this process's listeners of the scene (`on_scene_topic`), not the other processes'.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime

from romergo.common.bus import EventBus


@dataclass(frozen=True)
class Tab:
    """One open tab showing the scene."""

    tab_id: str
    user_id: str
    name: str
    """The author's display name."""
    editing: tuple[str, ...] = ()
    """The lines whose drafts are open in this tab, in the order they opened."""


@dataclass(frozen=True)
class AgentAtWork:
    """An agent whose tool calls under a command touched the scene."""

    client_id: str
    name: str
    channel_id: str
    command_id: str
    command_number: int
    since: datetime


@dataclass(frozen=True)
class BeingEdited:
    line_id: str
    by: str


@dataclass(frozen=True)
class OnScene:
    tabs: tuple[Tab, ...] = ()
    agents: tuple[AgentAtWork, ...] = ()

    def being_edited(self) -> list[BeingEdited]:
        """The lines with an open draft, each once per author, in the order the tabs opened them."""
        seen: dict[tuple[str, str], BeingEdited] = {}
        for tab in self.tabs:
            for line_id in tab.editing:
                seen.setdefault((line_id, tab.name), BeingEdited(line_id, tab.name))
        return list(seen.values())

    def others(self, tab_id: str) -> tuple[Tab, ...]:
        return tuple(tab for tab in self.tabs if tab.tab_id != tab_id)


class ScenePresence:
    def __init__(self, bus: EventBus) -> None:
        self.bus = bus
        self._where: dict[str, str] = {}
        """tab id → the scene it is on."""
        self._tabs: dict[str, dict[str, Tab]] = {}
        """scene id → tab id → the tab."""
        self._agents: dict[str, dict[str, AgentAtWork]] = {}

    def on(self, scene_id: str) -> OnScene:
        return OnScene(
            tuple(self._tabs.get(scene_id, {}).values()), tuple(self._agents.get(scene_id, {}).values())
        )

    def tab_at(self, tab_id: str, scene_id: str | None, user_id: str, name: str) -> None:
        """Where a tab is now: on `scene_id`, or on no scene (None: another page, or closed).
        Leaving a scene closes the tab's drafts there; coming back to the same scene keeps them."""
        was = self._where.get(tab_id)
        if was == scene_id:
            return
        if was is not None:
            del self._where[tab_id]
            tabs = self._tabs[was]
            del tabs[tab_id]
            if not tabs:
                del self._tabs[was]
            self._changed(was)
        if scene_id is not None:
            self._where[tab_id] = scene_id
            self._tabs.setdefault(scene_id, {})[tab_id] = Tab(tab_id, user_id, name)
            self._changed(scene_id)

    def tab_closed(self, tab_id: str) -> None:
        self.tab_at(tab_id, None, "", "")

    def editing(self, tab_id: str, line_id: str, *, is_open: bool) -> None:
        """A draft of a line of the tab's scene opened (`is_open`) or closed (saved, cancelled,
        the line gone)."""
        scene_id = self._where.get(tab_id)
        tab = self._tabs[scene_id][tab_id] if scene_id is not None else None
        if scene_id is None or tab is None or (line_id in tab.editing) == is_open:
            return
        editing = (*tab.editing, line_id) if is_open else tuple(x for x in tab.editing if x != line_id)
        self._tabs[scene_id][tab_id] = replace(tab, editing=editing)
        self._changed(scene_id)

    def agent_working(self, scene_id: str, work: AgentAtWork) -> None:
        """An agent's tool call under a command touched the scene."""
        agents = self._agents.setdefault(scene_id, {})
        known = agents.get(work.client_id)
        if known is not None and known.command_id == work.command_id:
            return
        agents[work.client_id] = work
        self._changed(scene_id)

    def at_work(self, scene_id: str, client_id: str, command_id: str) -> bool:
        """Whether the agent is already known to work on the scene under this command."""
        known = self._agents.get(scene_id, {}).get(client_id)
        return known is not None and known.command_id == command_id

    def command_done(self, command_id: str) -> None:
        """The command is finished: its agent no longer counts as working anywhere for it."""
        for scene_id, agents in list(self._agents.items()):
            gone = [client for client, work in agents.items() if work.command_id == command_id]
            for client in gone:
                del agents[client]
            if not agents:
                del self._agents[scene_id]
            if gone:
                self._changed(scene_id)

    def _changed(self, scene_id: str) -> None:
        self.bus.deliver(on_scene_topic(scene_id))


def on_scene_topic(scene_id: str) -> str:
    """Who is on the scene changed (this process only)."""
    return f"on_scene:{scene_id}"
