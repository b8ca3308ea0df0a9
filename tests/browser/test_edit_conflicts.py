"""Two hands on one line: the author's open draft and their agent never overwrite each other
silently. Fields changed by one side merge; the same field changed on both is the conflict view's
choice; an open draft says at once when its line changed, and by whom."""

from __future__ import annotations

import re

import pytest
from playwright.async_api import Locator, Page, expect

from tests.browser.conftest import Author, OpenPage
from tests.browser.scribe import BY_SCRIBE, CHANGED, SCENE, choices_to_set, conflict_view, scene_of, scribe_of
from tests.support.agents import Agent, data

LINE_1 = "You strike a match. Through the cracked lens the beam still reaches the sea."
MINE = "You strike a match. The beam crawls out over the black water."
THEIRS = "You strike the last match. Through the cracked lens the beam still reaches the sea."


@pytest.fixture
def author(own_author: Author) -> Author:
    """The agent changes the story: each test gets a demo of its own."""
    return own_author


async def draft_of_line_1(page: Page, text: str, *, shown: str = LINE_1) -> Locator:
    """Open line 1 (showing `shown`) for editing and type `text` into its draft."""
    await expect(page.get_by_test_id("line-text").first).to_have_text(shown)
    await page.get_by_role("button", name="Edit line 1").click()
    editing = page.get_by_test_id("line-1")
    await editing.get_by_label("Line text").fill(text)
    return editing


async def clash_on_line_1(
    page: Page, scribe: Agent, line_id: str, theirs: str, *, shown: str = LINE_1
) -> Locator:
    """The author's draft of line 1 (showing `shown`) says MINE; the scribe writes `theirs` to the
    line; the draft says so at once and the author saves. Returns the conflict view."""
    editing = await draft_of_line_1(page, MINE, shown=shown)
    await scribe.call("romergo_update_dialogue_line", line_id=line_id, text=theirs)
    await expect(editing.get_by_test_id("draft-changed")).to_be_visible()
    await editing.get_by_role("button", name="Save").click()
    return conflict_view(page)


async def test_the_agent_changes_the_speaker_the_author_the_text_and_both_are_kept(
    author: Author, open_page: OpenPage
):
    async with scribe_of(author) as scribe:
        page = await open_page(author, author.scenes[SCENE])
        editing = await draft_of_line_1(page, MINE)
        scene = await scene_of(author, scribe)
        outline = data(await scribe.call("romergo_get_project_outline", project_id=author.demo_id))
        mara = next(c["id"] for c in outline["characters"] if c["name"] == "Mara")

        await scribe.call("romergo_update_dialogue_line", line_id=scene["lines"][0]["id"], character_id=mara)

        # The open draft says so at once, and keeps what the author typed.
        await expect(editing.get_by_test_id("draft-changed")).to_have_text(CHANGED.format(who=BY_SCRIBE))
        await expect(editing.get_by_label("Line text")).to_have_value(MINE)
        await editing.get_by_role("button", name="Save").click()
        await expect(page.get_by_test_id("line-text").first).to_have_text(MINE)
        await expect(page.get_by_test_id("line-1")).to_contain_text("Mara")
        await expect(page.get_by_role("dialog")).to_have_count(0)
        line = (await scene_of(author, scribe))["lines"][0]
        assert (line["text"], line["character_id"]) == (MINE, mara)


async def test_the_same_text_changed_on_both_sides_asks_and_keep_mine_keeps_it(
    author: Author, open_page: OpenPage
):
    async with scribe_of(author) as scribe:
        page = await open_page(author, author.scenes[SCENE])
        line_id = (await scene_of(author, scribe))["lines"][0]["id"]
        view = await clash_on_line_1(page, scribe, line_id, THEIRS)

        await expect(view.get_by_role("heading", name="Changed since you opened it")).to_be_visible()
        await expect(view.get_by_test_id("conflict-who")).to_have_text(
            re.compile(r"Changed by your agent “Scribe”, \d+ s ago\. Nothing is saved until you pick\.")
        )
        theirs, yours = view.get_by_test_id("conflict-theirs"), view.get_by_test_id("conflict-yours")
        await expect(theirs.locator("ins")).to_have_text(["the last "])  # their words, as a word diff
        await expect(yours.locator("ins")).to_have_text(["The beam crawls out over", "black", "water"])
        # Nothing is written until the author picks.
        assert (await scene_of(author, scribe))["lines"][0]["text"] == THEIRS

        await view.get_by_role("button", name="Keep mine").click()
        await expect(page.get_by_test_id("line-text").first).to_have_text(MINE)
        assert (await scene_of(author, scribe))["lines"][0]["text"] == MINE


