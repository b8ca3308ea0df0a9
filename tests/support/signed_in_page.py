"""A Chromium page signed in to a server process with a password, for security tests that watch
what an author sees while an agent attacks."""

from __future__ import annotations

import shutil
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from playwright.async_api import Page, async_playwright

from tests.support.oauth import PASSWORD
from tests.support.server import RunningServer


@asynccontextmanager
async def signed_in_page(server: RunningServer, username: str) -> AsyncIterator[Page]:
    executable = shutil.which("chromium")
    assert executable, "Debian's chromium is required: scripts/test installs it"
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(executable_path=executable, args=["--no-sandbox"])
        page = await browser.new_page()
        page.set_default_timeout(10_000)
        await page.goto(f"{server.base_url}/login")
        await page.get_by_label("Username").fill(username)
        await page.get_by_label("Password").fill(PASSWORD)
        await page.get_by_role("button", name="Sign in").click()
        await page.wait_for_url(lambda url: "/login" not in url)
        try:
            yield page
        finally:
            await browser.close()
