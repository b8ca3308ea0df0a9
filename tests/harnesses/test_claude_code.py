"""Claude Code, unchanged from npm, runs the Builder loop against a real Romergo server, headless,
its model replaced by the stand-in speaking the Anthropic Messages API.

Its driver runs the README's own lines: `claude mcp add ... -s user` with the personal token, in
the home folder, then `claude -p "<prompt>" --allowedTools mcp__romergo` in another folder, which
only a server added for the user (`-s user`) reaches. A README line that no longer works fails here.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.harnesses.checks import (
    assert_first_page_whole,
    assert_hostile_line_escaped,
    assert_loop_completed,
    assert_wait_clamped,
)
from tests.harnesses.conftest import Channel, HarnessStory, first_outline_page, stand_in
from tests.harnesses.drivers.claude_code import CLAUDE_CODE, ClaudeCode
from tests.harnesses.drivers.common import Place
from tests.harnesses.model.loop import Loop
from tests.harnesses.model.standin import StandInModel
from tests.support.agents import OwnerApi
from tests.support.server import RunningServer


@pytest.fixture(scope="module")
def model() -> Iterator[StandInModel]:
    yield from stand_in(CLAUDE_CODE.routes)


async def test_claude_code_runs_the_loop_and_its_model_sees_escaped_whole_results(
    server: RunningServer,
    agent_token: str,
    owner: OwnerApi,
    channel: Channel,
    loop: Loop,
    story: HarnessStory,
    model: StandInModel,
    place: Place,
):
    claude = await ClaudeCode.set_up(place)
    assert not claude.workdir.is_relative_to(claude.home), "the loop runs outside the folder it was added in"

    with model.following(loop) as conversation:
        run = await claude.run(f"Join the Romergo channel with code {channel.code}")
    results = conversation.results

    with run.shown_on_failure(conversation):
        assert run.returncode == 0, "Claude Code failed"
        await assert_loop_completed(owner, channel, results)
        # Claude Code asks for progress and keeps the call open while it comes: the long wait.
        assert assert_wait_clamped(results) == 540
        assert_hostile_line_escaped(results)
        assert_first_page_whole(
            results, await first_outline_page(server.base_url, agent_token, story.project_id)
        )
