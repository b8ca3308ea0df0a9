"""Benchmark: what the author sees of the agent's work, in Chromium.

- report → panel: the agent's `romergo_report_builder_event` until its text shows in the panel;
- tool edit → editor: `romergo_update_dialogue_line` until the open scene page shows the new text.

The demo project's scene "The Beacon" is open in Debian's Chromium, with a channel made from the
panel; the agent is the SDK client with a personal token. The page records when the text appears
(a MutationObserver armed before the call, `Date.now()`), compared with the wall clock of this
process when the call was made: both run on this machine, so their clocks agree.
"""

from __future__ import annotations

import shutil
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

from playwright.async_api import Page, async_playwright, expect

from tests.browser.conftest import CHROMIUM_ARGS
from tests.support.agents import Agent, agent
from tests.support.oauth import personal_token
from tests.support.panel import invite, panel, send
from tests.support.server import RunningServer

ARM = """([selector, text]) => {
    window.benchSeen = new Promise(resolve => {
        const seen = () => [...document.querySelectorAll(selector)].some(e => e.textContent.includes(text));
        if (seen()) return resolve(Date.now());
        const observer = new MutationObserver(() => {
            if (seen()) { observer.disconnect(); resolve(Date.now()); }
        });
        observer.observe(document.body, {childList: true, subtree: true, characterData: true});
    });
}"""
PANEL_TEXT = "[data-testid=agent-panel] *"
LINE_TEXT = "[data-testid=line-text]"


async def measure(rounds: int, progress: Callable[[str], None]) -> dict[str, list[float]]:
    with tempfile.TemporaryDirectory() as folder:
        server = RunningServer(Path(folder), env={"ROMERGO_RATE_LIMIT_PER_MINUTE": "100000"}).start()
        try:
            token = personal_token(server, "author")
            executable = shutil.which("chromium")
            assert executable, "Debian's chromium is required: scripts/test installs it"
            async with async_playwright() as playwright:
                browser = await playwright.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
                page = await (await browser.new_context()).new_page()
                await page.goto(server.signin_url)
                await expect(page.get_by_test_id("story-tree")).to_be_visible()
                await page.get_by_role("link", name="The Beacon").click()
                await expect(page.get_by_test_id("scene-title")).to_have_text("The Beacon")
                code = await invite(page)
                async with agent(server.base_url, token) as me:
                    progress("the agent holds a command; measuring")
                    found = await _rounds(page, me, code, rounds)
                await browser.close()
            return found
        finally:
            server.stop()


async def _rounds(page: Page, me: Agent, code: str, rounds: int) -> dict[str, list[float]]:
    joined = await me.call("romergo_join_builder_channel", code=code)
    channel_id = joined["channel_id"]
    await send(page, "Benchmark: tidy this scene")
    got = await me.call(
        "romergo_wait_for_builder_command", channel_id=channel_id, cursor=joined["cursor"], timeout_seconds=30
    )
    command_id = got["command"]["command_id"]
    scene_id = got["command"]["context"]["untrusted_content"]["data"]["scene_id"]
    scene = await me.call("romergo_get_scene", scene_id=scene_id)
    line_id = scene["untrusted_content"]["data"]["lines"][0]["id"]
    await expect(panel(page)).to_be_visible()
    reports: list[float] = []
    edits: list[float] = []
    for n in range(rounds):
        text = f"Working on it, step {n} ({time.monotonic_ns()})"
        reports.append(
            await _until_shown(
                page,
                PANEL_TEXT,
                text,
                me.call("romergo_report_builder_event", command_id=command_id, kind="status", text=text),
            )
        )
        line = f"The lamp turns, take {n} ({time.monotonic_ns()})"
        edits.append(
            await _until_shown(
                page,
                LINE_TEXT,
                line,
                me.call("romergo_update_dialogue_line", line_id=line_id, text=line, command_id=command_id),
            )
        )
    return {"report → panel": reports, "tool edit → editor": edits}


async def _until_shown(page: Page, selector: str, text: str, call: Awaitable[object]) -> float:
    """Milliseconds from making `call` until `text` shows in the page under `selector`."""
    await page.evaluate(ARM, [selector, text])
    started = time.time() * 1000
    await call
    seen: float = await page.evaluate("window.benchSeen")
    return seen - started
