"""Agents at work on a scene, for the scene page's "who else is here".

A tool call under a command that names a scene (reading it, changing it) puts its agent on the
scene's presence (`romergo.story.on_scene`) with the command's number as the panel counts it; the
agent stays there while the command is open. The number is read once per scene and command; whether
the command is still open is read when a page asks (one read per agent shown, none per line).
"""

from __future__ import annotations

from typing import Protocol

from romergo.channels.reach import Target
from romergo.channels.store import ChannelStore
from romergo.channels.vocabulary import OPEN_STATES
from romergo.story.on_scene import AgentAtWork, ScenePresence


class AtWork:
    def __init__(self, store: ChannelStore, presence: ScenePresence) -> None:
        self.store = store
        self.presence = presence

    async def noted(self, client_id: str, name: str, targets: tuple[Target, ...], command: Numbered) -> None:
        """A call of `client_id` under `command` names `targets`: its agent is at work on their scenes."""
        scenes = [t.entity_id for t in targets if t.kind == "scene"]
        fresh = [s for s in scenes if not self.presence.at_work(s, client_id, command.id)]
        if not fresh:
            return
        work = AgentAtWork(
            client_id, name, command.channel_id, command.id, await self._number(command), self.store.now()
        )
        for scene_id in fresh:
            self.presence.agent_working(scene_id, work)

    async def agents_on(self, user_id: str, scene_id: str) -> list[AgentAtWork]:
        """The agents at work on the scene under an open command of this owner's; those whose
        command has ended leave the scene's presence."""
        working: list[AgentAtWork] = []
        for agent in self.presence.on(scene_id).agents:
            state = await self.store.ledger.owned_command_state(user_id, agent.command_id)
            if state is None:
                continue  # another owner's command on a shared project: not this author's agent
            if state in OPEN_STATES:
                working.append(agent)
            else:
                self.presence.command_done(agent.command_id)
        return working

    async def _number(self, command: Numbered) -> int:
        """The command's number in its channel (#1 for the first), as the panel shows it."""
        return await self.store.ledger.command_number(command.channel_id, command.seq)


class Numbered(Protocol):
    """What names a command and its place in its channel (its record)."""

    @property
    def id(self) -> str: ...

    @property
    def channel_id(self) -> str: ...

    @property
    def seq(self) -> int: ...
