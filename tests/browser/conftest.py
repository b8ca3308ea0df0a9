"""Browser tests: Playwright's async API driving Debian's Chromium against a real server process.

One server per test module (started once, shared by its tests) and one browser per session; each
test gets a fresh browser context, so cookies never leak between tests.

Editor tests use `author` (per module: the server's first account and its demo, signed in once
with the printed one-time link; per test, `own_author`, in modules whose tests change the story)
and `open_page(author, path)`, which opens a new browser context carrying that session: signing
in again for every page would hit the sign-in rate limit.
"""

from __future__ import annotations

import re
import shutil
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from uuid import uuid4

import pytest
from playwright.async_api import Browser, BrowserContext, Page, async_playwright, expect
from playwright.async_api import Error as PlaywrightError

from tests.support.authors import new_author, sign_in_link
from tests.support.server import RunningServer

CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-dev-shm-usage",
]
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"
VIEWPORT: Any = {"width": 1280, "height": 900}


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
    created = await browser.new_context(viewport=VIEWPORT)
    created.set_default_timeout(10_000)
    yield created
    failed = getattr(request.node, "rep_call", None)
    if failed is not None and failed.failed:
        ARTIFACTS.mkdir(exist_ok=True)
        for index, page in enumerate(created.pages):
            await page.screenshot(path=str(ARTIFACTS / f"{request.node.name}-{index}.png"))
    await created.close()


@pytest.fixture
async def page(context: BrowserContext, request: pytest.FixtureRequest) -> Page:
    opened = await context.new_page()
    listen(opened, request.node)
    return opened


@pytest.hookimpl(tryfirst=True, hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[None]:
    outcome = yield
    report = outcome.get_result()  # type: ignore[attr-defined]
    setattr(item, f"rep_{report.when}", report)
    if report.when == "call" and report.failed:
        # CI runs on a clone that is gone afterwards, with test-artifacts/ in it: what the server
        # and the pages said goes into the failure's report, which CI's output keeps.
        report.sections.extend(_what_was_said(item))


REPORTED_LINES = 40
CONSOLE: pytest.StashKey[list[str]] = pytest.StashKey()


def listen(page: Page, item: pytest.Item) -> None:
    """Keep what `page` logs, for the report of a test that fails."""
    said = item.stash.setdefault(CONSOLE, [])
    page.on("console", lambda message: said.append(f"{message.type}: {message.text}"))
    page.on("pageerror", lambda error: said.append(f"page error: {error}"))


def _what_was_said(item: pytest.Item) -> list[tuple[str, str]]:
    sections = []
    arguments = getattr(item, "funcargs", {}).values()
    servers = {id(s): s for s in arguments if isinstance(s, RunningServer)}
    servers |= {id(a.server): a.server for a in arguments if isinstance(a, Author)}
    for server in servers.values():
        tail = server.tail(REPORTED_LINES) or "(nothing)"
        sections.append((f"the server's last {REPORTED_LINES} lines", tail))
    console = item.stash.get(CONSOLE, [])
    if console:
        sections.append(("the pages' console", "\n".join(console[-REPORTED_LINES:])))
    return sections


@dataclass
class Author:
    """A signed-in author with a fresh demo; every browser context opened for them shares the session."""

    server: RunningServer
    username: str
    state: Any
    demo_id: str
    scenes: dict[str, str]
    """Demo scene title → its editor path."""
    chapters: dict[str, str]
    """Demo chapter title → its page path."""

    @property
    def demo_path(self) -> str:
        return f"/projects/{self.demo_id}"

    def url(self, path: str) -> str:
        return self.server.base_url + path


async def reload_after_restart(page: Page, attempts: int = 3) -> None:
    """Reload a page whose server just restarted. NiceGUI's client reloads the page by itself when
    it reconnects to a new server process; a reload of ours that races it is aborted
    (net::ERR_ABORTED), so reload again until one completes."""
    for attempt in range(1, attempts + 1):
        try:
            await page.reload()
            return
        except PlaywrightError as error:
            if "ERR_ABORTED" not in str(error) or attempt == attempts:
                raise


async def sign_in(page: Page, server: RunningServer, username: str, password: str) -> None:
    await page.goto(f"{server.base_url}/login")
    await page.get_by_label("Username").fill(username)
    await page.get_by_label("Password").fill(password)
    await page.get_by_role("button", name="Sign in").click()
    await page.wait_for_url(f"{server.base_url}/projects")


async def make_author(server: RunningServer, browser: Browser, username: str | None = None) -> Author:
    """Without `username`: the first account (`author`, demo seeded at first start), signed in with
    the one-time link the server printed. With one: a new account with its own demo (via the CLI),
    signed in with a one-time link of its own, which lands on that demo (the form and its password
    check, a second of a browser's time each, are tested in test_sign_in.py)."""
    context = await browser.new_context()
    page = await context.new_page()
    if username is None:
        assert server.signin_url, "the printed sign-in link was already used"
        await page.goto(server.signin_url)
        server.signin_url = ""
        await expect(page).to_have_url(re.compile(r"/projects/prj_[a-z0-9]+$"))
        username, demo_id = "author", page.url.rsplit("/", 1)[1]
    else:
        made = new_author(server, username)
        await page.goto(sign_in_link(server, made.username))
        await expect(page).to_have_url(f"{server.base_url}/projects/{made.demo_id}")
        demo_id = made.demo_id
    tree = page.get_by_test_id("story-tree")
    await expect(tree).to_be_visible()
    links = await tree.get_by_role("link").evaluate_all(
        "links => links.map(a => [a.textContent.trim(), a.getAttribute('href')])"
    )
    state = await context.storage_state()
    await context.close()
    return Author(
        server,
        username,
        state,
        demo_id,
        scenes={text: href for text, href in links if "/scenes/" in href},
        chapters={text: href for text, href in links if "/chapters/" in href},
    )


@pytest.fixture(scope="module")
async def author(server: RunningServer, browser: Browser) -> Author:
    return await make_author(server, browser)


@pytest.fixture
async def own_author(server: RunningServer, browser: Browser) -> Author:
    """A new account with its own demo, for one test alone: modules whose tests change the story
    use it as their `author`, so each test starts from the demo as seeded, in any order."""
    return await make_author(server, browser, f"author-{uuid4().hex[:8]}")


OpenPage = Callable[..., Awaitable[Page]]


@pytest.fixture
async def open_page(browser: Browser, request: pytest.FixtureRequest) -> AsyncIterator[OpenPage]:
    """Opens `path` in a new browser context signed in as `author` (one context per call)."""
    contexts: list[BrowserContext] = []

    async def opener(author: Author, path: str = "/projects", *, width: int | None = None) -> Page:
        viewport = VIEWPORT if width is None else {**VIEWPORT, "width": width}
        created = await browser.new_context(storage_state=author.state, viewport=viewport)
        created.set_default_timeout(10_000)
        contexts.append(created)
        opened = await created.new_page()
        listen(opened, request.node)
        await opened.goto(author.url(path))
        return opened

    yield opener
    failed = getattr(request.node, "rep_call", None)
    if failed is not None and failed.failed:
        ARTIFACTS.mkdir(exist_ok=True)
        server: RunningServer = request.getfixturevalue("server")
        (ARTIFACTS / f"{request.node.name}-server.log").write_text(server.log())
        for number, created in enumerate(contexts):
            for index, shown in enumerate(created.pages):
                await shown.screenshot(path=str(ARTIFACTS / f"{request.node.name}-{number}-{index}.png"))
    for created in contexts:
        await created.close()
