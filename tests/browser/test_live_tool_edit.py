"""An agent's edit through an MCP tool shows up in the owner's open editor page, without a reload."""

from __future__ import annotations

import re

from playwright.async_api import Page, expect

from tests.support.oauth import mcp_client, personal_token
from tests.support.server import RunningServer
from tests.support.tools import Agent

NEW_TITLE = "Renamed by the agent"


async def test_a_scene_renamed_through_a_tool_appears_in_the_open_project_page(
    server: RunningServer, page: Page
):
    await page.goto(server.signin_url)  # signs `author` in and opens their (demo) project
    await expect(page).to_have_url(re.compile(r"/projects/(prj_[a-z0-9]+)$"))
    project_id = page.url.rsplit("/", 1)[1]
    token = personal_token(server, "author", "--scopes", "read,edit")
    async with mcp_client(server.base_url, token) as client:
        agent = Agent(client)
        outline = await agent.ok("romergo_get_project_outline", project_id=project_id)
        scene = outline["chapters"][0]["scenes"][0]
        await expect(page.get_by_text(scene["title"], exact=True)).to_be_visible()
        await page.evaluate("window.__romergoNoReload = true")

        await agent.ok("romergo_update_scene", scene_id=scene["id"], title=NEW_TITLE)

        await expect(page.get_by_text(NEW_TITLE, exact=True)).to_be_visible(timeout=5_000)
    await expect(page.get_by_text(scene["title"], exact=True)).to_have_count(0)
    assert await page.evaluate("window.__romergoNoReload === true")  # the same page, live-updated
