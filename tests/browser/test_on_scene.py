"""Who is on a scene: the agent's read of a scene names the lines the author has open in the
editor, from the moment a draft opens until it is saved, cancelled or its page is left; the scene
page names the author's other tabs and an agent at work there, as they come and go."""

from __future__ import annotations

import pytest
from playwright.async_api import Page, expect

from tests.browser.conftest import Author, OpenPage
from tests.browser.scribe import SCENE, command_from_the_panel, scene_of, scribe_of
from tests.support.waiting import until


@pytest.fixture
def author(own_author: Author) -> Author:
    """Drafts are saved: each test gets a demo of its own."""
    return own_author


async def open_draft(page: Page, number: int) -> None:
    await page.get_by_role("button", name=f"Edit line {number}").click()
    await expect(page.get_by_test_id(f"line-{number}").get_by_label("Line text")).to_be_visible()


async def test_the_agent_reads_which_lines_the_author_has_open_until_they_close(
    author: Author, open_page: OpenPage
):
    async with scribe_of(author) as scribe:
        page = await open_page(author, author.scenes[SCENE])
        lines = (await scene_of(author, scribe))["lines"]
        assert (await scene_of(author, scribe))["being_edited"] == []

        await open_draft(page, 2)
        await open_draft(page, 1)
        being_edited = (await scene_of(author, scribe))["being_edited"]
        assert being_edited == [
            {"line_id": lines[1]["id"], "by": author.username},
            {"line_id": lines[0]["id"], "by": author.username},
        ]

        await page.get_by_test_id("line-1").get_by_role("button", name="Cancel").click()
        await expect(page.get_by_test_id("line-1").get_by_label("Line text")).to_have_count(0)
        assert (await scene_of(author, scribe))["being_edited"] == [
            {"line_id": lines[1]["id"], "by": author.username}
        ]

        editing = page.get_by_test_id("line-2")
        await editing.get_by_label("Line text").fill("The keeper's log lies open.")
        await editing.get_by_role("button", name="Save").click()
        await expect(editing.get_by_label("Line text")).to_have_count(0)
        scene = await scene_of(author, scribe)
        assert scene["being_edited"] == []
        assert scene["lines"][1]["text"] == "The keeper's log lies open."


async def test_a_draft_left_behind_on_another_page_is_no_longer_being_edited(
    author: Author, open_page: OpenPage
):
    async with scribe_of(author) as scribe:
        page = await open_page(author, author.scenes[SCENE])
        await open_draft(page, 1)
        assert len((await scene_of(author, scribe))["being_edited"]) == 1

        await page.get_by_role("link", name="Scene history").click()

        async def left() -> bool:
            return (await scene_of(author, scribe))["being_edited"] == []

        await until(left, what="the draft left behind to be no longer edited")


async def test_two_tabs_on_a_scene_see_each_other_and_a_closed_one_goes(author: Author, open_page: OpenPage):
    first = await open_page(author, author.scenes[SCENE])
    await expect(first.get_by_test_id("scene-title")).to_have_text(SCENE)
    await expect(first.get_by_test_id("on-scene")).to_have_text("")
    second = await open_page(author, author.scenes[SCENE])

    for page in (first, second):
        await expect(page.get_by_role("status", name="Also on this scene")).to_have_text(
            "Also here: you, in another tab"
        )
    await open_draft(second, 1)
    await expect(first.get_by_test_id("on-scene")).to_have_text(
        "Also here: you, in another tab, editing 1 line"
    )

    await second.close()
    # The server lets a tab reconnect for a while before it counts it as gone.
    await expect(first.get_by_test_id("on-scene")).to_have_text("", timeout=25_000)


async def test_an_agent_at_work_on_the_scene_shows_until_its_command_is_done(
    author: Author, open_page: OpenPage
):
    page = await open_page(author, author.scenes[SCENE])
    strip = page.get_by_test_id("on-scene")
    async with scribe_of(author) as scribe:
        command_id = await command_from_the_panel(page, scribe, "Look over the beacon scene")
        await expect(strip).to_have_text("")

        await scene_of(author, scribe)
        await expect(strip).to_have_text("Also here: your agent “Scribe”, working here on command #1")

        await scribe.call(
            "romergo_report_builder_event",
            command_id=command_id,
            kind="reply",
            text="Read it.",
            summary={"status": "success", "changed_entities": []},
        )
        await expect(strip).to_have_text("")
