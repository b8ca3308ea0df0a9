"""Fuzzing from inside a limited room, over HTTP against a real server process: agents joined to a
room that covers one chapter of the demo call every tool with ids from every chapter, and no
answer, success or refusal, may carry a title or a line of text from outside the room.

The room has a past, as rooms do: it covered the whole project while agent X worked on a command
in another chapter, a command selecting a line there was queued, and then the owner narrowed the
room to "The Keeper". X keeps working in it, and agent Y joins after the narrowing; both draw
calls, and after each draw the reads that summarise a room (the recorded changes of its
commands, the story check, the outline) are made too; every tool is also called once with plain
arguments on an outside and on the inside chapter. A room on each chapter runs the story check
on a loop that crosses chapters. Choices may lead outside, so the title of an outside scene an
inside choice leads to is allowed; nothing else from outside is.

Every call also keeps the per-call budget of test_fuzz_over_http.py (time, a prompt neighbour,
memory). The seed is new every run; a failing example prints it (ROMERGO_FUZZ_SEED replays it).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import AsyncExitStack
from dataclasses import dataclass
from typing import Any

import httpx
import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.support.agents import Agent, OwnerApi, agent
from tests.support.budget import Budget, Held, Memory, held_loop
from tests.support.fuzzing import (
    ERROR_TEXT,
    IdPools,
    fuzzing,
    replay_note,
    tool_arguments,
)
from tests.support.oauth import personal_token
from tests.support.room_story import (
    Chapter,
    chapters_of,
    command_from,
    id_pools,
    loop_across_chapters,
    said_only_outside,
)
from tests.support.server import RunningServer

pytestmark = pytest.mark.long

SERVER_ENV = {"ROMERGO_RATE_LIMIT_PER_MINUTE": "1000000"}
DRAWS = 40
CHAPTERS = 3
"""The demo's chapters: each gets a room of its own for the story check."""
INSIDE_CHAPTER = "The Keeper"
OUTSIDE_WORDS = "Nobody rows out to the cliffs any more, the ferryman swore."
"""What X wrote into a line of another chapter while the room still covered it."""
ROOM_PERMISSIONS = {"read": True, "edit": True, "media": True, "publish": False, "delete": False}


@dataclass(repr=False)
class Room:
    server: RunningServer
    reader: Agent
    """Ada's agent outside any room: it sees the whole project (what the room may lead to)."""
    callers: dict[str, Agent]
    owner: OwnerApi
    neighbour_http: httpx.AsyncClient
    project_id: str
    inside: Chapter
    outside: list[Chapter]
    chapters: list[Chapter]
    checkers: dict[str, Agent]
    """An agent in a room of its own on each chapter (by chapter id), for the story check."""
    ids: IdPools
    commands: list[str]
    forbidden: list[str]
    tools: dict[str, dict[str, Any]]
    earlier: list[tuple[str, Any]]
    """Answers of the set-up made inside the narrowed room (Y's join, X's wait): checked below."""
    held: Held | None = None
    budget: Budget | None = None

    def __repr__(self) -> str:
        return f"the room on {INSIDE_CHAPTER!r} at {self.server.base_url}"

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:
        printer.text(repr(self))  # hypothesis prints a failing example's arguments this way

    def call(self, caller: str, tool: str, arguments: dict[str, Any]) -> Any:
        """What a call answered, having kept its budget (time, a prompt neighbour, memory)."""
        assert self.budget is not None
        return self.budget.run(_answer(self.callers[caller], tool, arguments), f"{caller}'s {tool}")

    async def neighbour(self) -> None:
        answer = await self.neighbour_http.get("/api/v1/projects")
        assert answer.status_code == 200, answer.text

    def outside_text_in(self, answer: Any, inside: Chapter | None = None) -> list[str]:
        """Texts from outside the room on `inside` (the fuzzed room's chapter unless told) in an
        answer, less the titles of outside scenes an inside choice leads to."""
        chapter = inside or self.inside
        forbidden = self.forbidden if chapter is self.inside else said_only_outside(self.chapters, chapter)
        text = json.dumps(answer, ensure_ascii=False) if not isinstance(answer, str) else answer
        found = [words for words in forbidden if words in text]
        if found:
            assert self.held is not None
            led_to = self.held.run(self._led_to(chapter))
            found = [words for words in found if words not in led_to]
        return found

    async def _led_to(self, chapter: Chapter) -> set[str]:
        titles: set[str] = set()
        listed = await self.reader.call("romergo_get_chapter", chapter_id=chapter.id)
        for scene in listed["untrusted_content"]["data"]["scenes"]:
            seen = await self.reader.call("romergo_get_scene", scene_id=scene["id"])
            choices = seen["untrusted_content"]["data"]["choices"]
            titles |= {choice["target_title"] or "" for choice in choices}
        return titles


