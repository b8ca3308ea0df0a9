"""Claude Code, unchanged from npm, runs the Builder loop against a real Romergo server, headless,
its model replaced by the stand-in speaking the Anthropic Messages API.

Its driver runs the README's own lines: `claude mcp add ... -s user` with the personal token, in
the home folder, then `claude -p "<prompt>" --allowedTools mcp__romergo` in another folder, which
only a server added for the user (`-s user`) reaches. A README line that no longer works fails here.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.harnesses.conftest import Stage, stand_in
from tests.harnesses.drivers.claude_code import CLAUDE_CODE, ClaudeCode
from tests.harnesses.drivers.common import Place
from tests.harnesses.model.standin import StandInModel


@pytest.fixture(scope="module")
def model() -> Iterator[StandInModel]:
    yield from stand_in(CLAUDE_CODE.routes)


async def test_claude_code_runs_the_loop_and_its_model_sees_escaped_whole_results(
    stage: Stage, model: StandInModel, place: Place
):
    claude = await ClaudeCode.set_up(place)
    assert not claude.workdir.is_relative_to(claude.home), "the loop runs outside the folder it was added in"

    with model.following(stage.loop) as conversation:
        run = await claude.run(f"Join the Romergo channel with code {stage.channel.code}")
    results = conversation.results

    with run.shown_on_failure(conversation):
        assert run.returncode == 0, "Claude Code failed"
        # Claude Code asks for progress and keeps the call open while it comes: the long wait.
        assert await stage.assert_model_saw_the_whole_loop(results) == 540
