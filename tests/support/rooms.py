"""A limited room on a real server: an author of its own (with the demo story), the owner's JSON
API, agents over MCP, and an outside look at the story that no room binds.

The demo story's chapters, in order: "The Storm" (Arrival at the Harbor, The Lighthouse Door, The
Tavern), "The Keeper" (The Lamp Room, The Cliff Path, The Logbook, The Beacon, The Smugglers' Cave,
The Forgotten Cellar) and "Dawn" (Confrontation on the Pier, A New Keeper, The Ship Sails Away).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

from tests.support.agents import Agent, OwnerApi, agent, data
from tests.support.oauth import add_user, personal_token
from tests.support.server import RunningServer


@dataclass(frozen=True)
class Story:
    """The author's demo project as an agent outside every room sees it."""

    project_id: str
    chapter_ids: list[str]
    """In story order."""
    scenes: dict[str, dict[str, Any]]
    """By title: `{id, chapter_id, is_start, ...}` as the outline lists them."""

    def scene_id(self, title: str) -> str:
        return str(self.scenes[title]["id"])

    def titles_in(self, *chapters: int) -> list[str]:
        """The scene titles of the chapters numbered 1, 2, 3 (story order)."""
        wanted = {self.chapter_ids[number - 1] for number in chapters}
        return [title for title, scene in self.scenes.items() if scene["chapter_id"] in wanted]


@dataclass(frozen=True)
class Author:
    """A user of the server with the demo story, tokens for her agents and her own remote control."""

    server: RunningServer
    name: str
    control: str

    def agent_token(self) -> str:
        """A new agent (its own client) with read, edit and media."""
        return personal_token(self.server, self.name, "--scopes", "read,edit,media")

    @asynccontextmanager
    async def owner(self) -> AsyncIterator[OwnerApi]:
        api = OwnerApi(self.server.base_url, self.control)
        try:
            yield api
        finally:
            await api.close()

    @asynccontextmanager
    async def agent(self, token: str | None = None) -> AsyncIterator[Agent]:
        async with agent(self.server.base_url, token or self.agent_token()) as connected:
            yield connected


def new_author(server: RunningServer, name: str) -> Author:
    add_user(server, name)
    return Author(server, name, personal_token(server, name, "--scopes", "read,control"))


async def story_of(outsider: Agent) -> Story:
    """The story read by an agent that joined no room (nothing limits what it sees)."""
    projects = data(await outsider.call("romergo_list_projects"))["projects"]
    project_id = projects[0]["id"]
    outline = data(await outsider.call("romergo_get_project_outline", project_id=project_id))
    chapters = outline["chapters"]
    scenes = {
        scene["title"]: {**scene, "chapter_id": chapter["id"]}
        for chapter in chapters
        for scene in chapter["scenes"]
    }
    return Story(project_id, [chapter["id"] for chapter in chapters], scenes)


async def joined(api: OwnerApi, member: Agent, story: Story, **settings: Any) -> tuple[str, int]:
    """A new room on the story, joined by `member`: (channel id, cursor)."""
    channel = await api("POST", "/channels", {"project_id": story.project_id, **settings})
    result = await member.call("romergo_join_builder_channel", code=channel["code"])
    return channel["channel_id"], result["cursor"]


async def claimed(api: OwnerApi, member: Agent, channel_id: str, cursor: int, text: str) -> tuple[str, int]:
    """The owner posts `text`; `member` receives it: (command id, next cursor)."""
    await api("POST", f"/channels/{channel_id}/commands", {"text": text})
    got = await member.wait(channel_id, cursor)
    assert got["status"] == "command", got
    return got["command"]["command_id"], got["cursor"]
