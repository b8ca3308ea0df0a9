"""Gemini CLI, unchanged from npm, runs the Builder loop against a real Romergo server with the
stand-in model behind the Gemini API.

It is set up as the README's *Connect your agent* block for Gemini CLI says, with a personal token:
the block's own `gemini mcp add … --trust … --header …` line runs in a shell holding
`ROMERGO_AGENT_TOKEN`, the folder it works in is trusted as the block says, the block's settings
for a listening agent are in `~/.gemini/settings.json`, and the block's `gemini -p` line runs the
loop headless: join, wait, read, edit, reply and wait again.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import signal
import subprocess
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.harnesses.checks import (
    WAITED_AGAIN,
    assert_first_page_whole,
    assert_hostile_line_escaped,
    assert_loop_completed,
    assert_wait_clamped,
)
from tests.harnesses.conftest import Channel, HarnessStory, first_outline_page, harness, harness_env, stand_in
from tests.harnesses.model import gemini
from tests.harnesses.model.loop import DONE, Loop, Step
from tests.harnesses.model.standin import StandInModel
from tests.support.agents import OwnerApi
from tests.support.server import RunningServer

README = Path(__file__).parents[2] / "README.md"
README_URL = "http://127.0.0.1:8080/mcp"
RUN_TIMEOUT = 180
MODEL_SETTINGS = {
    "security": {"auth": {"selectedType": "gemini-api-key"}},
    "model": {"name": gemini.MODEL_VERSION},
    "privacy": {"usageStatisticsEnabled": False},
    "telemetry": {"enabled": False},
    "general": {"enableAutoUpdate": False, "enableAutoUpdateNotification": False},
}
"""The stand-in as the model: a Gemini API key user (its base URL from GOOGLE_GEMINI_BASE_URL; left
to itself, Gemini CLI 0.61.0 takes that variable for a gateway, which its headless mode refuses as
"Invalid auth method selected.") with a model chosen (the default "auto" first asks a classifier
model for a JSON verdict, which a stand-in answering text makes it retry for a minute). No usage
statistics, telemetry or update checks: the machine has no internet to send them to."""
LISTENING_WAITS = 6
"""Waits in a row on a quiet channel: one more than the identical calls Gemini CLI takes for a loop."""


@dataclass(frozen=True)
class Run:
    returncode: int
    stdout: str
    stderr: str


@dataclass(frozen=True)
class ListeningLoop(Loop):
    """The loop, its last wait repeated on a quiet channel as an agent that keeps listening does."""

    def step(self, results: Sequence[str]) -> Step:
        if WAITED_AGAIN < len(results) < WAITED_AGAIN + LISTENING_WAITS:
            return super().step(results[:WAITED_AGAIN])
        return super().step(results)


@pytest.fixture(scope="module")
def model() -> Iterator[StandInModel]:
    yield from stand_in(gemini.routes)


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory, server: RunningServer, agent_token: str) -> Path:
    """A user's home with Romergo added to Gemini CLI by the README's own command line."""
    home = tmp_path_factory.mktemp("gemini") / "home"
    (home / ".gemini").mkdir(parents=True)
    settings = _merged(MODEL_SETTINGS, readme_settings())
    (home / ".gemini" / "settings.json").write_text(json.dumps(settings))
    added = subprocess.run(
        ["bash", "-c", readme_add_command().replace(README_URL, f"{server.base_url}/mcp")],
        env=gemini_env(home, ROMERGO_AGENT_TOKEN=agent_token),
        cwd=home,
        capture_output=True,
        text=True,
        timeout=RUN_TIMEOUT,
    )
    assert added.returncode == 0, added
    return home


@pytest.fixture(scope="module")
def workdir(home: Path) -> Path:
    """The folder Gemini CLI runs in, trusted as the README says (the *Trust folder* choice)."""
    folder = home.parent / "story-work"
    folder.mkdir()
    (home / ".gemini" / "trustedFolders.json").write_text(json.dumps({str(folder): "TRUST_FOLDER"}))
    return folder


async def test_gemini_cli_runs_the_loop_and_the_model_sees_escaped_whole_results(
    server: RunningServer,
    model: StandInModel,
    home: Path,
    workdir: Path,
    agent_token: str,
    owner: OwnerApi,
    channel: Channel,
    loop: Loop,
    story: HarnessStory,
):
    with model.following(loop) as conversation:
        run = run_gemini(home, workdir, model.base_url, channel.code)
    failure = f"{run}\nexchanges: {conversation.exchanges}"
    assert run.returncode == 0 and DONE in run.stdout, failure

    results = conversation.results
    await assert_loop_completed(owner, channel, results)
    assert assert_wait_clamped(results) == 540  # Gemini CLI asks for progress: the long wait
    assert_hostile_line_escaped(results)
    assert_first_page_whole(results, await first_outline_page(server.base_url, agent_token, story.project_id))


async def test_gemini_cli_set_up_as_the_readme_says_keeps_listening_on_a_quiet_channel(
    model: StandInModel, home: Path, workdir: Path, owner: OwnerApi, channel: Channel, loop: Loop
):
    with model.following(ListeningLoop(**asdict(loop))) as conversation:
        run = run_gemini(home, workdir, model.base_url, channel.code)
    failure = f"{run}\nexchanges: {conversation.exchanges}"
    assert run.returncode == 0 and DONE in run.stdout, failure

    results = conversation.results
    await assert_loop_completed(owner, channel, results)
    waits = results[WAITED_AGAIN:]
    assert len(waits) == LISTENING_WAITS, failure
    assert all('"status": "timeout"' in wait for wait in waits), waits


def run_gemini(home: Path, workdir: Path, base_url: str, code: str) -> Run:
    """The README's headless run for a join code, waited on to its exit; its whole process group
    is stopped if it hangs."""
    process = subprocess.Popen(
        readme_run_command(code),
        env=gemini_env(home, GEMINI_API_KEY="stand-in", GOOGLE_GEMINI_BASE_URL=base_url),
        cwd=workdir,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        stdout, stderr = process.communicate(timeout=RUN_TIMEOUT)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        stdout, stderr = process.communicate()
    return Run(process.returncode, stdout, stderr)


def gemini_env(home: Path, **extra: str) -> dict[str, str]:
    """The harness's clean environment with `gemini` on the PATH, as a user who installed it has."""
    env = harness_env(home, **extra)
    return {**env, "PATH": f"{harness('gemini').parent}:{env['PATH']}"}


