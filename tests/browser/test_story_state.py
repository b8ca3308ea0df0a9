"""Story state in the browser: the demo's key, found in the smugglers' cave, opens a choice
and a line on the pier; the play-through's debug drawer changes what shows; the published page
plays with state but has no drawer; the variables page renames a variable everywhere and refuses to
delete one in use; the scene editor sets a choice's condition."""

from __future__ import annotations

import re

import pytest
from playwright.async_api import Page, expect

from tests.browser.conftest import Author, OpenPage
from tests.browser.test_check_play_publish import read_on

KEY_CHOICE = "Show Tom his key"
KEY_LINE = "I found your key in the cave, Tom. I know everything."


@pytest.fixture
def author(own_author: Author) -> Author:
    return own_author


async def walk(page: Page, *choices: str) -> None:
    for choice in choices:
        await read_on(page, choice)
        await page.get_by_test_id("player").get_by_role("button", name=choice).click()


async def test_the_key_found_in_the_cave_opens_a_choice_on_the_pier(author: Author, open_page: OpenPage):
    page = await open_page(author, f"/play/{author.demo_id}")
    player = page.get_by_test_id("player")
    choices = player.get_by_role("group", name="Choices")

    # Without the key: the lighthouse way to the pier.
    await walk(page, "Climb to the lighthouse", "Go inside", "Light the lamp")
    await read_on(page, "Go down to the pier")
    # The beacon's deliberate state problem: "Signal the ship" waits for lens_mended, never set.
    await expect(choices.get_by_role("button")).to_have_text(["Go down to the pier"])
    await page.get_by_role("button", name="Go down to the pier").click()
    await read_on(page, "Forgive him")
    await expect(choices.get_by_role("button")).to_have_text(["Forgive him", "Call the harbor guard"])

    # Through the cave: the key is found, and the pier shows the line and the choice it opens.
    await page.get_by_role("button", name="Play from the start").click()
    await walk(
        page, "Ask around the tavern", "Follow the stranger", "Hide in the cave", "Slip away to the pier"
    )
    await expect(player.get_by_test_id("player-line")).to_have_text(re.compile("I needed the money"))
    seen = []
    for _ in range(3):
        seen.append(await player.get_by_test_id("player-line").text_content())
        if len(seen) == 3:
            break
        await page.get_by_role("button", name="Next line").click()
        await expect(player.get_by_test_id("player-line")).not_to_have_text(seen[-1] or "")
    assert seen[-1] == KEY_LINE
    await page.get_by_role("button", name="Next line").click()
    await expect(choices.get_by_role("button")).to_have_text(
        ["Forgive him", "Call the harbor guard", KEY_CHOICE]
    )
    await page.keyboard.press("3")  # the number counts the choices shown
    await expect(page.get_by_test_id("player-scene")).to_have_text("Dawn › A New Keeper")


async def test_the_debug_drawer_sets_a_value_and_the_choices_follow(author: Author, open_page: OpenPage):
    page = await open_page(author, f"/play/{author.demo_id}")
    await page.get_by_label("Start from").fill("Pier")
    await page.get_by_role("option", name="Dawn › Confrontation on the Pier").click()
    await page.get_by_role("button", name="Play this scene").click()
    await read_on(page, "Forgive him")
    choices = page.get_by_test_id("player").get_by_role("group", name="Choices")
    await expect(choices.get_by_role("button")).to_have_count(2)

    drawer = page.get_by_test_id("state-drawer")
    await drawer.get_by_text("Story state").click()
    has_key = drawer.get_by_test_id("state-has_key")
    await expect(has_key).to_have_attribute("aria-checked", "false")
    await has_key.click()
    await expect(choices.get_by_role("button", name=KEY_CHOICE)).to_be_visible()

    # Start a scene with chosen values: the key line shows from the first line on.
    await page.get_by_role("button", name="Play this scene").click()
    await read_on(page, KEY_CHOICE)
    await expect(has_key).to_have_attribute("aria-checked", "true")
    await drawer.get_by_role("button", name="Reset to the starting values").click()
    await expect(has_key).to_have_attribute("aria-checked", "false")
    await expect(choices.get_by_role("button", name=KEY_CHOICE)).to_have_count(0)


