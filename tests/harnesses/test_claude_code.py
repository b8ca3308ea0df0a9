"""Claude Code, unchanged from npm, runs the Builder loop against a real Romergo server, headless,
its model replaced by the stand-in speaking the Anthropic Messages API.

It is set up the way the README's *Connect your agent* block for Claude Code says, running that
block's own command lines: `claude mcp add ... -s user` with the personal token in
`ROMERGO_AGENT_TOKEN`, then `claude -p "<prompt>" --allowedTools mcp__romergo`. A README line that
no longer works fails here.
"""

from __future__ import annotations

import asyncio
import re
import shlex
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.harnesses.checks import (
    assert_first_page_whole,
    assert_hostile_line_escaped,
    assert_loop_completed,
    assert_wait_clamped,
)
from tests.harnesses.conftest import Channel, HarnessStory, first_outline_page, harness, harness_env, stand_in
from tests.harnesses.model import anthropic
from tests.harnesses.model.loop import Loop
from tests.harnesses.model.standin import Conversation, StandInModel
from tests.support.agents import OwnerApi
from tests.support.server import RunningServer

README = Path(__file__).resolve().parents[2] / "README.md"
README_URL = "http://127.0.0.1:8080/mcp"
RUN_LIMIT = 180
"""Seconds Claude Code may take for the whole loop (it needs 6-10: the owner's command is already waiting)."""


@pytest.fixture(scope="module")
def model() -> Iterator[StandInModel]:
    yield from stand_in(anthropic.routes)


async def test_claude_code_runs_the_loop_and_its_model_sees_escaped_whole_results(
    server: RunningServer,
    agent_token: str,
    owner: OwnerApi,
    channel: Channel,
    loop: Loop,
    story: HarnessStory,
    model: StandInModel,
    tmp_path: Path,
):
    claude = _ClaudeCode(tmp_path, agent_token, model.base_url)
    await claude.add_romergo(f"{server.base_url}/mcp")

    with model.following(loop) as conversation:
        ran = await claude.run(f"Join the Romergo channel with code {channel.code}")
    results = conversation.results

    try:
        assert ran.returncode == 0, "Claude Code failed"
        await assert_loop_completed(owner, channel, results)
        # Claude Code asks for progress and keeps the call open while it comes: the long wait.
        assert assert_wait_clamped(results) == 540
        assert_hostile_line_escaped(results)
        first_page = await first_outline_page(server.base_url, agent_token, story.project_id)
        assert_first_page_whole(results, first_page)
    except AssertionError:
        print(ran.transcript(conversation))
        raise


@dataclass(frozen=True)
class _Ran:
    returncode: int | None
    stdout: str
    stderr: str

    def transcript(self, conversation: Conversation) -> str:
        exchanges = "\n".join(
            f"- offered {len(exchange.offered)} tools, {len(exchange.results)} results; "
            f"last: {exchange.results[-1][:800] if exchange.results else ''!r}"
            for exchange in conversation.exchanges
        )
        return (
            f"exit {self.returncode}\nstdout:\n{self.stdout[-4000:]}\nstderr:\n{self.stderr[-4000:]}\n"
            f"model requests:\n{exchanges}"
        )


class _ClaudeCode:
    """Claude Code in a home of its own, its model the stand-in, with nothing sent elsewhere."""

    def __init__(self, tmp_path: Path, agent_token: str, model_url: str) -> None:
        self.home = tmp_path / "home"
        self.workdir = tmp_path / "story-work"
        self.home.mkdir()
        self.workdir.mkdir()
        clean = harness_env(self.home)
        self.env = {
            **clean,
            "PATH": f"{harness('claude').parent}:{clean['PATH']}",
            "ROMERGO_AGENT_TOKEN": agent_token,
            "ANTHROPIC_BASE_URL": model_url,
            "ANTHROPIC_API_KEY": "stand-in-key",
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
            "DISABLE_AUTOUPDATER": "1",
            "DISABLE_TELEMETRY": "1",
            "DISABLE_ERROR_REPORTING": "1",
        }

    async def add_romergo(self, mcp_url: str) -> None:
        """The README's `claude mcp add` line with the personal token, run by the shell in the
        home folder: the loop runs in another, which only a server added for the user reaches."""
        command = _readme_command("claude mcp add", "ROMERGO_AGENT_TOKEN").replace(README_URL, mcp_url)
        added = await self._exec(self.home, "bash", "-c", command)
        assert added.returncode == 0, f"{command}\n{added.stdout}\n{added.stderr}"

    async def run(self, prompt: str) -> _Ran:
        """The README's headless line, with this prompt in place of its example's."""
        words = shlex.split(_readme_command("claude -p"))
        return await self._exec(self.workdir, *(prompt if "rmg-" in word else word for word in words))

    async def _exec(self, cwd: Path, *words: str) -> _Ran:
        process = await asyncio.create_subprocess_exec(
            *words,
            cwd=cwd,
            env=self.env,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
        try:
            stdout, stderr = await asyncio.wait_for(process.communicate(), RUN_LIMIT)
        except TimeoutError:
            process.kill()
            stdout, stderr = await process.communicate()
        return _Ran(process.returncode, stdout.decode(errors="replace"), stderr.decode(errors="replace"))


def _readme_command(start: str, containing: str = "") -> str:
    """The first command of the README's Claude Code block that starts with `start` (and holds
    `containing`), its continuation lines joined."""
    text = README.read_text()
    section = text[text.index("**Claude Code**") : text.index("**Codex**")]
    for block in re.findall(r"```bash\n(.*?)```", section, re.DOTALL):
        joined = re.sub(r"\\\n\s*", "", block)
        for line in joined.splitlines():
            if line.startswith(start) and containing in line:
                return line
    raise AssertionError(f"the README's Claude Code block has no `{start}` line")
