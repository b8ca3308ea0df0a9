"""Calling Romergo's MCP tools as an agent: in memory (the SDK's `Client(server)` with the auth
context the bearer middleware would set) or over HTTP, with helpers that read the envelope.

The in-memory client sends no HTTP request, so `agent()` sets the SDK's own auth context before
connecting; the token inside is still checked by the core on every call.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass
from typing import Any

from mcp import Client
from mcp.server.auth.middleware.auth_context import auth_context_var
from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser
from mcp.server.auth.provider import AccessToken
from mcp.types import CallToolResult

from mcp_tools.server import build_server
from romergo.common.actors import Actor, user_actor
from romergo.services import Services
from romergo.story import ChoiceSpec
from tests.support.story import TINY_PNG, TINY_WAV, SmallStory, database_state, small_story

ALL_SCOPES = ["romergo:read", "romergo:edit", "romergo:media", "romergo:publish", "romergo:delete"]
# Tables a tool call may touch without changing anything: the token's "last used" stamp.
BOOKKEEPING = ("agent_tokens", "agent_grants", "agent_activity")
"""What a call writes about itself (token use, the settings page's last call), not about the story."""


@contextmanager
def bearer(token: str | None) -> Iterator[None]:
    # Scopes here are deliberately generous: only what the core says about the token counts.
    user = None if token is None else AuthenticatedUser(AccessToken(token=token, client_id="x", scopes=["*"]))
    reset = auth_context_var.set(user)
    try:
        yield
    finally:
        auth_context_var.reset(reset)


@dataclass
class Agent:
    client: Client

    async def call(self, tool: str, /, **arguments: Any) -> CallToolResult:
        return await self.client.call_tool(tool, arguments)

    async def ok(self, tool: str, /, **arguments: Any) -> Any:
        """The envelope's data of a successful call."""
        result = await self.call(tool, **arguments)
        assert not result.is_error, text_of(result)
        return data_of(result)

    async def error(self, tool: str, /, **arguments: Any) -> str:
        """The error text of a refused call."""
        result = await self.call(tool, **arguments)
        assert result.is_error, f"{tool} should have failed: {text_of(result)[:500]}"
        assert result.structured_content is None
        return text_of(result)


@asynccontextmanager
async def agent(services: Services, token: str, server: Any = None) -> AsyncIterator[Agent]:
    with bearer(token):
        async with Client(server or build_server(services)) as client:
            yield Agent(client)


@asynccontextmanager
async def agent_of(
    services: Services, username: str, scopes: list[str] | None = None
) -> AsyncIterator[Agent]:
    """An agent with a fresh personal token of `username` (all scopes unless told otherwise)."""
    token, _ = await services.agents.personal.create(username, scopes=scopes or ALL_SCOPES)
    async with agent(services, token) as connected:
        yield connected


def text_of(result: CallToolResult) -> str:
    first = result.content[0]
    assert first.type == "text"
    return first.text


def untrusted(result: CallToolResult) -> dict[str, Any]:
    assert result.structured_content is not None, text_of(result)
    content: dict[str, Any] = result.structured_content["untrusted_content"]
    return content


def data_of(result: CallToolResult) -> Any:
    return untrusted(result)["data"]


async def story_state(services: Services) -> dict[str, list[tuple[Any, ...]]]:
    """Every row that matters; compare before and after a refused call to prove nothing changed."""
    state = await database_state(services)
    return {table: rows for table, rows in state.items() if table not in BOOKKEEPING}


@dataclass
class Furnished:
    """A small story with a bit of everything: media, a speaker, narration and a choice."""

    project_id: str
    chapter_id: str
    first_scene_id: str
    second_scene_id: str
    hero_id: str
    backdrop_id: str
    theme_id: str
    bell_id: str
    narration_id: str
    spoken_id: str


async def furnished_story(services: Services, actor: Actor, title: str = "Harbour Lights") -> Furnished:
    story = await small_story(services, actor, title)
    backdrop = await services.assets.import_asset(
        actor, story.project_id, "background", "Harbour at dusk", TINY_PNG, ["harbour", "dusk"]
    )
    theme = await services.assets.import_asset(
        actor, story.project_id, "music", "Sea theme", TINY_WAV, ["sea"]
    )
    bell = await services.assets.import_asset(actor, story.project_id, "sound", "Bell", TINY_WAV)
    await services.chapters.set_chapter_music(actor, story.chapter_id, theme.id)
    await services.scenes.set_scene_background(actor, story.first_scene_id, backdrop.id)
    narration = await services.lines.add_line(actor, story.first_scene_id, "The fog rolls in.")
    spoken = await services.lines.add_line(actor, story.first_scene_id, "Who goes there?", story.hero_id)
    await services.scenes.set_choices(
        actor, story.first_scene_id, [ChoiceSpec("Open the door", story.second_scene_id)]
    )
    await services.scenes.update_scene(actor, story.second_scene_id, is_ending=True)
    return Furnished(
        project_id=story.project_id,
        chapter_id=story.chapter_id,
        first_scene_id=story.first_scene_id,
        second_scene_id=story.second_scene_id,
        hero_id=story.hero_id,
        backdrop_id=backdrop.id,
        theme_id=theme.id,
        bell_id=bell.id,
        narration_id=narration.id,
        spoken_id=spoken.id,
    )


@dataclass
class World:
    """The writer's furnished story, another project of theirs, and a stranger's story."""

    story: Furnished
    own_other: SmallStory
    own_other_music_id: str
    theirs: SmallStory
    their_asset_id: str
    their_line_id: str


async def world(services: Services, writer: Actor) -> World:
    stranger = await services.accounts.create_user("stranger")
    them = user_actor(stranger.id, "stranger")
    theirs = await small_story(services, them, "Their story")
    their_asset = await services.assets.import_asset(them, theirs.project_id, "music", "Their tune", TINY_WAV)
    their_line = await services.lines.add_line(them, theirs.first_scene_id, "Their words", theirs.hero_id)
    own_other = await small_story(services, writer, "Another story")
    other_music = await services.assets.import_asset(
        writer, own_other.project_id, "music", "Other tune", TINY_WAV
    )
    return World(
        story=await furnished_story(services, writer),
        own_other=own_other,
        own_other_music_id=other_music.id,
        theirs=theirs,
        their_asset_id=their_asset.id,
        their_line_id=their_line.id,
    )


def unrevised(value: Any) -> Any:
    """`value` without its `revision` numbers (anywhere inside): for comparing what an entity says
    apart from the revision it is at, which the revision tests check on their own."""
    if isinstance(value, dict):
        return {key: unrevised(item) for key, item in value.items() if key != "revision"}
    if isinstance(value, list):
        return [unrevised(item) for item in value]
    return value
