"""The asset library: upload, preview, tags, where each asset is used, delete; refused uploads.

This module's server allows 1 MB images and 2 MB audio, so "too large" needs only small files.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from playwright.async_api import expect

from tests.browser.conftest import Author, OpenPage
from tests.support.server import RunningServer
from tests.support.story import TINY_PNG, TINY_WAV

MB = 1024 * 1024


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningServer]:
    limits = {"ROMERGO_MAX_IMAGE_MB": "1", "ROMERGO_MAX_AUDIO_MB": "2"}
    running = RunningServer(tmp_path_factory.mktemp("server"), env=limits).start()
    yield running
    running.stop()


async def test_upload_preview_tags_usage_and_delete(author: Author, open_page: OpenPage):
    page = await open_page(author, f"{author.demo_path}/assets")
    upload = page.get_by_test_id("asset-upload")
    await upload.get_by_label("Tags for new files (comma-separated)").fill("sea, Night")
    await upload.locator("input[type=file]").set_input_files(
        files=[
            {"name": "Night Sea.png", "mimeType": "image/png", "buffer": TINY_PNG},
        ]
    )
    card = page.get_by_role("listitem", name="Night Sea")
    await expect(card).to_be_visible()
    await expect(card).to_contain_text("background")
    await expect(card).to_contain_text("image/png")
    await expect(card.get_by_role("img", name="Night Sea")).to_be_visible()
    await expect(card.get_by_text("sea", exact=True)).to_be_visible()
    await expect(card.get_by_text("night", exact=True)).to_be_visible()  # tags are kept lowercase

    # Audio goes by its content: a WAV becomes music.
    await upload.locator("input[type=file]").set_input_files(
        files=[{"name": "Waves.wav", "mimeType": "audio/wav", "buffer": TINY_WAV}]
    )
    waves = page.get_by_role("listitem", name="Waves")
    await expect(waves).to_contain_text("music")
    await expect(waves.locator("audio")).to_have_attribute("src", re.compile(r"^/media/ast_"))

    await page.get_by_role("button", name="Edit Night Sea").click()
    dialog = page.get_by_role("dialog")
    await dialog.get_by_label("Tags (comma-separated)").fill("sea, night, calm")
    await dialog.get_by_role("button", name="Save").click()
    await expect(card.get_by_text("calm", exact=True)).to_be_visible()

    # Used by a scene: the library says where, with a link there.
    await expect(card.get_by_test_id("asset-usage")).to_have_text("Not used yet.")
    scene = await open_page(author, author.scenes["The Beacon"])
    await scene.get_by_test_id("background-slot").get_by_label("Background", exact=True).click()
    await scene.get_by_role("option", name="Night Sea", exact=True).click()
    await expect(scene.get_by_test_id("background-status")).to_have_text("Scene background: “Night Sea”.")
    await expect(card.get_by_test_id("asset-usage")).to_contain_text("The Beacon (background)")

    # Deleting asks first, says what uses it, and clears that slot.
    await page.get_by_role("button", name="Delete Night Sea").click()
    await expect(page.get_by_role("dialog")).to_contain_text("It is used 1 time(s); those places lose it.")
    await page.get_by_role("dialog").get_by_role("button", name="Cancel").click()
    await expect(card).to_be_visible()
    await page.get_by_role("button", name="Delete Night Sea").click()
    await page.get_by_role("dialog").get_by_role("button", name="Delete").click()
    await expect(card).to_have_count(0)
    await expect(scene.get_by_test_id("background-status")).to_have_text(
        "No background: neither this scene nor its chapter has any."
    )


async def test_an_oversized_upload_is_refused_by_the_server_and_saves_nothing(
    author: Author, open_page: OpenPage
):
    page = await open_page(author, f"{author.demo_path}/assets")
    listed = page.get_by_role("listitem")
    await expect(listed.first).to_be_visible()
    before = await listed.count()

    # 1.5 MB that starts like a PNG: the library accepts up to 2 MB in the browser (audio may be that
    # big), so the server's own check is the one that refuses it.
    big = TINY_PNG + bytes(int(1.5 * MB))
    await (
        page.get_by_test_id("asset-upload")
        .locator("input[type=file]")
        .set_input_files(files=[{"name": "Huge.png", "mimeType": "image/png", "buffer": big}])
    )
    await expect(
        page.get_by_text(f"The file has {len(big):,} bytes; the limit for a background is {MB:,} bytes.")
    ).to_be_visible()
    await expect(page.get_by_role("listitem", name="Huge")).to_have_count(0)
    assert await listed.count() == before

    # Beyond what any upload may be, the browser refuses it before sending anything.
    await (
        page.get_by_test_id("asset-upload")
        .locator("input[type=file]")
        .set_input_files(files=[{"name": "Bigger.wav", "mimeType": "audio/wav", "buffer": bytes(3 * MB)}])
    )
    await expect(
        page.get_by_text("That file was not accepted: it must be an image or audio file of at most 2 MB.")
    ).to_be_visible()
    await expect(page.get_by_role("listitem", name="Bigger")).to_have_count(0)


async def test_an_idle_uploader_shows_no_empty_progress(author: Author, open_page: OpenPage):
    for path in (f"{author.demo_path}/assets", "/projects"):
        page = await open_page(author, path)
        uploader = page.locator(".q-uploader").first
        await expect(uploader).to_be_visible()
        await expect(uploader.get_by_text("0.0B")).to_be_hidden()
        await expect(uploader.get_by_text("0.00%")).to_be_hidden()
