"""Browser tests: Playwright's async API driving Debian's Chromium against a real server process.

One server per test module (started once, shared by its tests) and one browser per session; each
test gets a fresh browser context, so cookies never leak between tests.
"""

from __future__ import annotations

import shutil
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
from playwright.async_api import Browser, BrowserContext, Page, async_playwright

from tests.support.server import RunningServer

CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-dev-shm-usage",
]
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if "tests/browser/" in str(item.fspath):
            item.add_marker(pytest.mark.browser)


@pytest.fixture(scope="session")
async def browser() -> AsyncIterator[Browser]:
    executable = shutil.which("chromium")
    assert executable, "Debian's chromium is required: scripts/test installs it"
    async with async_playwright() as playwright:
        launched = await playwright.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
        yield launched
        await launched.close()


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningServer]:
    running = RunningServer(tmp_path_factory.mktemp("server")).start()
    yield running
    running.stop()


@pytest.fixture
async def context(browser: Browser, request: pytest.FixtureRequest) -> AsyncIterator[BrowserContext]:
    created = await browser.new_context(viewport={"width": 1280, "height": 900})
    created.set_default_timeout(10_000)
    yield created
    failed = getattr(request.node, "rep_call", None)
    if failed is not None and failed.failed:
        ARTIFACTS.mkdir(exist_ok=True)
        for index, page in enumerate(created.pages):
            await page.screenshot(path=str(ARTIFACTS / f"{request.node.name}-{index}.png"))
    await created.close()


@pytest.fixture
async def page(context: BrowserContext) -> Page:
    return await context.new_page()


@pytest.hookimpl(tryfirst=True, hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[None]:
    outcome = yield
    report = outcome.get_result()  # type: ignore[attr-defined]
    setattr(item, f"rep_{report.when}", report)
