"""Romergo fetches an agent's client metadata document only from a public address, whatever form
the address takes, and a refused document never tells the asker what the remote answered.

IPv6 can carry an IPv4 address inside it (NAT64, 6to4, Teredo, IPv4-mapped and -compatible forms):
each is judged by the IPv4 address it leads to. Multicast is never fetched. The address forms are
refused by the server this package shares (the default rule); the comparison of a document server
that answers 401 with one that is down needs loopback documents allowed, so it has a server of its
own.
"""

from __future__ import annotations

import html
import re
import socket
from collections.abc import Iterator

import httpx
import pytest

from tests.support.oauth import CALLBACK_URI, add_user, authorize_url, pkce
from tests.support.pages_server import serving
from tests.support.server import RunningServer

HIDDEN_ADDRESSES = [
    "[64:ff9b::a9fe:a9fe]",  # NAT64 of 169.254.169.254, the cloud metadata address
    "[64:ff9b::7f00:1]",  # NAT64 of 127.0.0.1
    "[64:ff9b:1::a00:1]",  # local-use NAT64 of 10.0.0.1
    "[2002:a9fe:a9fe::]",  # 6to4 of 169.254.169.254
    "[::127.0.0.1]",  # IPv4-compatible loopback
    "[::a9fe:a9fe]",  # IPv4-compatible link-local
    "[::ffff:a9fe:a9fe]",  # IPv4-mapped link-local
    "[2001:0:4136:e378:8000:63bf:3fff:fdd2]",  # Teredo
    "224.0.0.1",  # IPv4 multicast
    "[ff02::1]",  # IPv6 multicast
]


@pytest.fixture(scope="module")
def developer_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningServer]:
    """A server that fetches documents on loopback, as a developer runs it."""
    running = RunningServer(
        tmp_path_factory.mktemp("developer"), env={"ROMERGO_CIMD_ALLOW_PRIVATE": "1"}
    ).start()
    add_user(running, "ada")
    yield running
    running.stop()


@pytest.mark.parametrize("host", HIDDEN_ADDRESSES)
async def test_an_address_that_leads_inside_is_refused_before_any_connection(
    server: RunningServer, host: str
):
    client_id = f"https://{host}/agent.json"
    # From an address of its own: these asks count against one address's share of fetches, and
    # the other modules on this shared server ask from 127.0.0.1.
    own_address = httpx.AsyncHTTPTransport(local_address="127.0.0.4")
    async with httpx.AsyncClient(transport=own_address, timeout=20) as http:
        answered = await http.get(authorize_url(server.base_url, client_id, CALLBACK_URI, pkce()[1]))
    assert answered.status_code == 400 and "location" not in answered.headers
    assert "Romergo does not fetch those" in reason(answered), reason(answered)


@pytest.mark.parametrize("host", ["[64:ff9b::a9fe:a9fe]", "[::ffff:169.254.169.254]", "224.0.0.1"])
async def test_allowing_private_documents_still_refuses_link_local_and_multicast(
    developer_server: RunningServer, host: str
):
    client_id = f"https://{host}/agent.json"
    async with httpx.AsyncClient(timeout=20) as http:
        answered = await http.get(
            authorize_url(developer_server.base_url, client_id, CALLBACK_URI, pkce()[1])
        )
    assert answered.status_code == 400
    assert "Romergo does not fetch those" in reason(answered), reason(answered)


async def test_a_refusal_reads_the_same_whether_the_document_server_answered_401_or_is_down(
    developer_server: RunningServer,
):
    pages = {"/agent.json": (401, b'{"error": "who are you?"}')}
    async with serving(pages) as site, httpx.AsyncClient(timeout=20) as http:
        unauthorized = await http.get(
            authorize_url(developer_server.base_url, f"{site}/agent.json", CALLBACK_URI, pkce()[1])
        )
        down = await http.get(
            authorize_url(
                developer_server.base_url, f"{nobody_listening()}/agent.json", CALLBACK_URI, pkce()[1]
            )
        )
    assert unauthorized.status_code == down.status_code == 400
    assert reason(unauthorized) == reason(down)
    assert "could not be fetched" in reason(down)
    assert "401" not in unauthorized.text and "who are you" not in unauthorized.text


def reason(page: httpx.Response) -> str:
    """The sentence the error page gives for the refusal."""
    found = re.search(r'<h1 role="alert">.*?</h1>\s*<p>(.*?)</p>', page.text, re.S)
    assert found, page.text
    return html.unescape(found.group(1))


def nobody_listening() -> str:
    """The base URL of a loopback port nothing listens on (bound, then let go)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    return f"http://127.0.0.1:{port}"
