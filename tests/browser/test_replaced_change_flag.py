"""The agent panel flags a tool call whose write replaced a newer change: the author changed a line
after their agent read it, the agent wrote it over without saying what it read, and the call's
card says so in words."""

from __future__ import annotations

import pytest
from playwright.async_api import expect

from tests.browser.conftest import Author, OpenPage
from tests.browser.scribe import SCENE, command_from_the_panel, scribe_of
from tests.support.agents import data
from tests.support.panel import card

MINE = "You strike a match. The beam crawls out over the black water."
THEIRS = "You strike the last match. Through the cracked lens the beam still reaches the sea."
LATER = "You strike the last match. The beam reaches the sea."
FLAG = "replaced a newer change by you (line text)"


@pytest.fixture
def author(own_author: Author) -> Author:
    """The agent changes the story: each test gets a demo of its own."""
    return own_author


async def test_a_write_over_the_authors_newer_change_is_flagged_on_its_card(
    author: Author, open_page: OpenPage
):
    page = await open_page(author, author.scenes[SCENE])
    async with scribe_of(author) as scribe:
        command_id = await command_from_the_panel(page, scribe, "Brighten the first line")
        scene_id = author.scenes[SCENE].rsplit("/", 1)[1]
        scene = data(await scribe.call("romergo_get_scene", scene_id=scene_id, command_id=command_id))
        line_id = scene["lines"][0]["id"]

        # The author changes the line after the agent read it.
        await page.get_by_role("button", name="Edit line 1").click()
        editing = page.get_by_test_id("line-1")
        await editing.get_by_label("Line text").fill(MINE)
        await editing.get_by_role("button", name="Save").click()
        await expect(page.get_by_test_id("line-text").first).to_have_text(MINE)

        first = await scribe.call(
            "romergo_update_dialogue_line", line_id=line_id, text=THEIRS, command_id=command_id
        )
        again = await scribe.call(
            "romergo_update_dialogue_line", line_id=line_id, text=LATER, command_id=command_id
        )

        shown = card(page, 1)
        # The read and both writes, before counting the flags.
        await expect(shown.get_by_test_id("steps")).to_contain_text("Steps (3 tool calls)")
        flagged = shown.get_by_text(FLAG, exact=False)
        await expect(flagged).to_have_count(1)  # the second write replaced nothing newer
        await expect(flagged).to_contain_text("Finished romergo_update_dialogue_line (1 changed) · ")
        await expect(flagged).to_have_class("text-caption text-warning")
        assert data(first)["replaced_newer_change"]["fields"] == ["text"]
        assert "replaced_newer_change" not in data(again)