@pytest.fixture(scope="module")
def room(server: RunningServer) -> Iterator[Room]:
    assert server.process is not None
    everything = "read,edit,media,publish,delete"
    names = ("X", "Y", "reader", *(f"checker {n}" for n in range(CHAPTERS)))
    tokens = {name: personal_token(server, "ada", "--scopes", everything) for name in names}
    control = personal_token(server, "ada", "--scopes", "read,control")

    async def furnish(stack: AsyncExitStack) -> Room:
        agents = {
            name: await stack.enter_async_context(agent(server.base_url, token))
            for name, token in tokens.items()
        }
        owner = OwnerApi(server.base_url, control)
        stack.push_async_callback(owner.close)
        neighbour = await stack.enter_async_context(
            httpx.AsyncClient(
                base_url=server.base_url, headers={"Authorization": f"Bearer {control}"}, timeout=60
            )
        )
        return await _narrowed_room(server, agents, owner, neighbour)

    with held_loop(furnish) as (held, world):
        world.held = held
        world.budget = Budget(held, Memory(server.process.pid), world.neighbour)
        yield world


@fuzzing(DRAWS)
@given(data=st.data())
def test_no_call_from_inside_a_limited_room_answers_with_text_from_outside_it(
    server: RunningServer, room: Room, data: st.DataObject
):
    replay_note()
    caller = data.draw(st.sampled_from(sorted(room.callers)), label="caller")
    for _ in range(data.draw(st.integers(1, 3), label="calls")):
        tool = data.draw(st.sampled_from(sorted(room.tools)), label="tool")
        arguments = data.draw(tool_arguments(room.tools[tool], room.ids), label="arguments")
        if tool == "romergo_wait_for_builder_command":
            arguments["timeout_seconds"] = 1  # a wait parks for its whole timeout when nothing comes
        _assert_nothing_from_outside(room, f"{caller}'s {tool}", room.call(caller, tool, arguments))
    for tool, arguments in _room_summaries(room):
        _assert_nothing_from_outside(room, f"{caller}'s {tool}", room.call(caller, tool, arguments))


def test_every_tool_called_from_inside_with_ids_from_outside_answers_with_nothing_from_outside(
    server: RunningServer, room: Room
):
    # Every answer is looked at before the test fails, so that one failure lists every leak.
    found: list[str] = []
    for what, answer in room.earlier:
        # The join's conversation and a queued command follow the room's current reach, also for
        # what was recorded or queued before the owner narrowed it.
        found += _leaks(room, what, answer)
    for tool, schema in sorted(room.tools.items()):
        for where in (room.outside[0], room.inside):
            answer = room.call("X", tool, _plain_arguments(schema, room, where))
            found += _leaks(room, f"X's {tool} on {where.title!r}", answer)
        for summary, arguments in _room_summaries(room):
            # What the room's summaries show (the recorded changes of a command, the story check)
            # stays inside too, whatever the calls before changed.
            about = arguments.get("command_id", "")
            found += _leaks(room, f"X's {summary} {about}".strip(), room.call("X", summary, arguments))
    assert not found, "\n".join(dict.fromkeys(found))


def test_the_story_check_from_a_room_on_any_one_chapter_names_nothing_outside_it(
    server: RunningServer, room: Room
):
    # A problem whose scenes lie in several chapters, made now: the other tests change the story.
    assert room.held is not None and room.budget is not None
    room.chapters = room.held.run(_with_a_loop_across_chapters(room))
    found: list[str] = []
    for chapter in room.chapters:
        what = f"the story check in a room on {chapter.title!r}"
        checked = _answer(room.checkers[chapter.id], "romergo_check_story", {"project_id": room.project_id})
        found += _leaks(room, what, room.budget.run(checked, what), chapter)
    assert not found, "\n".join(found)


async def _with_a_loop_across_chapters(room: Room) -> list[Chapter]:
    await loop_across_chapters(room.reader, room.project_id)
    return await chapters_of(room.reader, room.project_id)


def _assert_nothing_from_outside(room: Room, what: str, answer: Any) -> None:
    found = _leaks(room, what, answer)
    assert not found, found[0]


def _leaks(room: Room, what: str, answer: Any, inside: Chapter | None = None) -> list[str]:
    """What is wrong with an answer: a failure, `[internal]`, or text from outside the room."""
    if isinstance(answer, BaseException):
        return [f"{what}: {answer!r}"]
    text = answer.content[0].text if answer.content else ""
    code = ERROR_TEXT.match(text) if answer.is_error else None
    if answer.is_error and (code is None or code.group(1) == "internal"):
        return [f"{what}: {text[:500]}"]
    payload = answer.structured_content if answer.structured_content is not None else text
    leaked = room.outside_text_in(payload, inside)
    return [f"{what} answered with text from outside the room: {leaked}"] if leaked else []


