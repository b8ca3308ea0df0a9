"""Export and import on the projects page: a story downloaded as Twee, uploaded again as
a new project with what Twee leaves out listed; a malformed file refused naming its line."""

from __future__ import annotations

import re

import pytest
from playwright.async_api import expect

from tests.browser.conftest import Author, OpenPage

# A passage added in Twine after the export, with a tag Romergo has no use for.
EDITED_IN_TWINE = "\n:: Night Watch [night]\nThe lamp burns till dawn.\n"


@pytest.fixture
def author(own_author: Author) -> Author:
    """Each test adds projects: it gets an account of its own."""
    return own_author


async def test_a_story_exported_as_twee_comes_back_as_a_new_project(author: Author, open_page: OpenPage):
    projects = await open_page(author, "/projects")
    stories = projects.get_by_role("list", name="Your stories").get_by_role("listitem")
    await expect(stories).to_have_count(1)
    await projects.get_by_role("button", name="Export The Lighthouse Keeper's Secret").click()
    async with projects.expect_download() as downloading:
        await projects.get_by_text("Twine (Twee 3)", exact=True).click()
    download = await downloading.value
    assert download.suggested_filename == "The-Lighthouse-Keeper-s-Secret.twee"
    path = await download.path()
    text = path.read_text(encoding="utf-8")
    assert text.startswith(":: StoryTitle\nThe Lighthouse Keeper's Secret\n")

    box = projects.get_by_test_id("story-import")
    await box.locator("input[type=file]").set_input_files(
        files=[
            {"name": "lighthouse.twee", "mimeType": "text/plain", "buffer": (text + EDITED_IN_TWINE).encode()}
        ]
    )
    await expect(projects.get_by_test_id("import-result")).to_have_text(
        "Imported “The Lighthouse Keeper's Secret”: 13 scenes."
    )
    await expect(projects.get_by_test_id("import-note")).to_have_text(
        ['• The tag "night" has no equivalent in Romergo: not kept.']
    )
    await expect(stories).to_have_count(2)  # the list follows without a reload
    await projects.get_by_role("link", name="Open it").click()
    await expect(projects).to_have_url(re.compile(r"/projects/prj_[a-z0-9]+$"))
    await expect(projects.get_by_test_id("story-tree")).to_contain_text("The Forgotten Cellar")


async def test_a_malformed_file_is_refused_with_its_line(author: Author, open_page: OpenPage):
    projects = await open_page(author, "/projects")
    box = projects.get_by_test_id("story-import")
    await box.locator("input[type=file]").set_input_files(
        files=[{"name": "broken.yarn", "mimeType": "text/plain", "buffer": b"title: A\n---\nHello\n"}]
    )
    await expect(projects.get_by_text('line 1: node "A" never ends with a line "==="')).to_be_visible()
    await expect(projects.get_by_role("list", name="Your stories").get_by_role("listitem")).to_have_count(1)
