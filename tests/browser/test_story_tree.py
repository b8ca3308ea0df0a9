"""The project list and the chapter/scene tree: create, add, rename, move, mark, delete, bad input."""

from __future__ import annotations

import re

import pytest
from playwright.async_api import Page, expect

from tests.browser.conftest import Author, OpenPage


def chapter(page: Page, title: str):
    return page.get_by_role("group", name=f"Chapter {title}", exact=True)


def scenes_of(page: Page, chapter_title: str):
    """The scene links of a chapter: `to_have_text([...])` on it waits for an exact order."""
    return chapter(page, chapter_title).get_by_role("listitem").get_by_role("link")


@pytest.fixture
def author(own_author: Author) -> Author:
    """Each test changes the story: it gets a demo of its own."""
    return own_author


async def test_create_a_project_with_a_chapter_and_a_scene_and_reload_returns_there(
    author: Author, open_page: OpenPage
):
    page = await open_page(author, "/projects")
    await page.get_by_label("New project title").fill("Harbour Lights")
    await page.get_by_role("button", name="Create project").click()
    await expect(page).to_have_url(re.compile(r"/projects/prj_[a-z0-9]+$"))
    await expect(page.get_by_test_id("project-title")).to_have_text("Harbour Lights")

    await page.get_by_role("button", name="Add chapter").click()
    dialog = page.get_by_role("dialog")
    await dialog.get_by_label("Chapter title").fill("Night Shift")
    await dialog.get_by_role("button", name="Add chapter").click()
    await expect(chapter(page, "Night Shift")).to_be_visible()
    await page.get_by_role("button", name="Add a scene to Night Shift").click()
    await page.get_by_role("dialog").get_by_label("Scene title").fill("On the Quay")
    await page.get_by_role("dialog").get_by_label("Scene title").press("Enter")

    row = chapter(page, "Night Shift").get_by_role("listitem", name="On the Quay")
    await expect(row).to_be_visible()
    await expect(row.get_by_text("start", exact=True)).to_be_visible()  # the first scene starts the story
    await row.get_by_role("link", name="On the Quay").click()
    await expect(page).to_have_url(re.compile(r"/projects/prj_[a-z0-9]+/scenes/scn_[a-z0-9]+$"))
    await expect(page.get_by_test_id("scene-title")).to_have_text("On the Quay")

    where = page.url
    await page.reload()
    await expect(page.get_by_test_id("scene-title")).to_have_text("On the Quay")
    assert page.url == where

    # Renamed from the project list, which links back to it.
    await page.get_by_role("link", name="Romergo").click()
    await page.get_by_role("button", name="Rename Harbour Lights").click()
    await page.get_by_role("dialog").get_by_label("Title").fill("Harbour Lights at Dusk")
    await page.get_by_role("dialog").get_by_role("button", name="Save").click()
    await expect(page.get_by_role("link", name="Harbour Lights at Dusk")).to_be_visible()


async def test_bad_titles_show_a_message_and_save_nothing(author: Author, open_page: OpenPage):
    page = await open_page(author, author.demo_path)
    await expect(page.get_by_test_id("story-tree")).to_be_visible()
    chapters_before = await page.get_by_role("group").count()

    await page.get_by_role("button", name="Add chapter").click()
    dialog = page.get_by_role("dialog")
    await dialog.get_by_role("button", name="Add chapter").click()
    await expect(dialog.get_by_role("alert")).to_have_text("Chapter title must not be empty.")
    await dialog.get_by_label("Chapter title").fill("x" * 201)
    await dialog.get_by_role("button", name="Add chapter").click()
    await expect(dialog.get_by_role("alert")).to_have_text(
        "Chapter title is 201 characters long; the limit is 200."
    )
    await dialog.get_by_role("button", name="Cancel").click()
    await expect(dialog).to_be_hidden()

    await page.get_by_role("button", name="More actions for The Beacon").click()
    await page.get_by_role("menuitem", name="Rename").click()
    await page.get_by_role("dialog").get_by_label("Scene title").fill("   ")
    await page.get_by_role("dialog").get_by_role("button", name="Save").click()
    refused = page.get_by_role("dialog").get_by_role("alert")
    await expect(refused).to_have_text("Scene title must not be empty.")
    await page.get_by_role("dialog").get_by_role("button", name="Cancel").click()

    await page.reload()
    await expect(page.get_by_test_id("story-tree")).to_be_visible()
    assert await page.get_by_role("group").count() == chapters_before
    await expect(page.get_by_role("listitem", name="The Beacon")).to_be_visible()

    await page.goto(author.url("/projects"))
    await page.get_by_role("button", name="Create project").click()
    await expect(page.get_by_text("Project title must not be empty.")).to_be_visible()
    await expect(page).to_have_url(author.url("/projects"))


