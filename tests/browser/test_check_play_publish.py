"""The story check, the play-through, and publishing a read-only copy."""

from __future__ import annotations

import re

import pytest
from playwright.async_api import Page, expect

from tests.browser.conftest import Author, OpenPage

CELLAR_PROBLEM = 'Scene "The Forgotten Cellar" cannot be reached from the start: no choice leads to it.'


async def read_on(page: Page, until: str) -> None:
    """Click "Next" line by line until the button `until` (a choice, "Play again") shows.

    Each step waits for a settled player (the target, or a Next button) and after the click for the
    target or a box showing another line: a stage being redrawn has neither for a moment.
    """
    player = page.get_by_test_id("player")
    target = player.get_by_role("button", name=until)
    next_line = player.get_by_role("button", name="Next line")
    for _ in range(12):
        await expect(target.or_(next_line).first).to_be_visible()
        if await target.is_visible():
            return
        line = await page.get_by_test_id("player-box").get_attribute("data-line")
        await next_line.click()
        moved_on = player.locator(f'[data-testid="player-box"]:not([data-line="{line}"])')
        await expect(target.or_(moved_on).first).to_be_visible()
    raise AssertionError(f"no button {until!r}")


@pytest.fixture
def author(own_author: Author) -> Author:
    """Each test changes the story: it gets a demo of its own."""
    return own_author


async def test_the_check_lists_the_unreachable_cellar_until_a_choice_leads_there(
    author: Author, open_page: OpenPage
):
    check = await open_page(author, f"{author.demo_path}/check")
    problem = check.get_by_test_id("problem-unreachable_scene")
    await expect(problem).to_have_text(re.compile(re.escape(CELLAR_PROBLEM)))
    await problem.get_by_role("link", name="Open the scene").click()
    await expect(check.get_by_test_id("scene-title")).to_have_text("The Forgotten Cellar")
    await check.go_back()
    await expect(problem).to_be_visible()

    # The fix, made in another tab: the check view follows without a reload.
    editor = await open_page(author, author.scenes["The Lamp Room"])
    form = editor.get_by_test_id("new-choice")
    await form.get_by_label("Choice label").fill("Go down to the cellar")
    await form.get_by_label("Leads to").fill("Forgotten")
    await editor.get_by_role("option", name="The Keeper › The Forgotten Cellar").click()
    await form.get_by_role("button", name="Add choice").click()
    await expect(editor.get_by_test_id("choice-3")).to_contain_text("Go down to the cellar")

    await expect(problem).to_have_count(0, timeout=5_000)
    # What is left is the demo's deliberate state problem: "Signal the ship" never shows.
    await expect(check.get_by_test_id("problem-never_true_condition")).to_contain_text("Signal the ship")


async def test_play_through_follows_choices_to_an_ending(author: Author, open_page: OpenPage):
    page = await open_page(author, f"/play/{author.demo_id}")
    await expect(page.get_by_test_id("player-scene")).to_have_text("The Storm › Arrival at the Harbor")
    await expect(page.get_by_test_id("player-background")).to_be_visible()
    await expect(page.get_by_test_id("player-music")).to_have_attribute("src", re.compile(r"^/media/ast_"))
    await expect(page.get_by_test_id("player-line")).to_have_text(
        "The ferry bumps against the pier. Gulls scream over a grey, restless sea."
    )
    background = await page.get_by_test_id("player-background").get_attribute("id")
    await page.get_by_role("button", name="Next line").click()
    await expect(page.get_by_test_id("player-speaker")).to_have_text("Mara")
    # Within a scene only the text changes: the background is not reloaded line by line.
    assert background and await page.get_by_test_id("player-background").get_attribute("id") == background
    await read_on(page, "Ask around the tavern")
    # The page's URL already names the first scene (the player started there): wait for it to
    # name another, not just for its shape, before reloading.
    arrival = page.url
    await page.get_by_role("button", name="Ask around the tavern").click()

    await expect(page.get_by_test_id("player-scene")).to_have_text("The Storm › The Tavern")
    await expect(page).not_to_have_url(arrival)
    await expect(page).to_have_url(re.compile(r"/play/prj_[a-z0-9]+\?scene=scn_[a-z0-9]+$"))
    # A reload continues in the same scene.
    await page.reload()
    await expect(page.get_by_test_id("player-scene")).to_have_text("The Storm › The Tavern")
    await page.keyboard.press("ArrowRight")  # keys work too: → reads on
    await expect(page.get_by_test_id("player-speaker")).to_have_text("The Stranger")
    await read_on(page, "Follow the stranger")
    await page.get_by_role("button", name="Follow the stranger").click()
    await read_on(page, "Hide in the cave")
    await page.get_by_role("button", name="Hide in the cave").click()
    await read_on(page, "Stand your ground")
    await page.get_by_role("button", name="Stand your ground").click()

    await expect(page.get_by_test_id("player-scene")).to_have_text("Dawn › A New Keeper")
    for _ in range(2):
        await page.get_by_role("button", name="Next line").click()
    await expect(page.get_by_test_id("player-end")).to_have_text("The End")

    # Or start from any scene.
    await page.get_by_label("Start from").fill("Pier")
    await page.get_by_role("option", name="Dawn › Confrontation on the Pier").click()
    await page.get_by_role("button", name="Play this scene").click()
    await expect(page.get_by_test_id("player-scene")).to_have_text("Dawn › Confrontation on the Pier")
    await read_on(page, "Call the harbor guard")
    await page.get_by_role("button", name="Call the harbor guard").click()
    await read_on(page, "Play again")
    await expect(page.get_by_test_id("player-end")).to_have_text("The End")

    # From the player to the scene's editor and back.
    await page.get_by_role("link", name="Edit this scene").click()
    await expect(page.get_by_test_id("scene-title")).to_have_text("The Ship Sails Away")
    await page.get_by_role("link", name="Play from here").click()
    await expect(page.get_by_test_id("player-scene")).to_have_text("Dawn › The Ship Sails Away")


