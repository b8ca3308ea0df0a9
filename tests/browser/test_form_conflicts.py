"""Every form next to the author's agent and their other tabs: an open choice, chapter, character,
variable or scene form says at once that its entity changed and who changed it; a field changed by
one side merges with the other's, the same field changed on both is the conflict view's choice.

The tests share one demo story: each changes parts of it no other test here reads (its own scene,
chapter, character or variable), so none needs a story of its own.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.async_api import Page, expect

from tests.browser.conftest import Author, OpenPage
from tests.browser.scribe import (
    BY_SCRIBE,
    CHANGED,
    choices_to_set,
    conflict_view,
    scene_of,
    scribe_of,
    scribe_token,
)
from tests.support.agents import data


@pytest.fixture(scope="module")
def token(author: Author) -> str:
    """One token of the agent's for the module (the command line that makes it takes a second);
    each test connects with it."""
    return scribe_token(author)


async def open_choice(page: Page, number: int, label: str) -> None:
    await expect(page.get_by_test_id(f"choice-{number}")).to_contain_text(label)
    await page.get_by_role("button", name=f"Edit choice {number}").click()


async def test_the_agent_sets_a_choices_condition_while_the_author_renames_it_and_both_are_kept(
    author: Author, open_page: OpenPage, token: str
):
    async with scribe_of(author, token) as scribe:
        page = await open_page(author, author.scenes["The Lamp Room"])
        await open_choice(page, 1, "Read the logbook")
        dialog = page.get_by_role("dialog")
        await dialog.get_by_label("Choice label").fill("Read the keeper's logbook")
        scene = await scene_of(author, scribe, "The Lamp Room")
        theirs = choices_to_set(scene)
        theirs[0] |= {"condition": "has_key", "effects": "set lens_mended = true"}
        await scribe.call(
            "romergo_set_choices",
            scene_id=scene["scene"]["id"],
            choices=theirs,
            expected_revision=scene["scene"]["revision"],
        )

        # The open dialog says so before anything is saved, and keeps what the author typed.
        await expect(dialog.get_by_test_id("draft-changed")).to_have_text(CHANGED.format(who=BY_SCRIBE))
        await expect(dialog.get_by_label("Choice label")).to_have_value("Read the keeper's logbook")
        await dialog.get_by_role("button", name="Save").click()

        await expect(page.get_by_role("dialog")).to_have_count(0)
        await expect(page.get_by_test_id("choice-1")).to_contain_text("Read the keeper's logbook")
        await expect(page.get_by_test_id("choice-1").get_by_test_id("choice-condition")).to_have_text(
            "if has_key"
        )
        first = (await scene_of(author, scribe, "The Lamp Room"))["choices"][0]
        assert (first["id"], first["label"], first["condition"], first["effects"]) == (
            theirs[0]["id"],
            "Read the keeper's logbook",
            "has_key",
            "set lens_mended = true",
        )


async def test_the_same_choice_label_on_both_sides_asks_and_take_theirs_keeps_the_agents(
    author: Author, open_page: OpenPage, token: str
):
    async with scribe_of(author, token) as scribe:
        page = await open_page(author, author.scenes["The Tavern"])
        await open_choice(page, 1, "Follow the stranger")
        await page.get_by_role("dialog").get_by_label("Choice label").fill("Follow the stranger outside")
        scene = await scene_of(author, scribe, "The Tavern")
        theirs = choices_to_set(scene)
        theirs[0]["label"] = "Trail the stranger"
        await scribe.call("romergo_set_choices", scene_id=scene["scene"]["id"], choices=theirs)
        await expect(page.get_by_test_id("choice-1")).to_contain_text("Trail the stranger")

        await page.get_by_role("dialog").get_by_role("button", name="Save").click()
        view = conflict_view(page)
        await expect(view.get_by_test_id("conflict-who")).to_contain_text(f"Changed by {BY_SCRIBE}")
        await expect(view.get_by_test_id("conflict-theirs")).to_contain_text("Trail the stranger")
        await expect(view.get_by_test_id("conflict-yours")).to_contain_text("Follow the stranger outside")
        await view.get_by_role("button", name="Take theirs").click()

        await expect(page.get_by_role("dialog")).to_have_count(0)
        await expect(page.get_by_test_id("choice-1")).to_contain_text("Trail the stranger")
        labels = [choice["label"] for choice in (await scene_of(author, scribe, "The Tavern"))["choices"]]
        assert labels == ["Trail the stranger", "Return to the harbor"]


async def test_a_chapter_renamed_by_the_agent_while_the_author_renames_it_asks_in_words(
    author: Author, open_page: OpenPage, token: str
):
    async with scribe_of(author, token) as scribe:
        page = await open_page(author, author.chapters["Dawn"])
        await expect(page.get_by_test_id("chapter-title")).to_have_text("Dawn")
        await page.get_by_role("button", name="Rename the chapter").click()
        dialog = page.get_by_role("dialog")
        await dialog.get_by_label("Chapter title").fill("Dawn over Saltreach")
        chapter_id = author.chapters["Dawn"].rsplit("/", 1)[1]
        await scribe.call("romergo_update_chapter", chapter_id=chapter_id, title="Dawn at Last")
        await expect(dialog.get_by_test_id("draft-changed")).to_have_text(CHANGED.format(who=BY_SCRIBE))

        await dialog.get_by_role("button", name="Save").click()
        view = conflict_view(page)
        await expect(view.get_by_role("heading", name="Changed since you opened it")).to_be_visible()
        await expect(view.get_by_test_id("conflict-who")).to_have_text(
            re.compile(rf"Changed by {BY_SCRIBE}, \d+ s ago\. Nothing is saved until you pick\.")
        )
        title = view.get_by_test_id("conflict-field")
        await expect(title).to_have_attribute("data-field", "title")
        await expect(title.get_by_test_id("conflict-theirs").locator("ins")).to_have_text(["at Last"])
        await expect(title.get_by_test_id("conflict-yours").locator("ins")).to_have_text(["over Saltreach"])
        # Nothing is written until the author picks.
        assert (
            data(await scribe.call("romergo_get_chapter", chapter_id=chapter_id))["title"] == "Dawn at Last"
        )

        await view.get_by_label("Merged text").fill("Dawn at Last over Saltreach")
        await view.get_by_role("button", name="Save merged text").click()
        await expect(page.get_by_role("dialog")).to_have_count(0)
        await expect(page.get_by_test_id("chapter-title")).to_have_text("Dawn at Last over Saltreach")
        chapter = data(await scribe.call("romergo_get_chapter", chapter_id=chapter_id))
        assert chapter["title"] == "Dawn at Last over Saltreach"


async def test_a_name_typed_in_one_tab_and_a_colour_saved_in_another_are_both_kept(
    author: Author, open_page: OpenPage, token: str
):
    async with scribe_of(author, token) as scribe:
        mine = await open_page(author, f"{author.demo_path}/characters")
        other = await open_page(author, f"{author.demo_path}/characters")
        await mine.get_by_role("button", name="Edit Old Tom").click()
        form = mine.get_by_role("dialog")
        await form.get_by_label("Name").fill("Tom Hale")

        await other.get_by_role("button", name="Edit Old Tom").click()
        await other.get_by_role("dialog").get_by_label("Colour").fill("#16a085")
        await other.get_by_role("dialog").get_by_role("button", name="Save").click()
        await expect(other.get_by_role("dialog")).to_have_count(0)

        await expect(form.get_by_test_id("draft-changed")).to_have_text(
            CHANGED.format(who="you, in another tab")
        )
        await form.get_by_role("button", name="Save").click()
        await expect(mine.get_by_role("dialog")).to_have_count(0)
        await expect(other.get_by_role("listitem").filter(has_text="Tom Hale")).to_have_count(1)
        tom = _character(
            data(await scribe.call("romergo_get_project_outline", project_id=author.demo_id)), "Tom Hale"
        )
        assert tom["color"] == "#16a085"


async def test_a_variables_description_changed_on_both_sides_asks_and_keep_mine_keeps_the_authors(
    author: Author, open_page: OpenPage, token: str
):
    async with scribe_of(author, token) as scribe:
        page = await open_page(author, f"{author.demo_path}/variables")
        await page.get_by_role("button", name="Edit lens_mended").click()
        form = page.get_by_role("dialog")
        await form.get_by_label("What it tracks").fill("The lens is whole again.")
        variable = _variable(data(await scribe.call("romergo_list_variables", project_id=author.demo_id)))
        await scribe.call(
            "romergo_update_variable", variable_id=variable["id"], description="Mended with sea glass."
        )
        await expect(form.get_by_test_id("draft-changed")).to_have_text(CHANGED.format(who=BY_SCRIBE))

        await form.get_by_role("button", name="Save").click()
        view = conflict_view(page)
        await expect(view.get_by_test_id("conflict-field")).to_have_attribute("data-field", "description")
        await expect(view.get_by_test_id("conflict-field")).to_contain_text("Description")
        await view.get_by_role("button", name="Keep mine").click()

        await expect(page.get_by_role("dialog")).to_have_count(0)
        await expect(page.get_by_test_id("variable-lens_mended")).to_contain_text("The lens is whole again.")
        variable = _variable(data(await scribe.call("romergo_list_variables", project_id=author.demo_id)))
        assert variable["description"] == "The lens is whole again."


async def test_the_agent_sets_the_music_while_the_author_writes_what_entering_sets_and_both_are_kept(
    author: Author, open_page: OpenPage, token: str
):
    async with scribe_of(author, token) as scribe:
        page = await open_page(author, author.scenes["The Logbook"])
        await page.get_by_role("button", name="Edit what entering this scene sets").click()
        form = page.get_by_role("dialog")
        await form.get_by_role("textbox").fill("set has_key = true")
        scene_id = author.scenes["The Logbook"].rsplit("/", 1)[1]
        music = data(
            await scribe.call("romergo_search_assets", project_id=author.demo_id, query="Dawn Fanfare")
        )
        await scribe.call("romergo_set_scene_music", scene_id=scene_id, asset_id=music["assets"][0]["id"])
        await expect(page.get_by_test_id("music-status")).to_contain_text("Scene music “Dawn Fanfare”")
        await expect(form.get_by_test_id("draft-changed")).to_have_text(CHANGED.format(who=BY_SCRIBE))

        await form.get_by_role("button", name="Save").click()
        await expect(page.get_by_role("dialog")).to_have_count(0)
        await expect(page.get_by_test_id("entry-effects-text")).to_have_text("set has_key = true")
        await expect(page.get_by_test_id("music-status")).to_contain_text("Scene music “Dawn Fanfare”")
        scene = await scene_of(author, scribe, "The Logbook")
        assert (scene["scene"]["entry_effects"], scene["music"]["name"]) == (
            "set has_key = true",
            "Dawn Fanfare",
        )


def _character(outline: dict[str, Any], name: str) -> dict[str, Any]:
    found: dict[str, Any] = next(c for c in outline["characters"] if c["name"] == name)
    return found


def _variable(listing: dict[str, Any]) -> dict[str, Any]:
    found: dict[str, Any] = next(v for v in listing["variables"] if v["name"] == "lens_mended")
    return found
