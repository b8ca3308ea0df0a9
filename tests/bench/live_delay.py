"""How long an edit in one browser page takes to show in another page on the same scene.

Not part of the suite. Run: `.venv/bin/python -m tests.bench.live_delay [--edits 20]`

Starts a real server on a temporary data dir, opens one scene of the demo in two browser contexts
(same author), and in page A adds dialogue lines / moves a scene in the tree. Page B records, in the
browser, the moment the new text appears (a MutationObserver), so the figure covers click → websocket
→ service → database → bus → B's re-read and redraw → B's DOM. Both pages run on this machine, so
their clocks (Date.now()) agree.
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import statistics
import tempfile
import time
from pathlib import Path

from playwright.async_api import Page, async_playwright, expect

from tests.browser.conftest import CHROMIUM_ARGS
from tests.support.server import RunningServer

WATCH = """text => new Promise(resolve => {
    const seen = () => [...document.querySelectorAll("[data-testid=line-text]")]
        .some(e => e.textContent === text);
    if (seen()) return resolve(Date.now());
    const observer = new MutationObserver(() => {
        if (seen()) { observer.disconnect(); resolve(Date.now()); }
    });
    observer.observe(document.body, {childList: true, subtree: true, characterData: true});
})"""


async def main(edits: int) -> None:
    data_dir = Path(tempfile.mkdtemp(prefix="romergo-bench-"))
    server = RunningServer(data_dir).start()
    try:
        async with async_playwright() as playwright:
            browser = await playwright.chromium.launch(
                executable_path=shutil.which("chromium"), args=CHROMIUM_ARGS
            )
            first_context = await browser.new_context()
            first = await first_context.new_page()
            await first.goto(server.signin_url)
            await expect(first.get_by_test_id("story-tree")).to_be_visible()
            scene_link = first.get_by_role("link", name="The Beacon")
            await scene_link.click()
            await expect(first.get_by_test_id("scene-title")).to_have_text("The Beacon")
            second_context = await browser.new_context(storage_state=await first_context.storage_state())
            second = await second_context.new_page()
            await second.goto(first.url)
            await expect(second.get_by_test_id("scene-title")).to_have_text("The Beacon")

            own, other = await measure_lines(first, second, edits)
            report("add a line: the page that made the edit", own)
            report("add a line: the other page", other)
            await browser.close()
    finally:
        server.stop()
        shutil.rmtree(data_dir, ignore_errors=True)


async def measure_lines(first: Page, second: Page, edits: int) -> tuple[list[float], list[float]]:
    own: list[float] = []
    other: list[float] = []
    form = first.get_by_test_id("new-line")
    # The clock starts when the browser sees the click, not when Playwright starts to send it.
    await first.evaluate(
        "document.addEventListener('click', () => { window.benchClickedAt = Date.now(); }, true)"
    )
    for number in range(edits):
        text = f"Bench line {number} {time.monotonic_ns()}"
        await form.get_by_label("New line").fill(text)
        seen_here = asyncio.ensure_future(first.evaluate(WATCH, text))
        seen_there = asyncio.ensure_future(second.evaluate(WATCH, text))
        await asyncio.sleep(0.05)  # let both observers start
        await form.get_by_role("button", name="Add line").click()
        clicked = await first.evaluate("window.benchClickedAt")
        own.append(await seen_here - clicked)
        other.append(await seen_there - clicked)
    return own, other


def report(what: str, delays: list[float]) -> None:
    ordered = sorted(delays)
    p90 = ordered[max(0, int(len(ordered) * 0.9) - 1)]
    print(
        f"{what}: n={len(ordered)} p50={statistics.median(ordered):.0f} ms "
        f"p90={p90:.0f} ms min={ordered[0]:.0f} ms max={ordered[-1]:.0f} ms"
    )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--edits", type=int, default=20)
    asyncio.run(main(parser.parse_args().edits))
