"""Gemini CLI, unchanged from npm, runs the Builder loop against a real Romergo server with the
stand-in model behind the Gemini API, set up by its driver as the README's Gemini CLI block says
(tests.harnesses.drivers.gemini_cli): join, wait, read, edit, reply and wait again; and, with the
block's settings for a listening agent, it keeps waiting on a quiet channel.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass

import pytest

from tests.harnesses.checks import WAITED_AGAIN, Channel, assert_loop_completed
from tests.harnesses.conftest import Stage, stand_in
from tests.harnesses.drivers.common import Place
from tests.harnesses.drivers.gemini_cli import GEMINI_CLI, GeminiCli
from tests.harnesses.model.loop import DONE, Loop, Step
from tests.harnesses.model.standin import StandInModel
from tests.support.agents import OwnerApi

LISTENING_WAITS = 6
"""Waits in a row on a quiet channel: one more than the identical calls Gemini CLI takes for a loop."""


@dataclass(frozen=True)
class ListeningLoop(Loop):
    """The loop, its last wait repeated on a quiet channel as an agent that keeps listening does."""

    def step(self, results: Sequence[str]) -> Step:
        if WAITED_AGAIN < len(results) < WAITED_AGAIN + LISTENING_WAITS:
            return super().step(results[:WAITED_AGAIN])
        return super().step(results)


@pytest.fixture(scope="module")
def model() -> Iterator[StandInModel]:
    yield from stand_in(GEMINI_CLI.routes)


async def test_gemini_cli_runs_the_loop_and_the_model_sees_escaped_whole_results(
    stage: Stage, model: StandInModel, place: Place
):
    gemini = await GeminiCli.set_up(place)

    with model.following(stage.loop) as conversation:
        run = await gemini.run(f"Join the Romergo channel with code {stage.channel.code}")
    results = conversation.results

    with run.shown_on_failure(conversation):
        assert run.returncode == 0 and DONE in run.stdout
        # Gemini CLI asks for progress: the long wait.
        assert await stage.assert_model_saw_the_whole_loop(results) == 540


async def test_gemini_cli_set_up_as_the_readme_says_keeps_listening_on_a_quiet_channel(
    model: StandInModel, place: Place, owner: OwnerApi, channel: Channel, loop: Loop
):
    gemini = await GeminiCli.set_up(place)

    with model.following(ListeningLoop(**asdict(loop))) as conversation:
        run = await gemini.run(f"Join the Romergo channel with code {channel.code}")
    results = conversation.results

    with run.shown_on_failure(conversation):
        assert run.returncode == 0 and DONE in run.stdout
        await assert_loop_completed(owner, channel, results)
        waits = results[WAITED_AGAIN:]
        assert len(waits) == LISTENING_WAITS
        assert all('"status": "timeout"' in wait for wait in waits), waits
