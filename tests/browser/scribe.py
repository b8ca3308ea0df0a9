"""The author's own agent in browser tests: the SDK client with a personal token, and what it reads
of the demo's lighthouse scene."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from tests.browser.conftest import Author
from tests.support.agents import Agent, agent, data
from tests.support.oauth import personal_token

SCENE = "The Beacon"


@asynccontextmanager
async def scribe_of(author: Author) -> AsyncIterator[Agent]:
    """The author's own agent, over MCP with a personal token."""
    token = personal_token(author.server, author.username, "--name", "Scribe")
    async with agent(author.server.base_url, token) as me:
        yield me


async def scene_of(author: Author, me: Agent) -> dict[str, Any]:
    """The lighthouse scene as the agent reads it."""
    scene_id = author.scenes[SCENE].rsplit("/", 1)[1]
    scene: dict[str, Any] = data(await me.call("romergo_get_scene", scene_id=scene_id))
    return scene
