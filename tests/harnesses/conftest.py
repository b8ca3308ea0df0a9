"""The agent harnesses people use, run unchanged against a real Romergo server, with a stand-in
for their model.

`scripts/bootstrap test` installs the harnesses from npm at pinned versions into
tests/harnesses/node_modules (a harness that is missing fails its test: it is never skipped). Each
test module drives one harness: one Romergo server and one stand-in model per module, a story with
a long outline and a hostile line, the owner's command already waiting in a fresh channel. The
harness itself is set up and run by its driver (tests.harnesses.drivers).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from romergo.common.actors import user_actor
from romergo.common.config import Settings
from romergo.services import build_services
from tests.harnesses.checks import (
    HOSTILE_LINE,
    Channel,
    assert_first_page_whole,
    assert_hostile_line_escaped,
    assert_loop_completed,
    assert_wait_clamped,
)
from tests.harnesses.drivers.common import Place
from tests.harnesses.model.loop import Loop
from tests.harnesses.model.standin import Routes, StandInModel
from tests.mcp_tools.conftest import server
from tests.support.agents import OwnerApi, agent
from tests.support.big_story import big_story
from tests.support.oauth import personal_token
from tests.support.server import RunningServer

OUTLINE_SCENES = 1500
COMMAND = "Rewrite the keeper's lamp line so the harbour comes alive."

__all__ = ["Channel", "server"]


@dataclass(frozen=True)
class HarnessStory:
    project_id: str
    scene_id: str
    """The opening scene: the hostile line first, then the line the agent rewrites."""
    line_id: str


@pytest.fixture(scope="module")
def story(server: RunningServer) -> HarnessStory:
    """ada's story of 1,500 scenes, whose opening scene has the hostile line first."""
    return asyncio.run(_write_story(server))


@pytest.fixture(scope="module")
def agent_token(server: RunningServer) -> str:
    """The agent's personal token (read, edit, media), for harnesses given a bearer header."""
    return personal_token(server, "ada", "--name", "Harness agent")


@pytest.fixture
async def owner(server: RunningServer) -> AsyncIterator[OwnerApi]:
    api = OwnerApi(
        server.base_url, personal_token(server, "ada", "--scopes", "read,control", "--name", "owner")
    )
    yield api
    await api.close()


@pytest.fixture
async def channel(owner: OwnerApi, story: HarnessStory) -> Channel:
    """A fresh channel on the story, the owner's command already sent."""
    opened = await owner("POST", "/channels", {"project_id": story.project_id})
    sent = await owner("POST", f"/channels/{opened['channel_id']}/commands", {"text": COMMAND})
    return Channel(opened["channel_id"], opened["code"], sent["command_id"])


@pytest.fixture
def loop(story: HarnessStory, channel: Channel) -> Loop:
    return Loop(
        code=channel.code, project_id=story.project_id, scene_id=story.scene_id, line_id=story.line_id
    )


@pytest.fixture
def place(tmp_path: Path, server: RunningServer, agent_token: str, model: StandInModel) -> Place:
    """Where a module's harness is set up: a fresh folder, against the server and the module's
    stand-in model (its `model` fixture)."""
    return Place(tmp_path, f"{server.base_url}/mcp", agent_token, model.base_url)


@dataclass(frozen=True)
class Stage:
    """One test's loop: the owner's channel with the command waiting, the story, the loop the
    stand-in model follows, and what to check once a harness has run it."""

    server: RunningServer
    agent_token: str
    owner: OwnerApi
    channel: Channel
    story: HarnessStory
    loop: Loop

    async def assert_model_saw_the_whole_loop(self, results: list[str]) -> int:
        """The loop completed on Romergo's side, and the model got the hostile line escaped and the
        outline's first page whole. Returns the longest wait the harness was served (harnesses
        differ: 540 s where the call asks for progress, else 50 s)."""
        await assert_loop_completed(self.owner, self.channel, results)
        assert_hostile_line_escaped(results)
        first_page = await first_outline_page(self.server.base_url, self.agent_token, self.story.project_id)
        assert_first_page_whole(results, first_page)
        return assert_wait_clamped(results)


@pytest.fixture
def stage(
    server: RunningServer,
    agent_token: str,
    owner: OwnerApi,
    channel: Channel,
    story: HarnessStory,
    loop: Loop,
) -> Stage:
    return Stage(server, agent_token, owner, channel, story, loop)


def stand_in(routes: Routes) -> Iterator[StandInModel]:
    """A module's stand-in model, speaking the API its harness calls (`routes`)."""
    model = StandInModel(routes).start()
    yield model
    model.stop()


async def first_outline_page(base_url: str, token: str, project_id: str) -> dict[str, Any]:
    """The outline's first page as Romergo sends it (structured), to compare with what the model got."""
    async with agent(base_url, token) as reader:
        return await reader.call("romergo_get_project_outline", project_id=project_id)


async def _write_story(server: RunningServer) -> HarnessStory:
    services = build_services(Settings(data_dir=server.data_dir))
    try:
        ada = await services.accounts.user_by_name("ada")
        assert ada is not None
        actor = user_actor(ada.id, ada.username)
        big = await big_story(services, actor, scenes=OUTLINE_SCENES, lines_per_scene=1, chapters=30)
        opening = big.scene_ids[0]
        await services.lines.add_line(actor, opening, HOSTILE_LINE, position=0)
        plain = await services.lines.add_line(actor, opening, "The keeper lights the lamps.", position=1)
        return HarnessStory(big.project_id, opening, plain.id)
    finally:
        await services.close()