async def test_publish_shows_a_read_only_page_and_unpublish_removes_it(
    author: Author, open_page: OpenPage, browser
):
    page = await open_page(author, author.demo_path)
    await page.get_by_role("button", name="Publish", exact=True).click()
    confirmation = page.get_by_role("dialog")
    await expect(confirmation).to_contain_text("3 chapter(s), 12 scene(s)")  # what goes public, said first
    await confirmation.get_by_role("button", name="Publish").click()
    share = page.get_by_test_id("share-link")
    await expect(share).to_have_attribute("href", re.compile(r"^/published/[A-Za-z0-9_-]+$"))
    link = await share.get_attribute("href")
    assert link is not None

    reader_context = await browser.new_context()  # a reader who is not signed in
    try:
        reader = await reader_context.new_page()
        await reader.goto(author.url(link))
        await expect(reader.get_by_test_id("published-title")).to_have_text("The Lighthouse Keeper's Secret")
        await expect(reader.get_by_test_id("player-line")).to_have_text(
            "The ferry bumps against the pier. Gulls scream over a grey, restless sea."
        )
        background = reader.get_by_test_id("player-background").locator("img")
        await expect(background).to_have_attribute("src", re.compile(rf"^{re.escape(link)}/media/ast_"))
        # Read-only: nothing to edit, nobody signed in.
        await expect(reader.get_by_role("button", name="Sign out")).to_have_count(0)
        await expect(reader.get_by_role("button", name=re.compile("Edit|Delete|Rename"))).to_have_count(0)
        await reader.get_by_role("button", name="Next line").click()
        await expect(reader.get_by_test_id("player-speaker")).to_have_text("Mara")

        # Edits after publishing stay out of the published copy until it is published again.
        editor = await open_page(author, author.scenes["Arrival at the Harbor"])
        await editor.get_by_role("button", name="Edit line 1").click()
        await editor.get_by_test_id("line-1").get_by_label("Line text").fill("A changed first line.")
        await editor.get_by_test_id("line-1").get_by_role("button", name="Save").click()
        await expect(editor.get_by_test_id("line-1").get_by_test_id("line-text")).to_have_text(
            "A changed first line."
        )
        await reader.reload()
        await expect(reader.get_by_test_id("player-line")).to_have_text(
            "The ferry bumps against the pier. Gulls scream over a grey, restless sea."
        )

        await page.get_by_role("button", name="Unpublish").click()
        await expect(page.get_by_role("button", name="Publish", exact=True)).to_be_visible()
        await reader.reload()
        await expect(reader.get_by_test_id("not-found")).to_have_text("This story does not exist")
        media = await reader.request.get(author.url(f"{link}/media/anything"))
        assert media.status == 404
    finally:
        await reader_context.close()


async def test_an_empty_story_plays_nothing_and_says_what_to_do(author: Author, open_page: OpenPage):
    page = await open_page(author, "/projects")
    await page.get_by_label("New project title").fill("Blank Pages")
    await page.get_by_role("button", name="Create project").click()
    await expect(page).to_have_url(re.compile(r"/projects/prj_[a-z0-9]+$"))
    project_id = page.url.rsplit("/", 1)[-1]
    await page.goto(author.url(f"/play/{project_id}"))
    await expect(page.get_by_role("status")).to_have_text(
        "This story has no start scene yet: mark one as the start, or pick a scene above."
    )
    await expect(page.get_by_role("button", name="Play from the start")).to_have_count(1)
    await expect(page.get_by_role("link", name="Edit this scene")).to_have_count(0)
    await expect(page.get_by_role("button", name="Edit this scene")).to_have_count(0)
