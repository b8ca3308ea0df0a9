"""What every harness driver shares: the harness's launcher and clean environment, the README's
blocks for a harness, the process runner and what a run leaves for the test to read.

A driver sets a harness up in a folder of its own (a home, and a folder to work in) the way the
README's *Connect your agent* block for that harness says, its model pointed at the stand-in, and
runs it headless with a prompt: `run(prompt) -> Run`.
"""

from __future__ import annotations

import asyncio
import os
import re
import shlex
import signal
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from tests.harnesses.model.standin import Conversation, Routes

HARNESSES = Path(__file__).resolve().parents[1] / "node_modules" / ".bin"
NODE_22 = Path(__file__).resolve().parents[2] / "conformance" / "node_modules" / ".bin"
"""The Node the harnesses run on (Gemini CLI needs 20 or newer; this one is pinned with the others)."""
README = Path(__file__).resolve().parents[3] / "README.md"
README_URL = "http://127.0.0.1:8080/mcp"
"""The server address the README's blocks name, replaced by the test server's."""
RUN_LIMIT = 180
"""Seconds a harness may take for a whole loop (they need 6-30: the owner's command is waiting)."""


@dataclass(frozen=True)
class Place:
    """Where and against what a harness is set up: its folder, Romergo's MCP URL, the agent's
    personal token and the stand-in model's base URL."""

    folder: Path
    mcp_url: str
    agent_token: str
    model_url: str


@dataclass(frozen=True)
class Run:
    returncode: int
    stdout: str
    stderr: str

    def transcript(self, conversation: Conversation) -> str:
        """The run and every exchange with the stand-in, for a failure's report."""
        exchanges = "\n".join(
            f"- request {number}: offered {len(exchange.offered)} tools, "
            f"results {[result[:1500] for result in exchange.results]}"
            for number, exchange in enumerate(conversation.exchanges)
        )
        return (
            f"exit {self.returncode}\n--- stdout\n{self.stdout[-8000:]}\n--- stderr\n{self.stderr[-8000:]}\n"
            f"--- model requests\n{exchanges[-30000:]}"
        )

    @contextmanager
    def shown_on_failure(self, conversation: Conversation) -> Iterator[None]:
        """Print the transcript when a check in the block fails."""
        try:
            yield
        except AssertionError:
            print(self.transcript(conversation))
            raise


class Harness(Protocol):
    """One harness, set up in its place."""

    @property
    def told_wait(self) -> int:
        """The timeout_seconds Romergo's join instructions tell its agent to ask for
        (romergo/channels/instructions.py)."""
        ...

    async def run(self, prompt: str) -> Run:
        """Run it headless with `prompt` until it exits (or is stopped at RUN_LIMIT)."""
        ...

    async def version(self) -> str: ...


class SetUp(Protocol):
    async def __call__(self, place: Place) -> Harness: ...


@dataclass(frozen=True)
class Kind:
    """A harness the tests drive: its name, the model API it speaks and how it is set up."""

    name: str
    routes: Routes
    set_up: SetUp


def launcher(name: str) -> Path:
    """A harness's launcher, as npm installed it."""
    path = HARNESSES / name
    assert path.exists(), f"{name} is not installed: scripts/bootstrap test installs the harnesses"
    return path


def harness_env(home: Path, **extra: str) -> dict[str, str]:
    """A clean environment: its own home, the harnesses and the pinned Node on the PATH, no proxies
    or keys."""
    path = f"{HARNESSES}:{NODE_22}:/usr/local/bin:/usr/bin:/bin"
    return {"HOME": str(home), "PATH": path, "NO_COLOR": "1", **extra}


def readme_blocks(heading: str, language: str) -> list[str]:
    """The README's `language` blocks under a harness's bold heading (`**Codex**`), up to the next."""
    text = README.read_text()
    marker = f"**{heading}**"
    assert marker in text, f"the README has no {marker} block"
    section = text.split(marker, 1)[1].split("\n**", 1)[0]
    return re.findall(rf"```{language}\n(.*?)```", section, re.DOTALL)


def readme_command(heading: str, start: str, containing: str = "") -> str:
    """The one command line of a harness's README blocks that starts with `start` and holds
    `containing`, its continuation lines joined, the README's server address as written."""
    lines = [
        line
        for block in readme_blocks(heading, "bash")
        for line in re.sub(r"\\\n\s*", "", block).splitlines()
        if line.startswith(start) and containing in line
    ]
    assert len(lines) == 1, f"the README's {heading} block has not one `{start}` line: {lines}"
    return lines[0]


def with_prompt(line: str, prompt: str) -> list[str]:
    """A README command line's words, `prompt` in place of its example's (the word with `rmg-…`)."""
    return [prompt if "rmg-" in word else word for word in shlex.split(line)]


async def run_process(*words: str, cwd: Path, env: dict[str, str], limit: float = RUN_LIMIT) -> Run:
    """`words` run to their exit; stopped with their whole process group after `limit` seconds,
    what they printed so far kept."""
    process = await asyncio.create_subprocess_exec(
        *words,
        cwd=cwd,
        env=env,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        start_new_session=True,
    )
    try:
        stdout, stderr = await asyncio.wait_for(process.communicate(), limit)
        late = ""
    except TimeoutError:
        os.killpg(process.pid, signal.SIGKILL)
        stdout, stderr = await process.communicate()
        late = f"\n[{words[0]} had not exited after {limit} s: stopped]"
    assert process.returncode is not None
    return Run(process.returncode, stdout.decode(errors="replace"), stderr.decode(errors="replace") + late)


async def version_of(name: str, home: Path) -> str:
    """What the harness's `--version` says."""
    said = await run_process(str(launcher(name)), "--version", cwd=home, env=harness_env(home), limit=60)
    return said.stdout.strip() or said.stderr.strip()


def merged(config: dict[str, Any], block: dict[str, Any]) -> dict[str, Any]:
    """`block` pasted into `config`: objects merge key by key, the block's values win."""
    both = {**config}
    for key, value in block.items():
        mine = both.get(key)
        both[key] = merged(mine, value) if isinstance(mine, dict) and isinstance(value, dict) else value
    return both
