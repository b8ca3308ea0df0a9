"""Story files an attacker would import, made in memory (small on disk and on the wire), and how a
test watches the server process while it reads them: the slowest ordinary read meanwhile, its
memory, and the projects it holds afterwards."""

from __future__ import annotations

import asyncio
import io
import json
import struct
import time
import zipfile
from collections.abc import AsyncIterator, Awaitable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

import httpx

from tests.support.oauth import mcp_client, personal_token
from tests.support.server import RunningServer
from tests.support.tools import Agent

CENTRAL_HEADER = b"PK\x01\x02"
KIB = 1024


def story_json(scenes: int, lines_per_scene: int = 0, chapters: int = 1) -> bytes:
    """A `story.json` of `scenes` tiny scenes spread over `chapters`, each with its lines."""
    lines = [{"text": "Waves."}] * lines_per_scene
    per_chapter = -(-scenes // chapters)
    story = {
        "title": "Hostile",
        "chapters": [
            {
                "title": f"Part {part + 1}",
                "scenes": [
                    {"key": f"s{n}", "title": "S", "lines": lines}
                    for n in range(part * per_chapter, min(scenes, (part + 1) * per_chapter))
                ],
            }
            for part in range(chapters)
        ],
    }
    return json.dumps(story, separators=(",", ":")).encode()


def archive_of(story: bytes) -> bytes:
    """A `.romergo.zip` holding `story` as its `story.json`, deflated."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("story.json", story)
    return out.getvalue()


def with_central_field(archive: bytes, offset: int, fmt: str, value: int) -> bytes:
    """`archive` with one field of its (only) central directory entry changed: what zip readers believe."""
    at = archive.index(CENTRAL_HEADER) + offset
    return archive[:at] + struct.pack(fmt, value) + archive[at + struct.calcsize(fmt) :]


def twee_passages(count: int) -> bytes:
    """A Twee story of `count` passages, each linking to the next."""
    parts = [":: StoryTitle\nMany\n"]
    parts += [f":: P{n}\nA line.\n[[P{n + 1}]]\n" for n in range(count - 1)]
    parts.append(f":: P{count - 1}\nThe end.\n")
    return "\n".join(parts).encode()


def yarn_nodes(count: int) -> bytes:
    """A Yarn script of `count` nodes, each jumping to the next."""
    nodes = [f"title: N{n}\n---\nA line.\n-> On\n    <<jump N{n + 1}>>\n===" for n in range(count - 1)]
    nodes.append(f"title: N{count - 1}\n---\nThe end.\n===")
    return "\n".join(nodes).encode()


def rss_kib(server: RunningServer, field: str = "VmRSS") -> int:
    """The server's resident memory (`VmRSS`) or its peak so far (`VmHWM`), in KiB."""
    assert server.process is not None
    with open(f"/proc/{server.process.pid}/status") as status:
        for line in status:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    raise AssertionError(f"no {field} for the server process")


@dataclass
class Neighbour:
    """An ordinary reader of the story beside the attack: its agent and a scene it reads."""

    agent: Agent
    scene_id: str

    async def slowest_read_while(self, attack: Awaitable[Any]) -> tuple[Any, float]:
        """What `attack` answered, and the slowest `romergo_get_scene` made while it ran."""
        running = asyncio.ensure_future(attack)
        slowest = 0.0
        while not running.done():
            started = time.monotonic()
            await self.agent.ok("romergo_get_scene", scene_id=self.scene_id)
            slowest = max(slowest, time.monotonic() - started)
        return await running, slowest


@asynccontextmanager
async def neighbour(server: RunningServer) -> AsyncIterator[Neighbour]:
    token = personal_token(server, "ada", "--scopes", "read")
    async with mcp_client(server.base_url, token) as client:
        agent = Agent(client)
        projects = (await agent.ok("romergo_list_projects"))["projects"]
        outline = await agent.ok("romergo_get_project_outline", project_id=projects[0]["id"])
        yield Neighbour(agent, outline["chapters"][0]["scenes"][0]["id"])


@asynccontextmanager
async def owner_api(server: RunningServer) -> AsyncIterator[httpx.AsyncClient]:
    """The owner's JSON API client (a personal token with the control scope), with a generous timeout."""
    token = personal_token(server, "ada", "--scopes", "read,control")
    headers = {"Authorization": f"Bearer {token}"}
    async with httpx.AsyncClient(base_url=f"{server.base_url}/api/v1", headers=headers, timeout=300) as http:
        yield http


async def imported(http: httpx.AsyncClient, filename: str, data: bytes) -> httpx.Response:
    return await http.post("/projects/import", params={"filename": filename}, content=data)


async def project_ids(http: httpx.AsyncClient) -> list[str]:
    listed = await http.get("/projects")
    assert listed.status_code == 200, listed.text
    return sorted(project["id"] for project in listed.json()["projects"])


def refusal(response: httpx.Response) -> str:
    """The message of a 400 `invalid_argument` answer."""
    assert response.status_code == 400, (response.status_code, response.text[:500])
    error = response.json()["error"]
    assert error["code"] == "invalid_argument", error
    return str(error["message"])
