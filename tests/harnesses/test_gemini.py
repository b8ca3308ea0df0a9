"""Gemini CLI, unchanged from npm, runs the Builder loop against a real Romergo server with the
stand-in model behind the Gemini API.

It is set up as the README's *Connect your agent* block for Gemini CLI says, with a personal token:
the block's own `gemini mcp add … --trust … --header …` line runs in a shell holding
`ROMERGO_AGENT_TOKEN`, and the folder it works in is trusted as the block says. Then one headless
run (`gemini -p`) joins the channel, waits, reads, edits, replies and waits again.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
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
from tests.harnesses.model import gemini
from tests.harnesses.model.loop import DONE, Loop
from tests.harnesses.model.standin import StandInModel
from tests.support.agents import OwnerApi
from tests.support.server import RunningServer

README = Path(__file__).parents[2] / "README.md"
README_URL = "http://127.0.0.1:8080/mcp"
RUN_TIMEOUT = 180
USER_SETTINGS = {
    "security": {"auth": {"selectedType": "gemini-api-key"}},
    "privacy": {"usageStatisticsEnabled": False},
    "telemetry": {"enabled": False},
    "general": {"enableAutoUpdate": False, "enableAutoUpdateNotification": False},
}
"""A user of the Gemini API with a key (the stand-in's base URL comes from GOOGLE_GEMINI_BASE_URL:
left to itself, Gemini CLI 0.61.0 takes that variable for a gateway, which its headless mode then
refuses as "Invalid auth method selected."); no usage statistics, telemetry or update checks, as
the machine has no internet to send them to."""


@dataclass(frozen=True)
class Run:
    returncode: int
    stdout: str
    stderr: str


@pytest.fixture(scope="module")
def model() -> Iterator[StandInModel]:
    yield from stand_in(gemini.routes)


@pytest.fixture
def home(tmp_path: Path, server: RunningServer, agent_token: str) -> Path:
    """A user's home with Romergo added to Gemini CLI by the README's own command line."""
    home = tmp_path / "home"
    (home / ".gemini").mkdir(parents=True)
    (home / ".gemini" / "settings.json").write_text(json.dumps(USER_SETTINGS))
    added = subprocess.run(
        ["bash", "-c", readme_add_command().replace(README_URL, f"{server.base_url}/mcp")],
        env=gemini_env(home, ROMERGO_AGENT_TOKEN=agent_token),
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=RUN_TIMEOUT,
    )
    assert added.returncode == 0, added
    return home


async def test_gemini_cli_runs_the_loop_and_the_model_sees_escaped_whole_results(
    server: RunningServer,
    model: StandInModel,
    home: Path,
    tmp_path: Path,
    agent_token: str,
    owner: OwnerApi,
    channel: Channel,
    loop: Loop,
    story: HarnessStory,
):
    workdir = trusted_folder(home, tmp_path / "story-work")
    with model.following(loop) as conversation:
        run = run_gemini(home, workdir, model.base_url, f"Join the Romergo channel with code {channel.code}")
    failure = f"{run}\nexchanges: {conversation.exchanges}"
    assert run.returncode == 0, failure
    assert DONE in run.stdout, failure

    results = conversation.results
    await assert_loop_completed(owner, channel, results)
    assert_wait_clamped(results)
    assert_hostile_line_escaped(results)
    assert_first_page_whole(results, await first_outline_page(server.base_url, agent_token, story.project_id))


def readme_add_command() -> str:
    """The README's `gemini mcp add` line for a personal token, continuation lines joined."""
    section = README.read_text().split("**Gemini CLI**", 1)[1].split("\n**", 1)[0]
    blocks = re.findall(r"```bash\n(.*?)```", section, re.S)
    commands = [
        block.replace("\\\n", " ") for block in blocks if "ROMERGO_AGENT_TOKEN" in block
    ]
    assert len(commands) == 1, f"the README's Gemini CLI block has no personal-token command: {section}"
    return commands[0].strip()


def trusted_folder(home: Path, folder: Path) -> Path:
    """`folder` trusted as the README says (the *Trust folder* choice, kept in trustedFolders.json)."""
    folder.mkdir()
    (home / ".gemini" / "trustedFolders.json").write_text(json.dumps({str(folder): "TRUST_FOLDER"}))
    return folder


def run_gemini(home: Path, workdir: Path, base_url: str, prompt: str) -> Run:
    """One headless run, waited on to its exit; its whole process group is stopped if it hangs."""
    process = subprocess.Popen(
        ["gemini", "-p", prompt],
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
