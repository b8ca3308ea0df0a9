"""Two browser pages on the same story: an edit in one shows in the other without a reload."""

from __future__ import annotations

from playwright.async_api import expect

from tests.browser.conftest import Author, OpenPage
from tests.support.story import TINY_PNG

LIVE = 5_000  # ms: how long the other page may take


async def test_a_scene_page_follows_edits_made_in_another_page(author: Author, open_page: OpenPage):
    path = author.scenes["The Lighthouse Door"]
    first, second = await open_page(author, path), await open_page(author, path)
    await expect(second.get_by_test_id("line-text")).to_have_count(2)

    form = first.get_by_test_id("new-line")
    await form.get_by_label("New line").fill("The hinges scream like gulls.")
    await form.get_by_role("button", name="Add line").click()
    await expect(second.get_by_test_id("line-3").get_by_test_id("line-text")).to_have_text(
        "The hinges scream like gulls.", timeout=LIVE
    )

    await first.get_by_test_id("background-slot").get_by_label("Background", exact=True).click()
    await first.get_by_role("option", name="Harbor at Dawn", exact=True).click()
    await expect(second.get_by_test_id("background-status")).to_have_text(
        "Scene background: “Harbor at Dawn”.", timeout=LIVE
    )

    await first.get_by_role("switch", name="Ending").click()
    await expect(second.get_by_role("switch", name="Ending")).to_have_attribute(
        "aria-checked", "true", timeout=LIVE
    )

    # A draft typed in the second page survives the first page's edits.
    await second.get_by_test_id("new-line").get_by_label("New line").fill("Half a thought")
    await first.get_by_role("button", name="Delete line 1").click()
    await expect(second.get_by_test_id("line-text")).to_have_count(2, timeout=LIVE)
    await expect(second.get_by_test_id("new-line").get_by_label("New line")).to_have_value("Half a thought")


async def test_the_project_tree_follows_a_moved_scene(author: Author, open_page: OpenPage):
    first, second = await open_page(author, author.demo_path), await open_page(author, author.demo_path)
    dawn = second.get_by_role("group", name="Chapter Dawn").get_by_role("listitem").get_by_role("link")
    await expect(dawn).to_have_text(["Confrontation on the Pier", "A New Keeper", "The Ship Sails Away"])

    await first.get_by_role("button", name="Move The Ship Sails Away up").click()
    await expect(dawn).to_have_text(
        ["Confrontation on the Pier", "The Ship Sails Away", "A New Keeper"], timeout=LIVE
    )
    # The first tab redraws its tree for its own move too: a menu opened before that would close.
    first_dawn = first.get_by_role("group", name="Chapter Dawn").get_by_role("listitem").get_by_role("link")
    await expect(first_dawn).to_have_text(
        ["Confrontation on the Pier", "The Ship Sails Away", "A New Keeper"]
    )
    await first.get_by_role("button", name="More actions for The Beacon").click()
    await first.get_by_role("menuitem", name="Move to Dawn").click()
    await expect(dawn).to_have_text(
        ["Confrontation on the Pier", "The Ship Sails Away", "A New Keeper", "The Beacon"], timeout=LIVE
    )


async def test_the_characters_page_follows_added_and_renamed_characters(author: Author, open_page: OpenPage):
    path = f"{author.demo_path}/characters"
    first, second = await open_page(author, path), await open_page(author, path)
    names = second.get_by_test_id("character-name")
    await expect(names).to_have_text(["Mara", "Old Tom", "The Stranger"])

    await first.get_by_label("New character name").fill("Harbour Master")
    await first.get_by_role("button", name="Add character").click()
    await expect(names).to_have_text(["Harbour Master", "Mara", "Old Tom", "The Stranger"], timeout=LIVE)

    await first.get_by_role("button", name="Edit Old Tom").click()
    await first.get_by_role("dialog").get_by_label("Name").fill("Tom Brine")
    await first.get_by_role("dialog").get_by_role("button", name="Save").click()
    await expect(names).to_have_text(["Harbour Master", "Mara", "The Stranger", "Tom Brine"], timeout=LIVE)


async def test_the_asset_library_follows_uploads_and_edits(author: Author, open_page: OpenPage):
    path = f"{author.demo_path}/assets"
    first, second = await open_page(author, path), await open_page(author, path)
    await expect(second.get_by_role("listitem", name="Tavern Glow")).to_be_visible()

    await (
        first.get_by_test_id("asset-upload")
        .locator("input[type=file]")
        .set_input_files(files=[{"name": "Lantern.png", "mimeType": "image/png", "buffer": TINY_PNG}])
    )
    lantern = second.get_by_role("listitem", name="Lantern")
    await expect(lantern).to_be_visible(timeout=LIVE)
    await expect(lantern.get_by_test_id("asset-usage")).to_have_text("Not used yet.")

    await first.get_by_role("button", name="Edit Lantern").click()
    await first.get_by_role("dialog").get_by_label("Name").fill("Storm Lantern")
    await first.get_by_role("dialog").get_by_role("button", name="Save").click()
    await expect(second.get_by_role("listitem", name="Storm Lantern")).to_be_visible(timeout=LIVE)
    await expect(second.get_by_role("listitem", name="Lantern", exact=True)).to_have_count(0)