def readme_add_command() -> str:
    """The README's `gemini mcp add` line for a personal token, continuation lines joined."""
    commands = [block for block in _readme_blocks("bash") if "ROMERGO_AGENT_TOKEN" in block]
    assert len(commands) == 1, f"the README's Gemini CLI block has no personal-token command: {commands}"
    return commands[0].replace("\\\n", " ").strip()


def readme_run_command(code: str) -> list[str]:
    """The README's headless `gemini -p` line, with `code` in place of its example join code."""
    lines = [
        line
        for block in _readme_blocks("bash")
        for line in block.splitlines()
        if line.startswith("gemini -p")
    ]
    assert len(lines) == 1, f"the README's Gemini CLI block has no headless run: {lines}"
    return [re.sub(r"rmg-\S*", code, word) for word in shlex.split(lines[0])]


def readme_settings() -> dict[str, Any]:
    """The settings the README's Gemini CLI block gives for `~/.gemini/settings.json`."""
    blocks = [json.loads(block) for block in _readme_blocks("json")]
    assert len(blocks) == 1, f"the README's Gemini CLI block has no settings: {blocks}"
    return blocks[0]


def _readme_blocks(language: str) -> list[str]:
    section = README.read_text().split("**Gemini CLI**", 1)[1].split("\n**", 1)[0]
    return re.findall(rf"```{language}\n(.*?)```", section, re.S)


def _merged(base: dict[str, Any], extra: dict[str, Any]) -> dict[str, Any]:
    merged = dict(base)
    for key, value in extra.items():
        both_tables = isinstance(value, dict) and isinstance(merged.get(key), dict)
        merged[key] = _merged(merged[key], value) if both_tables else value
    return merged