async def test_the_published_page_plays_with_state_and_has_no_drawer(
    author: Author, open_page: OpenPage, browser
):
    page = await open_page(author, author.demo_path)
    await page.get_by_role("button", name="Publish", exact=True).click()
    await page.get_by_role("dialog").get_by_role("button", name="Publish").click()
    share = page.get_by_test_id("share-link")
    await expect(share).to_have_attribute("href", re.compile(r"^/published/"))
    link = await share.get_attribute("href")
    assert link is not None
    reader_context = await browser.new_context()
    try:
        reader = await reader_context.new_page()
        await reader.goto(author.url(link))
        await walk(reader, "Climb to the lighthouse", "Go inside", "Light the lamp")
        await read_on(reader, "Go down to the pier")
        choices = reader.get_by_test_id("player").get_by_role("group", name="Choices")
        await expect(choices.get_by_role("button")).to_have_text(["Go down to the pier"])
        await expect(reader.get_by_test_id("state-drawer")).to_have_count(0)
        await expect(reader.get_by_text("Story state")).to_have_count(0)
    finally:
        await reader_context.close()


async def test_the_variables_page_renames_everywhere_and_refuses_to_delete_what_is_used(
    author: Author, open_page: OpenPage
):
    page = await open_page(author, f"{author.demo_path}/variables")
    await expect(page.get_by_test_id("variable-has_key")).to_contain_text("starts as false")

    await page.get_by_role("button", name="Delete has_key").click()
    await page.get_by_role("dialog").get_by_role("button", name="Delete").click()
    await expect(
        page.get_by_text(re.compile(r'"has_key" is still used: entering scene "The Smugglers'))
    ).to_be_visible()

    await page.get_by_role("button", name="Edit has_key").click()
    await page.get_by_role("dialog").get_by_label("Name").fill("found_key")
    await page.get_by_role("dialog").get_by_role("button", name="Save").click()
    await expect(page.get_by_test_id("variable-found_key")).to_be_visible()

    pier = await open_page(author, author.scenes["Confrontation on the Pier"])
    await expect(pier.get_by_test_id("choice-3").get_by_test_id("choice-condition")).to_have_text(
        "if found_key"
    )
    await expect(pier.get_by_test_id("line-condition")).to_have_text("shown only if found_key")

    # A bad name is refused with the rule, and nothing is added.
    form = page.get_by_test_id("new-variable")
    await form.get_by_label("New variable name").fill("2fast")
    await form.get_by_role("button", name="Add variable").click()
    await expect(page.get_by_text(re.compile("letters, digits and underscores"))).to_be_visible()
    await expect(page.get_by_role("listitem")).to_have_count(2)
    await form.get_by_label("New variable name").fill("courage")
    await form.get_by_role("button", name="Add variable").click()
    await expect(page.get_by_test_id("variable-courage")).to_contain_text("starts as false")


async def test_a_choice_condition_set_in_the_editor_is_checked_and_shown(author: Author, open_page: OpenPage):
    editor = await open_page(author, author.scenes["The Lamp Room"])
    await editor.get_by_role("button", name="Edit choice 2").click()
    dialog = editor.get_by_role("dialog")
    await dialog.get_by_label("Offered only when (optional)").fill("has_key and")
    await dialog.get_by_role("button", name="Save").click()
    await expect(
        editor.get_by_text(re.compile(r"The condition of .Light the lamp. at character 12"))
    ).to_be_visible()
    await dialog.get_by_label("Offered only when (optional)").fill("has_key")
    await dialog.get_by_label("When picked (optional)").fill("set lens_mended = true")
    await dialog.get_by_role("button", name="Save").click()
    await expect(editor.get_by_test_id("choice-2").get_by_test_id("choice-condition")).to_have_text(
        "if has_key"
    )
    await expect(editor.get_by_test_id("choice-2").get_by_test_id("choice-effects")).to_have_text(
        "set lens_mended = true"
    )

    await editor.get_by_role("button", name="Edit what entering this scene sets").click()
    await editor.get_by_role("dialog").get_by_role("textbox").fill("set has_key = 3")
    await editor.get_by_role("dialog").get_by_role("button", name="Save").click()
    await expect(editor.get_by_role("dialog").get_by_role("alert")).to_contain_text("'has_key' is a flag")
    await editor.get_by_role("dialog").get_by_role("textbox").fill("set has_key = true")
    await editor.get_by_role("dialog").get_by_role("button", name="Save").click()
    await expect(editor.get_by_test_id("entry-effects-text")).to_have_text("set has_key = true")
