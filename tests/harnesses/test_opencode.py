"""opencode, unchanged from npm, runs the Builder loop against a real Romergo server, headless
(the README's `opencode run "Join my Romergo Builder channel with the code …"`).

Its user is a cautious one (tests.harnesses.drivers.opencode): their own config makes opencode ask
before any tool runs, which `opencode run` answers by rejecting the call, and names the stand-in as
their model. Into it they paste the README's opencode block: that block alone must let Romergo's
tools run.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.harnesses.checks import (
    assert_first_page_whole,
    assert_hostile_line_escaped,
    assert_loop_completed,
    assert_wait_clamped,
    requests_after_last_wait,
)
from tests.harnesses.conftest import Channel, HarnessStory, first_outline_page, stand_in
from tests.harnesses.drivers.common import Place
from tests.harnesses.drivers.opencode import OPENCODE, Opencode
from tests.harnesses.model.loop import Loop
from tests.harnesses.model.standin import StandInModel
from tests.support.agents import OwnerApi
from tests.support.server import RunningServer


@pytest.fixture(scope="module")
def model() -> Iterator[StandInModel]:
    yield from stand_in(OPENCODE.routes)


async def test_opencode_runs_the_loop_and_its_model_sees_what_romergo_sent(
    server: RunningServer,
    agent_token: str,
    owner: OwnerApi,
    channel: Channel,
    loop: Loop,
    story: HarnessStory,
    model: StandInModel,
    place: Place,
) -> None:
    opencode = await Opencode.set_up(place)
    config = (opencode.home / ".config" / "opencode" / "opencode.json").read_text()
    assert '"*": "ask"' in config, (
        "the user asks before every tool: only the README's block lets Romergo's run"
    )

    with model.following(loop) as conversation:
        run = await opencode.run(f"Join my Romergo Builder channel with the code {channel.code}.")
    results = conversation.results

    with run.shown_on_failure(conversation):
        assert run.returncode == 0, f"opencode exited with {run.returncode}"
        await assert_loop_completed(owner, channel, results)
        assert assert_wait_clamped(results) == 540  # opencode asks for progress: the long wait
        assert_hostile_line_escaped(results)
        assert_first_page_whole(
            results, await first_outline_page(server.base_url, agent_token, story.project_id)
        )
    print(f"model requests after the last timed-out wait: {requests_after_last_wait(conversation)}")
