"""The scene editor: background and music, dialogue lines, the tracked selection, choices."""

from __future__ import annotations

import re

import pytest
from playwright.async_api import Page, expect

from tests.browser.conftest import Author, OpenPage
from tests.support.story import TINY_PNG

SELECT_IN_LINE = """(el, [word, nth]) => {
    const text = el.firstChild;
    let at = -1;
    for (let i = 0; i <= nth; i++) at = text.data.indexOf(word, at + 1);
    const range = document.createRange();
    range.setStart(text, at);
    range.setEnd(text, at + word.length);
    getSelection().removeAllRanges();
    getSelection().addRange(range);
}"""


async def pick(page: Page, field, option: str) -> None:
    await field.click()
    await page.get_by_role("option", name=option, exact=True).click()


def line_text(page: Page, number: int):
    return page.get_by_test_id(f"line-{number}").get_by_test_id("line-text")


@pytest.fixture
def author(own_author: Author) -> Author:
    """Each test changes the demo's scenes: it gets a demo of its own."""
    return own_author


async def test_set_background_and_music(author: Author, open_page: OpenPage):
    page = await open_page(author, author.scenes["The Logbook"])
    background = page.get_by_test_id("background-slot")
    music = page.get_by_test_id("music-slot")
    await expect(music.get_by_test_id("music-status")).to_have_text(
        "Chapter music: “Storm Tension” (this scene has none of its own)."
    )

    await pick(page, background.get_by_label("Background", exact=True), "Tavern Glow")
    await expect(background.get_by_test_id("background-status")).to_have_text(
        "Scene background: “Tavern Glow”."
    )
    await expect(background.get_by_role("img", name="Background: Tavern Glow")).to_be_visible()

    await pick(page, music.get_by_label("Music", exact=True), "Dawn Fanfare")
    await expect(music.get_by_test_id("music-status")).to_have_text(
        "Scene music “Dawn Fanfare” overrides the chapter's music “Storm Tension”."
    )
    player = music.locator("audio")
    await expect(player).to_have_attribute("src", re.compile(r"^/media/ast_[a-z0-9]+$"))
    served = await page.request.get(author.url(await player.get_attribute("src")))
    assert served.ok and served.headers["content-type"] == "audio/wav"

    await page.reload()
    await expect(background.get_by_test_id("background-status")).to_have_text(
        "Scene background: “Tavern Glow”."
    )
    await pick(page, music.get_by_label("Music", exact=True), "The chapter's music (Storm Tension)")
    await expect(music.get_by_test_id("music-status")).to_contain_text("Chapter music: “Storm Tension”")

    # A new image straight from the slot: imported into the assets and used at once.
    await background.locator("input[type=file]").set_input_files(
        files=[{"name": "Logbook Lamp.png", "mimeType": "image/png", "buffer": TINY_PNG}]
    )
    await expect(background.get_by_test_id("background-status")).to_have_text(
        "Scene background: “Logbook Lamp”."
    )