async def test_take_theirs_leaves_the_agents_text_and_a_merged_text_is_saved_as_typed(
    author: Author, open_page: OpenPage
):
    async with scribe_of(author) as scribe:
        page = await open_page(author, author.scenes[SCENE])
        line_id = (await scene_of(author, scribe))["lines"][0]["id"]
        view = await clash_on_line_1(page, scribe, line_id, THEIRS)
        await view.get_by_role("button", name="Take theirs").click()
        await expect(page.get_by_test_id("line-text").first).to_have_text(THEIRS)
        await expect(page.get_by_test_id("line-1").get_by_label("Line text")).to_have_count(0)
        assert (await scene_of(author, scribe))["lines"][0]["text"] == THEIRS

        # Again, now merging both by hand.
        merged = "You strike the last match. The beam crawls out over the black water."
        view = await clash_on_line_1(page, scribe, line_id, LINE_1, shown=THEIRS)
        await view.get_by_label("Merged text").fill(merged)
        await view.get_by_role("button", name="Save merged text").click()
        await expect(page.get_by_test_id("line-text").first).to_have_text(merged)
        assert (await scene_of(author, scribe))["lines"][0]["text"] == merged


async def test_back_to_my_draft_writes_nothing_and_keeps_the_draft(author: Author, open_page: OpenPage):
    async with scribe_of(author) as scribe:
        page = await open_page(author, author.scenes[SCENE])
        line_id = (await scene_of(author, scribe))["lines"][0]["id"]
        view = await clash_on_line_1(page, scribe, line_id, THEIRS)
        await view.get_by_role("button", name="Back to my draft").click()
        await expect(page.get_by_role("dialog")).to_have_count(0)
        await expect(page.get_by_test_id("line-1").get_by_label("Line text")).to_have_value(MINE)
        assert (await scene_of(author, scribe))["lines"][0]["text"] == THEIRS


async def test_a_change_from_another_tab_is_named_as_yours(author: Author, open_page: OpenPage):
    first = await open_page(author, author.scenes[SCENE])
    second = await open_page(author, author.scenes[SCENE])
    editing = await draft_of_line_1(first, MINE)
    other = await draft_of_line_1(second, THEIRS)
    await other.get_by_role("button", name="Save").click()
    await expect(second.get_by_test_id("line-text").first).to_have_text(THEIRS)

    await expect(editing.get_by_test_id("draft-changed")).to_have_text(
        CHANGED.format(who="you, in another tab")
    )
    await editing.get_by_role("button", name="Save").click()
    view = first.get_by_role("dialog")
    await expect(view.get_by_test_id("conflict-who")).to_contain_text("Changed by you, in another tab, ")
    await view.get_by_role("button", name="Keep mine").click()
    await expect(second.get_by_test_id("line-text").first).to_have_text(MINE)


async def test_a_rename_dialog_opened_before_the_agent_renamed_the_scene_asks_and_take_theirs_keeps_it(
    author: Author, open_page: OpenPage
):
    async with scribe_of(author) as scribe:
        page = await open_page(author, author.scenes[SCENE])
        await expect(page.get_by_test_id("scene-title")).to_have_text(SCENE)
        await page.get_by_role("button", name="Rename the scene").click()
        await page.get_by_role("dialog").get_by_role("textbox").fill("The Lit Beacon")
        scene_id = author.scenes[SCENE].rsplit("/", 1)[1]
        await scribe.call("romergo_update_scene", scene_id=scene_id, title="The Signal")
        await expect(page.get_by_test_id("scene-title")).to_have_text("The Signal")
        await expect(page.get_by_role("dialog").get_by_test_id("draft-changed")).to_have_text(
            CHANGED.format(who=BY_SCRIBE)
        )

        await page.get_by_role("dialog").get_by_role("button", name="Save").click()
        view = conflict_view(page)
        await expect(view.get_by_test_id("conflict-who")).to_contain_text("Changed by your agent “Scribe”")
        await view.get_by_role("button", name="Take theirs").click()
        await expect(page.get_by_role("dialog")).to_have_count(0)
        await expect(page.get_by_test_id("scene-title")).to_have_text("The Signal")
        assert (await scene_of(author, scribe))["scene"]["title"] == "The Signal"


async def test_the_author_edits_one_choice_the_agent_another_and_both_are_kept(
    author: Author, open_page: OpenPage
):
    async with scribe_of(author) as scribe:
        page = await open_page(author, author.scenes[SCENE])
        await expect(page.get_by_test_id("choice-1")).to_contain_text("Go down to the pier")
        await page.get_by_role("button", name="Edit choice 1").click()
        dialog = page.get_by_role("dialog")
        await dialog.get_by_label("Choice label").fill("Run down to the pier")
        scene = await scene_of(author, scribe)
        theirs = choices_to_set(scene)
        theirs[1]["label"] = "Flash the lamp at the ship"
        await scribe.call(
            "romergo_set_choices",
            scene_id=scene["scene"]["id"],
            choices=theirs,
            expected_revision=scene["scene"]["revision"],
        )
        await expect(page.get_by_test_id("choice-2")).to_contain_text("Flash the lamp at the ship")

        await dialog.get_by_role("button", name="Save").click()

        await expect(page.get_by_role("dialog")).to_have_count(0)
        await expect(page.get_by_test_id("choice-1")).to_contain_text("Run down to the pier")
        await expect(page.get_by_test_id("choice-2")).to_contain_text("Flash the lamp at the ship")
        choices = (await scene_of(author, scribe))["choices"]
        assert [(c["id"], c["label"]) for c in choices] == [
            (theirs[0]["id"], "Run down to the pier"),
            (theirs[1]["id"], "Flash the lamp at the ship"),
        ]
