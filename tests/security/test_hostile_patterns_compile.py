"""A regular expression built to blow up when compiled is refused before it compiles.

Nested counted repeats multiply: `(?:(?:a{999}){999}){999}` asks for a billion copies of `a`, and
compiling it alone used to take the server past 20 GB; `(?:(?:a{100}){100}){150}` took 1.5 s on the
event loop and left the server 350 MB larger for good. Both are now refused at once, naming the
limit, by an agent with nothing but `read`; the server's memory stays where it was and another
agent's reads keep being answered meanwhile.
"""

from __future__ import annotations

import time

import pytest

from tests.support.neighbours import demo_of, reads_while, refusal, resident_mb
from tests.support.oauth import mcp_client, personal_token
from tests.support.server import RunningServer
from tests.support.tools import Agent

# A server of its own: the neighbour reads as fast as it can, past the usual calls per minute.
SERVER_ENV = {"ROMERGO_RATE_LIMIT_PER_MINUTE": "100000"}
BOMBS = ["(?:(?:a{999}){999}){999}", "(?:(?:a{100}){100}){150}", "((a{50}){50}){50}"]
MEMORY_GROWTH_MB = 100  # generous: the compile bomb used to add hundreds of MB to gigabytes
QUICKLY = 1.0


@pytest.mark.parametrize("bomb", BOMBS)
async def test_a_compile_bomb_is_refused_before_it_compiles(server: RunningServer, bomb: str):
    assert server.process is not None
    token = personal_token(server, "ada", "--scopes", "read")
    async with mcp_client(server.base_url, token) as attacker, mcp_client(server.base_url, token) as reader:
        demo = await demo_of(Agent(reader))
        before = resident_mb(server.process.pid)
        started = time.monotonic()
        search = Agent(attacker).call(
            "romergo_search_story", project_id=demo.project_id, query=bomb, regex=True
        )
        result, reads = await reads_while(Agent(reader), demo.scene_id, search)
        took = time.monotonic() - started
        grown = resident_mb(server.process.pid) - before

    text = refusal(result)
    assert text.startswith("[invalid_argument] "), text
    assert "repeat" in text and ("1,000" in text or "10,000" in text), text
    assert took < QUICKLY, f"refused after {took:.2f} s"
    assert max(reads) < QUICKLY, f"a neighbour's read waited {max(reads):.2f} s"
    assert grown < MEMORY_GROWTH_MB, f"the server grew by {grown:.0f} MB"


async def test_a_single_counted_repeat_over_the_limit_is_refused_naming_it(server: RunningServer):
    token = personal_token(server, "ada", "--scopes", "read")
    async with mcp_client(server.base_url, token) as client:
        agent = Agent(client)
        demo = await demo_of(agent)
        text = refusal(
            await agent.call("romergo_search_story", project_id=demo.project_id, query="x{5000}", regex=True)
        )
        allowed = await agent.call(
            "romergo_search_story", project_id=demo.project_id, query="x{2,1000}", regex=True
        )
    assert text.startswith("[invalid_argument] ") and "1,000" in text, text
    assert not allowed.is_error, allowed.content[0].text
