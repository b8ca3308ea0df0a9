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

from tests.harnesses.checks import requests_after_last_wait
from tests.harnesses.conftest import Stage, stand_in
from tests.harnesses.drivers.common import Place
from tests.harnesses.drivers.opencode import OPENCODE, Opencode
from tests.harnesses.model.standin import StandInModel


@pytest.fixture(scope="module")
def model() -> Iterator[StandInModel]:
    yield from stand_in(OPENCODE.routes)


async def test_opencode_runs_the_loop_and_its_model_sees_what_romergo_sent(
    stage: Stage, model: StandInModel, place: Place
) -> None:
    opencode = await Opencode.set_up(place)
    config = (opencode.home / ".config" / "opencode" / "opencode.json").read_text()
    assert '"*": "ask"' in config, (
        "the user asks before every tool: only the README's block lets Romergo's run"
    )

    with model.following(stage.loop) as conversation:
        run = await opencode.run(f"Join my Romergo Builder channel with the code {stage.channel.code}.")
    results = conversation.results

    with run.shown_on_failure(conversation):
        assert run.returncode == 0, f"opencode exited with {run.returncode}"
        # opencode asks for progress: the long wait.
        assert await stage.assert_model_saw_the_whole_loop(results) == 540
    print(f"model requests after the last timed-out wait: {requests_after_last_wait(conversation)}")
