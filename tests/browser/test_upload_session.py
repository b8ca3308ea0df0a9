"""NiceGUI's upload URL needs the signed-in session of the tab behind it.

The URL of a real upload box is taken from a real upload in the browser; replayed without a
session cookie, with a forged one or with another author's session it gets 403 and adds nothing,
while the tab's own session still uploads through it.
"""

from __future__ import annotations

import httpx
from playwright.async_api import expect

from romergo.access.accounts.service import SESSION_COOKIE
from tests.browser.conftest import Author, OpenPage
from tests.support.oauth import add_user, signed_in
from tests.support.server import RunningServer
from tests.support.story import TINY_PNG

SESSION = SESSION_COOKIE


def png(name: str) -> dict[str, tuple[str, bytes, str]]:
    return {"file": (f"{name}.png", TINY_PNG, "image/png")}


async def test_an_upload_needs_the_session_of_the_tab_that_shows_the_box(
    server: RunningServer, author: Author, open_page: OpenPage
):
    page = await open_page(author, f"{author.demo_path}/assets")
    upload = page.get_by_test_id("asset-upload")
    async with page.expect_request(lambda request: "/upload/" in request.url) as sent:
        await upload.locator("input[type=file]").set_input_files(
            files=[{"name": "Genuine.png", "mimeType": "image/png", "buffer": TINY_PNG}]
        )
    url = (await sent.value).url
    await expect(page.get_by_role("listitem", name="Genuine")).to_be_visible()
    own = next(cookie["value"] for cookie in await page.context.cookies() if cookie["name"] == SESSION)

    add_user(server, "mallory", demo=False)
    async with signed_in(server.base_url, "mallory") as mallory, httpx.AsyncClient() as http:
        for cookie in (
            {},
            {"Cookie": f"{SESSION}=forged"},
            {"Cookie": f"{SESSION}={mallory.cookies[SESSION]}"},
        ):
            refused = await http.post(url, files=png("Planted"), headers=cookie)
            assert refused.status_code == 403, (cookie, refused.text)
            assert "signed-in session" in refused.json()["detail"]
        accepted = await http.post(url, files=png("Rightful"), headers={"Cookie": f"{SESSION}={own}"})
        assert accepted.status_code == 200, accepted.text

    await expect(page.get_by_role("listitem", name="Rightful")).to_be_visible()
    await page.reload()
    await expect(page.get_by_role("listitem", name="Rightful")).to_be_visible()
    await expect(page.get_by_role("listitem", name="Planted")).to_have_count(0)
