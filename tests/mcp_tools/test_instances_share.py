"""What two instances on one PostgreSQL database share, so a proxy may send any request
that is not a browser tab's to either: the server secret (a form one renders, the other accepts),
browser sessions, the rate limits' counts, and MCP served stateless (no session lives in one)."""

from __future__ import annotations

import re
from collections.abc import Iterator

import httpx
import pytest

from romergo.access.accounts.service import SESSION_COOKIE
from tests.support.databases import PostgresDatabases
from tests.support.oauth import PASSWORD, add_user, mcp_status, personal_token
from tests.support.server import RunningServer, two_instances_on_postgres


@pytest.fixture(scope="module")
def instances(
    tmp_path_factory: pytest.TempPathFactory, postgres: PostgresDatabases
) -> Iterator[tuple[RunningServer, RunningServer]]:
    with two_instances_on_postgres(tmp_path_factory, postgres) as (a, b):
        add_user(a, "ada", demo=False)
        add_user(a, "bea", demo=False)
        yield a, b


async def test_a_sign_in_form_from_one_instance_signs_in_on_the_other_and_the_session_works_on_both(
    instances,
):
    a, b = instances
    async with httpx.AsyncClient() as browser:
        form = (await browser.get(f"{a.base_url}/login")).text
        token = re.search(r'"name":"csrf","value":"([^"]+)"', form)
        assert token, "the sign-in page carries a form token"
        signed = await browser.post(
            f"{b.base_url}/login",
            data={"username": "ada", "password": PASSWORD, "csrf": token.group(1)},
            headers={"Origin": b.base_url},
        )
        assert signed.status_code == 303 and signed.headers["location"] == "/projects", signed.text
        assert SESSION_COOKIE in signed.cookies
        # Cookies do not tell ports apart: the browser presents the session to both instances.
        for server in (a, b):
            page = await browser.get(f"{server.base_url}/api/v1/projects")
            assert page.status_code == 200, page.text


async def test_failed_sign_ins_count_against_one_limit_across_the_instances(instances):
    """Ten wrong passwords spread over both: the right one is then refused on either (with limits
    per instance, each would have seen five and let it in)."""
    a, b = instances
    async with httpx.AsyncClient() as browser:

        async def sign_in(server: RunningServer, password: str) -> str:
            form = (await browser.get(f"{server.base_url}/login")).text
            token = re.search(r'"name":"csrf","value":"([^"]+)"', form)
            assert token
            answer = await browser.post(
                f"{server.base_url}/login",
                data={"username": "bea", "password": password, "csrf": token.group(1)},
                headers={"Origin": server.base_url},
            )
            assert answer.status_code == 303
            return answer.headers["location"]

        for attempt in range(10):
            assert await sign_in((a, b)[attempt % 2], "wrong") == "/login?error=failed"
        assert await sign_in(a, PASSWORD) == "/login?error=busy"
        assert await sign_in(b, PASSWORD) == "/login?error=busy"


async def test_mcp_keeps_no_session_so_the_other_instance_answers_the_next_request(instances):
    a, b = instances
    token = personal_token(a, "ada")
    initialized = await mcp_status(a.base_url, token)
    assert initialized.status_code == 200, initialized.text
    assert "mcp-session-id" not in initialized.headers
    # A handshake-era client's next request, without a session id, at the other instance.
    listed = await mcp_status(
        b.base_url, token, json={"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {}}
    )
    assert listed.status_code == 200, listed.text
    assert "romergo_wait_for_builder_command" in listed.text