def _room_summaries(room: Room) -> list[tuple[str, dict[str, Any]]]:
    return [
        *[("romergo_list_command_changes", {"command_id": command}) for command in room.commands],
        ("romergo_check_story", {"project_id": room.project_id}),
        ("romergo_get_project_outline", {"project_id": room.project_id}),
    ]


def _plain_arguments(schema: dict[str, Any], room: Room, chapter: Chapter) -> dict[str, Any]:
    """Plain, well-typed arguments naming entities of `chapter` wherever an id is asked for (a
    scene that is not the start, to be marked the start)."""
    scene = chapter.scenes[-1]
    plain = {
        "project_id": room.project_id,
        "chapter_id": chapter.id,
        "scene_id": scene["id"],
        "line_id": scene["lines"][0]["id"] if scene["lines"] else "lin_none",
        "command_id": room.commands[1],
        "code": "nope",
        "cursor": 0,
        "timeout_seconds": 1,
        "position": 0,
        "is_start": True,
        "query": "the",
        "kind": "status",
        "type": "flag",
    }
    arguments = {name: plain.get(name, "Fuzzed") for name in schema.get("required", [])}
    if "is_start" in schema.get("properties", {}):
        arguments["is_start"] = True
    if "choices" in arguments:
        arguments["choices"] = [{"label": "Onwards", "target_scene_id": room.outside[0].scenes[0]["id"]}]
    if "asset_id" in arguments:
        arguments["asset_id"] = None
    if "data_base64" in arguments:
        arguments["data_base64"] = ""
    return arguments


async def _answer(caller: Agent, tool: str, arguments: dict[str, Any]) -> Any:
    try:
        return await caller.client.call_tool(tool, arguments)
    except Exception as failure:  # judged by the caller of `_answer`
        return failure


async def _narrowed_room(
    server: RunningServer, agents: dict[str, Agent], owner: OwnerApi, neighbour: httpx.AsyncClient
) -> Room:
    x, y, reader = agents["X"], agents["Y"], agents["reader"]
    project_id = (await owner("GET", "/projects"))["projects"][0]["id"]
    chapters = await chapters_of(reader, project_id)
    inside = next(chapter for chapter in chapters if chapter.title == INSIDE_CHAPTER)
    outside = [chapter for chapter in chapters if chapter is not inside]
    outside_lines = [line for chapter in outside for scene in chapter.scenes for line in scene["lines"]]
    channel = await owner("POST", "/channels", {"project_id": project_id, "permissions": ROOM_PERMISSIONS})
    channel_id = channel["channel_id"]
    cursor = (await x.call("romergo_join_builder_channel", code=channel["code"]))["cursor"]
    first = await command_from(
        owner, channel_id, "Tidy the harbour", project_id, outside[0], outside_lines[0]
    )
    cursor = (await x.wait(channel_id, cursor, 5))["cursor"]
    await x.call(
        "romergo_update_dialogue_line", line_id=outside_lines[0]["id"], text=OUTSIDE_WORDS, command_id=first
    )
    await x.reply_done(first)
    second = await command_from(owner, channel_id, "And the pier", project_id, outside[-1], outside_lines[-1])
    await owner("PATCH", f"/channels/{channel_id}", {"scope": {"chapter_ids": [inside.id]}})
    code = (await owner("POST", f"/channels/{channel_id}/code"))["code"]
    joined = await y.client.call_tool("romergo_join_builder_channel", {"code": code})
    delivered = await x.client.call_tool(
        "romergo_wait_for_builder_command", {"channel_id": channel_id, "cursor": cursor, "timeout_seconds": 5}
    )
    checkers = {}
    for number, chapter in enumerate(chapters):
        own = await owner(
            "POST", "/channels", {"project_id": project_id, "scope": {"chapter_ids": [chapter.id]}}
        )
        checkers[chapter.id] = agents[f"checker {number}"]
        await checkers[chapter.id].call("romergo_join_builder_channel", code=own["code"])
    third = await command_from(owner, channel_id, "Look again", project_id, outside[0], outside_lines[1])
    texts = [*said_only_outside(chapters, inside), OUTSIDE_WORDS]
    return Room(
        server=server,
        reader=reader,
        callers={"X": x, "Y": y},
        owner=owner,
        neighbour_http=neighbour,
        project_id=project_id,
        inside=inside,
        outside=outside,
        chapters=chapters,
        checkers=checkers,
        ids=id_pools(project_id, chapters, channel_id, code, [first, second, third]),
        commands=[first, second, third],
        forbidden=texts,
        tools={tool.name: tool.input_schema for tool in (await y.client.list_tools()).tools},
        earlier=[("Y's join after the narrowing", joined), ("X's wait after the narrowing", delivered)],
    )
