"""Find and replace in the browser: matches highlighted and grouped by scene, replace all
shown live in an open scene editor, and taken back with one Undo."""

from __future__ import annotations

import pytest
from playwright.async_api import expect

from tests.browser.conftest import Author, OpenPage

LIVE = 5_000  # ms: how long another page may take to follow a change
LANTERN = "Below, a lantern flickers where no lantern should be."
LAMP = "Below, a lamp flickers where no lamp should be."


@pytest.fixture
def author(own_author: Author) -> Author:
    """Each test changes the story: it gets a demo of its own."""
    return own_author


async def test_replace_all_shows_in_the_editor_and_undo_takes_it_back(author: Author, open_page: OpenPage):
    search = await open_page(author, f"{author.demo_path}/search")
    await search.get_by_label("Find").fill("LANTERN")
    await search.get_by_label("Find").press("Enter")
    summary = search.get_by_test_id("search-summary")
    await expect(summary).to_have_text("2 matches in 1 text.")
    await expect(search.get_by_test_id("search-scene")).to_have_text(["The Cliff Path"])
    hit = search.get_by_test_id("search-hit")
    await expect(hit.locator("mark")).to_have_text(["lantern", "lantern"])  # case ignored
    await expect(hit).to_contain_text("Line")
    await expect(hit).not_to_contain_text("·")  # narration: no speaker named

    editor = await open_page(author, author.scenes["The Cliff Path"])
    narration = editor.get_by_test_id("line-2").get_by_test_id("line-text")
    await expect(narration).to_have_text(LANTERN)

    await search.get_by_label("Replace with").fill("lamp")
    await search.get_by_role("button", name="Replace all").click()
    await expect(search.get_by_text("Replaced 2 matches in 1 text.")).to_be_visible()
    await expect(narration).to_have_text(LAMP, timeout=LIVE)
    await expect(summary).to_have_text("Nothing found.", timeout=LIVE)  # the search follows the story

    await search.get_by_role("button", name="Undo").click()
    await expect(search.get_by_text("Replacement undone.")).to_be_visible()
    await expect(narration).to_have_text(LANTERN, timeout=LIVE)
    await expect(summary).to_have_text("2 matches in 1 text.", timeout=LIVE)


async def test_options_and_a_bad_expression(author: Author, open_page: OpenPage):
    search = await open_page(author, f"{author.demo_path}/search?q=lantern")
    summary = search.get_by_test_id("search-summary")
    await expect(summary).to_have_text("2 matches in 1 text.")
    await search.get_by_label("Find").fill("Lantern")
    await search.get_by_role("checkbox", name="Match case").click()
    await expect(summary).to_have_text("Nothing found.")
    await search.get_by_label("Find").fill("lant(")
    await search.get_by_role("checkbox", name="Regular expression").click()
    await expect(search.get_by_role("alert")).to_contain_text("The regular expression is not valid")

    # A replacement that breaks a rule is refused whole, in words, and changes nothing.
    await search.get_by_role("checkbox", name="Regular expression").click()
    await search.get_by_role("checkbox", name="Match case").click()
    await search.get_by_label("Find").fill("The Cliff Path")
    await search.get_by_label("Find").press("Enter")
    await expect(summary).to_have_text("1 match in 1 text.")
    await search.get_by_role("button", name="Replace all").click()
    await expect(search.get_by_text("Scene title must not be empty")).to_be_visible()
    await expect(summary).to_have_text("1 match in 1 text.")
