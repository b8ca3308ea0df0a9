"""The author's own agent in browser tests: the SDK client with a personal token, what it reads of
the demo story, and the steps the tests of drafts and conflicts share."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from playwright.async_api import Locator, Page

from tests.browser.conftest import Author
from tests.support.agents import Agent, agent, data
from tests.support.oauth import personal_token
from tests.support.panel import invite, send

SCENE = "The Beacon"
CHANGED = "Changed since you opened it, by {who}. Save merges what you changed."
"""What an open form says when its entity changed meanwhile."""
BY_SCRIBE = "your agent “Scribe”"


def scribe_token(author: Author) -> str:
    """A personal token of the agent "Scribe": a module makes one and connects with it per test."""
    return personal_token(author.server, author.username, "--name", "Scribe")


@asynccontextmanager
async def scribe_of(author: Author, token: str | None = None) -> AsyncIterator[Agent]:
    """The author's own agent, over MCP with a personal token (a new one unless given)."""
    async with agent(author.server.base_url, token or scribe_token(author)) as me:
        yield me


async def scene_of(author: Author, me: Agent, title: str = SCENE) -> dict[str, Any]:
    """A demo scene (the lighthouse scene unless named) as the agent reads it."""
    scene_id = author.scenes[title].rsplit("/", 1)[1]
    scene: dict[str, Any] = data(await me.call("romergo_get_scene", scene_id=scene_id))
    return scene


def choices_to_set(scene: dict[str, Any]) -> list[dict[str, Any]]:
    """A scene's choices as the agent read them, in the shape `romergo_set_choices` takes (ids kept)."""
    keys = ("id", "label", "target_scene_id", "condition", "effects")
    return [{key: choice[key] for key in keys} for choice in scene["choices"]]


def conflict_view(page: Page) -> Locator:
    """The "Changed since you opened it" view, over whichever dialog asked for the save."""
    return page.get_by_role("dialog").filter(
        has=page.get_by_role("heading", name="Changed since you opened it")
    )


async def command_from_the_panel(page: Page, scribe: Agent, text: str) -> str:
    """The author invites the scribe from the panel of `page` and sends it `text`; the scribe,
    joined and waiting, receives it. Returns the command's id."""
    code = await invite(page)
    joined = await scribe.call("romergo_join_builder_channel", code=code)
    waiting = asyncio.create_task(
        scribe.call(
            "romergo_wait_for_builder_command",
            channel_id=joined["channel_id"],
            cursor=joined["cursor"],
            timeout_seconds=20,
        )
    )
    await send(page, text)
    return str((await asyncio.wait_for(waiting, 15))["command"]["command_id"])