async def test_dialogue_lines_add_edit_reorder_delete(author: Author, open_page: OpenPage):
    page = await open_page(author, author.scenes["The Beacon"])
    await expect(line_text(page, 2)).to_have_text("Let them see it, whoever they are.")

    form = page.get_by_test_id("new-line")
    await pick(page, form.get_by_label("Speaker"), "Old Tom")
    await form.get_by_label("New line").fill("You'll wake the whole town, girl.")
    await form.get_by_role("button", name="Add line").click()
    await expect(line_text(page, 3)).to_have_text("You'll wake the whole town, girl.")
    await expect(page.get_by_test_id("line-3")).to_contain_text("Old Tom")
    await expect(form.get_by_label("New line")).to_have_value("")

    await page.get_by_role("button", name="Edit line 2").click()
    editing = page.get_by_test_id("line-2")
    await editing.get_by_label("Line text").fill("Let every ship see it.")
    await pick(page, editing.get_by_label("Speaker"), "Narration")
    await editing.get_by_role("button", name="Save").click()
    await expect(line_text(page, 2)).to_have_text("Let every ship see it.")
    await expect(page.get_by_test_id("line-2")).to_contain_text("Narration")

    await page.get_by_role("button", name="Move line 3 up").click()
    await expect(line_text(page, 2)).to_have_text("You'll wake the whole town, girl.")
    # Keyboard: Alt+↑ on a focused line; the focus follows the line.
    await page.get_by_test_id("line-2").focus()
    await page.keyboard.press("Alt+ArrowUp")
    await expect(line_text(page, 1)).to_have_text("You'll wake the whole town, girl.")
    await expect(page.locator(":focus")).to_have_attribute("data-testid", "line-1")

    await page.get_by_role("button", name="Delete line 2").click()
    await expect(page.get_by_test_id("line-text")).to_have_text(
        ["You'll wake the whole town, girl.", "Let every ship see it."]
    )
    await page.reload()
    await expect(page.get_by_test_id("line-text")).to_have_text(
        ["You'll wake the whole town, girl.", "Let every ship see it."]
    )

    # Bad input: an empty line is refused and nothing is added.
    await page.get_by_test_id("new-line").get_by_role("button", name="Add line").click()
    await expect(page.get_by_text("Line text must not be empty.")).to_be_visible()
    await expect(page.get_by_test_id("line-text")).to_have_count(2)


async def test_a_selection_inside_a_line_is_tracked_in_code_points(author: Author, open_page: OpenPage):
    page = await open_page(author, author.scenes["The Lamp Room"])
    await page.get_by_role("button", name="Edit line 2").click()
    await (
        page.get_by_test_id("line-2")
        .get_by_label("Line text")
        .fill("🔥 Someone broke this 👩‍👩‍👧 on purpose.")
    )
    await page.get_by_test_id("line-2").get_by_role("button", name="Save").click()
    await expect(line_text(page, 2)).to_have_text("🔥 Someone broke this 👩‍👩‍👧 on purpose.")

    # "purpose" starts after 🔥 (1 code point, 2 UTF-16 units) and a family emoji (5 code points, 8 units).
    await line_text(page, 2).evaluate(SELECT_IN_LINE, ["purpose", 0])
    await expect(page.get_by_test_id("selection")).to_have_text("Selected “purpose” (30–37)")
    # Clicking into another box keeps it (the author goes on to type a command about it) ...
    await page.get_by_test_id("new-line").get_by_label("New line").click()
    assert await page.evaluate("window.romergoSelection.read() === undefined")  # undefined: keep
    await expect(page.get_by_test_id("selection")).to_have_text("Selected “purpose” (30–37)")
    # ... a selection outside the lines clears it, and a new one in another line replaces it.
    await line_text(page, 1).evaluate(SELECT_IN_LINE, ["lens", 0])
    await expect(page.get_by_test_id("selection")).to_have_text("Selected “lens” (28–32)")
    await page.get_by_test_id("scene-title").evaluate(SELECT_IN_LINE, ["Lamp", 0])
    await expect(page.get_by_test_id("selection")).to_have_text("")