async def test_scenes_move_with_buttons_keyboard_and_menu(author: Author, open_page: OpenPage):
    page = await open_page(author, author.demo_path)
    storm = scenes_of(page, "The Storm")
    await expect(storm).to_have_text(["Arrival at the Harbor", "The Lighthouse Door", "The Tavern"])

    await page.get_by_role("button", name="Move The Tavern up").click()
    await expect(scenes_of(page, "The Storm")).to_have_text(
        ["Arrival at the Harbor", "The Tavern", "The Lighthouse Door"]
    )

    # Keyboard: Alt+↓ past the end of a chapter lands at the start of the next one; focus follows.
    await chapter(page, "The Storm").get_by_role("listitem", name="The Lighthouse Door").focus()
    await page.keyboard.press("Alt+ArrowDown")
    await expect(scenes_of(page, "The Keeper")).to_have_text(
        [
            "The Lighthouse Door",
            "The Lamp Room",
            "The Cliff Path",
            "The Logbook",
            "The Beacon",
            "The Smugglers' Cave",
            "The Forgotten Cellar",
        ]
    )
    focused = page.locator(":focus")
    await expect(focused).to_have_attribute("aria-label", "The Lighthouse Door")
    await page.keyboard.press("Alt+ArrowUp")
    await expect(scenes_of(page, "The Storm")).to_have_text(
        ["Arrival at the Harbor", "The Tavern", "The Lighthouse Door"]
    )

    await page.get_by_role("button", name="More actions for The Forgotten Cellar").click()
    await page.get_by_role("menuitem", name="Move to Dawn").click()
    await expect(scenes_of(page, "Dawn")).to_have_text(
        ["Confrontation on the Pier", "A New Keeper", "The Ship Sails Away", "The Forgotten Cellar"]
    )

    # Chapters reorder too; the order survives a reload.
    await page.get_by_role("button", name="Move Dawn up").click()
    await expect(page.get_by_role("group").nth(1)).to_have_attribute("aria-label", "Chapter Dawn")
    await page.reload()
    await expect(page.get_by_role("group").nth(1)).to_have_attribute("aria-label", "Chapter Dawn")
    await expect(storm).to_have_text(["Arrival at the Harbor", "The Tavern", "The Lighthouse Door"])

    # Dragging works as well: onto a scene takes its place.
    await page.get_by_role("listitem", name="The Lighthouse Door").drag_to(
        page.get_by_role("listitem", name="Arrival at the Harbor")
    )
    await expect(storm).to_have_text(["The Lighthouse Door", "Arrival at the Harbor", "The Tavern"])


async def test_start_and_ending_marks(author: Author, open_page: OpenPage):
    page = await open_page(author, author.scenes["The Logbook"])
    await page.get_by_role("switch", name="Ending").click()
    await expect(page.get_by_role("switch", name="Ending")).to_have_attribute("aria-checked", "true")
    await page.get_by_role("switch", name="Start scene").click()
    await expect(page.get_by_role("switch", name="Start scene")).to_have_attribute("aria-checked", "true")

    await page.get_by_role("link", name="Story", exact=True).click()
    logbook = page.get_by_role("listitem", name="The Logbook")
    await expect(logbook.get_by_text("ending", exact=True)).to_be_visible()
    await expect(logbook.get_by_text("start", exact=True)).to_be_visible()
    # One start per story: the demo's old start lost its mark.
    await expect(page.get_by_test_id("story-tree").get_by_text("start", exact=True)).to_have_count(1)

    # And back, from the tree's menu.
    await page.get_by_role("button", name="More actions for Arrival at the Harbor").click()
    await page.get_by_role("menuitem", name="Make it the start").click()
    arrival = page.get_by_role("listitem", name="Arrival at the Harbor")
    await expect(arrival.get_by_text("start", exact=True)).to_be_visible()
    await page.get_by_role("button", name="More actions for The Logbook").click()
    await page.get_by_role("menuitem", name="Unmark ending").click()
    await expect(logbook.get_by_text("ending", exact=True)).to_have_count(0)
    await expect(logbook.get_by_text("start", exact=True)).to_have_count(0)