async def test_add_a_choice_with_the_scene_picker(author: Author, open_page: OpenPage):
    page = await open_page(author, author.scenes["The Smugglers' Cave"])
    form = page.get_by_test_id("new-choice")
    await form.get_by_label("Choice label").fill("Search the cellar")
    target = form.get_by_label("Leads to")
    await target.fill("Cellar")
    await page.get_by_role("option", name="The Keeper › The Forgotten Cellar").click()
    await form.get_by_role("button", name="Add choice").click()

    added = page.get_by_test_id("choice-3")
    await expect(added).to_contain_text("Search the cellar")
    await added.get_by_role("link", name="The Forgotten Cellar").click()
    await expect(page.get_by_test_id("scene-title")).to_have_text("The Forgotten Cellar")
    await page.go_back()
    await expect(page.get_by_test_id("scene-title")).to_have_text("The Smugglers' Cave")

    await page.get_by_role("button", name="Move choice 3 up").click()
    await expect(page.get_by_test_id("choice-2")).to_contain_text("Search the cellar")
    await page.get_by_role("button", name="Delete choice 1").click()
    await expect(page.get_by_test_id("choice-1")).to_contain_text("Search the cellar")
    await expect(page.get_by_test_id("choice-3")).to_have_count(0)

    # A choice needs a label: refused with the service's message, nothing added.
    await form.get_by_role("button", name="Add choice").click()
    await expect(page.get_by_text("Pick the scene this choice leads to.")).to_be_visible()
    await pick(page, form.get_by_label("Leads to"), "Dawn › A New Keeper")
    await form.get_by_role("button", name="Add choice").click()
    await expect(page.get_by_text("Choice label must not be empty.")).to_be_visible()
    await expect(page.get_by_test_id("choice-3")).to_have_count(0)


async def test_a_file_that_is_not_an_image_is_refused_as_background(author: Author, open_page: OpenPage):
    page = await open_page(author, author.scenes["The Cliff Path"])
    background = page.get_by_test_id("background-slot")
    await expect(background.get_by_test_id("background-status")).to_have_text(
        "Scene background: “Cliff Path at Night”."
    )
    # Named and typed like a PNG, but the bytes say otherwise: the server reads the content.
    await background.locator("input[type=file]").set_input_files(
        files=[{"name": "sunset.png", "mimeType": "image/png", "buffer": b"<svg onload='alert(1)'/>"}]
    )
    await expect(
        page.get_by_text(
            "A background must be an image (PNG, JPEG or WebP); this file is not a recognised media file."
        )
    ).to_be_visible()
    await expect(background.get_by_test_id("background-status")).to_have_text(
        "Scene background: “Cliff Path at Night”."
    )
    await page.get_by_role("link", name="Assets", exact=True).click()
    await expect(page.get_by_role("listitem", name="Cliff Path at Night")).to_be_visible()
    await expect(page.get_by_role("listitem", name="sunset")).to_have_count(0)


async def test_ctrl_z_undoes_and_ctrl_shift_z_redoes_the_authors_own_changes(
    author: Author, open_page: OpenPage
):
    page = await open_page(author, author.scenes["The Beacon"])
    await page.get_by_role("button", name="Rename the scene").click()
    await page.get_by_role("dialog").get_by_role("textbox").fill("The Signal Fire")
    await page.get_by_role("dialog").get_by_role("button", name="Save").click()
    await expect(page.get_by_test_id("scene-title")).to_have_text("The Signal Fire")
    form = page.get_by_test_id("new-line")
    await form.get_by_label("New line").fill("A second thought.")
    await form.get_by_role("button", name="Add line").click()
    await expect(page.get_by_test_id("line-text").last).to_have_text("A second thought.")
    lines = await page.get_by_test_id("line-text").count()

    await page.get_by_test_id("scene-title").click()  # out of the text fields
    await page.keyboard.press("Control+z")
    await expect(page.get_by_test_id("line-text")).to_have_count(lines - 1)
    await expect(page.get_by_test_id("scene-title")).to_have_text("The Signal Fire")
    await page.keyboard.press("Control+z")
    await expect(page.get_by_test_id("scene-title")).to_have_text("The Beacon")

    await page.keyboard.press("Control+Shift+z")
    await expect(page.get_by_test_id("scene-title")).to_have_text("The Signal Fire")
    await page.reload()
    await expect(page.get_by_test_id("scene-title")).to_have_text("The Signal Fire")
    await expect(page.get_by_test_id("line-text")).to_have_count(lines - 1)

    # inside a text field the keys stay the browser's own: the story is not touched
    await form.get_by_label("New line").fill("draft")
    await form.get_by_label("New line").press("Control+z")
    await expect(page.get_by_test_id("scene-title")).to_have_text("The Signal Fire")