async def test_deleting_asks_for_confirmation(author: Author, open_page: OpenPage):
    page = await open_page(author, author.demo_path)

    await page.get_by_role("button", name="More actions for The Ship Sails Away").click()
    await page.get_by_role("menuitem", name="Delete").click()
    dialog = page.get_by_role("dialog")
    await expect(dialog).to_contain_text("Delete the scene “The Ship Sails Away”?")
    await dialog.get_by_role("button", name="Cancel").click()
    await expect(dialog).to_be_hidden()
    await expect(page.get_by_role("listitem", name="The Ship Sails Away")).to_be_visible()

    await page.get_by_role("button", name="More actions for The Ship Sails Away").click()
    await page.get_by_role("menuitem", name="Delete").click()
    await page.get_by_role("dialog").get_by_role("button", name="Delete").click()
    await expect(page.get_by_role("listitem", name="The Ship Sails Away")).to_have_count(0)

    # A chapter, from its own page: the dialog says what goes with it.
    await page.get_by_role("link", name="Dawn", exact=True).click()
    await expect(page.get_by_test_id("chapter-title")).to_have_text("Dawn")
    await page.get_by_role("button", name="Delete the chapter").click()
    await expect(page.get_by_role("dialog")).to_contain_text("they are deleted with it")
    await page.get_by_role("dialog").get_by_role("button", name="Delete").click()
    await expect(page).to_have_url(author.url(author.demo_path))
    await expect(chapter(page, "Dawn")).to_have_count(0)

    # A whole project, from the list.
    await page.goto(author.url("/projects"))
    await page.get_by_label("New project title").fill("Scratch")
    await page.get_by_role("button", name="Create project").click()
    await expect(page.get_by_test_id("project-title")).to_have_text("Scratch")
    await page.get_by_role("button", name="Delete the story").click()
    await page.get_by_role("dialog").get_by_role("button", name="Delete").click()
    await expect(page).to_have_url(author.url("/projects"))
    await expect(page.get_by_role("link", name="Scratch", exact=True)).to_have_count(0)


async def test_unknown_ids_show_the_not_found_page(author: Author, open_page: OpenPage):
    page = await open_page(author, "/projects/prj_doesnotexist")
    await expect(page.get_by_test_id("not-found")).to_have_text("This project does not exist")
    for path, what in [
        (f"{author.demo_path}/scenes/scn_doesnotexist", "scene"),
        (f"{author.demo_path}/chapters/chp_doesnotexist", "chapter"),
        ("/projects/prj_doesnotexist/characters", "project"),
        ("/projects/prj_doesnotexist/assets", "project"),
        ("/projects/prj_doesnotexist/check", "project"),
        ("/projects/prj_doesnotexist/history", "project"),
        ("/play/prj_doesnotexist", "project"),
        (f"{author.demo_path}/no-such-page", "page"),
        ("/no-such-page", "page"),
    ]:
        await page.goto(author.url(path))
        await expect(page.get_by_test_id("not-found")).to_have_text(f"This {what} does not exist")
    await expect(page.get_by_role("link", name="Back to your projects")).to_be_visible()

    anonymous = await page.context.browser.new_context()
    try:
        public = await anonymous.new_page()
        await public.goto(author.url("/published/not-a-share-id"))
        await expect(public.get_by_test_id("not-found")).to_have_text("This story does not exist")
    finally:
        await anonymous.close()


async def test_duplicate_a_scene_and_a_chapter(author: Author, open_page: OpenPage):
    page = await open_page(author, author.demo_path)
    await page.get_by_role("button", name="More actions for The Tavern").click()
    await page.get_by_role("menuitem", name="Duplicate").click()
    await expect(scenes_of(page, "The Storm")).to_have_text(
        ["Arrival at the Harbor", "The Lighthouse Door", "The Tavern", "The Tavern (copy)"]
    )
    await page.get_by_role("link", name="The Tavern (copy)").click()
    await expect(page.get_by_test_id("scene-title")).to_have_text("The Tavern (copy)")
    await expect(page.get_by_test_id("line-text")).to_have_count(3)  # its dialogue came along
    await expect(page.get_by_test_id("choice-1")).to_contain_text("Follow the stranger")

    await page.get_by_role("link", name="Story", exact=True).click()
    await page.get_by_role("button", name="Duplicate Dawn").click()
    await expect(chapter(page, "Dawn (copy)")).to_be_visible()
    await expect(scenes_of(page, "Dawn (copy)")).to_have_text(
        ["Confrontation on the Pier", "A New Keeper", "The Ship Sails Away"]
    )


async def test_a_character_who_still_speaks_cannot_be_deleted(author: Author, open_page: OpenPage):
    page = await open_page(author, f"{author.demo_path}/characters")
    await page.get_by_role("button", name="Delete The Stranger").click()
    await page.get_by_role("dialog").get_by_role("button", name="Delete").click()
    await expect(page.get_by_text(re.compile(r'"The Stranger" still speaks in "The Tavern"'))).to_be_visible()
    await expect(page.get_by_role("listitem")).to_have_count(3)

    form = page.get_by_test_id("new-character")
    await form.get_by_label("New character name").fill("Gull")
    await form.get_by_role("button", name="Add character").click()
    await expect(page.get_by_role("listitem")).to_have_count(4)
    await page.get_by_role("button", name="Delete Gull").click()
    await page.get_by_role("dialog").get_by_role("button", name="Delete").click()
    await expect(page.get_by_role("listitem")).to_have_count(3)
