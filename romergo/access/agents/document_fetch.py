"""The network side of fetching an agent's metadata document: finding its addresses and asking one.

The caller checks every address the name resolves to (`public_addresses`) and then connects to
one of exactly those: the request goes to the checked IP address, with the URL's name in the
`Host` header and as the TLS server name (so the certificate is still checked against the name).
A name that answers differently the second time it is looked up (DNS rebinding) is never looked
up a second time. No proxy from the environment is used, for the same reason.

The body is read raw (no compressed encodings are asked for or accepted) and only as far as
`MAX_DOCUMENT_BYTES`; the caller puts one deadline around the lookup and the whole exchange.
"""

from __future__ import annotations

import asyncio
import socket
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from ipaddress import ip_address
from urllib.parse import urlsplit, urlunsplit

import httpx2

MAX_DOCUMENT_BYTES = 5 * 1024
FETCH_SECONDS = 5.0
"""One deadline for the whole fetch: name lookup, connection, TLS, headers and body together."""


@dataclass(frozen=True)
class Fetched:
    status: int
    body: bytes
    cache_control: str


class Unreadable(Exception):
    """The answer is one Romergo will not read: too large or in a compressed encoding."""


Lookup = Callable[[str, int], Awaitable[list[str]]]
"""A host name and port → the addresses it resolves to."""
Fetch = Callable[[str, str], Awaitable[Fetched]]
"""A document URL and the checked address to ask → the answer."""


async def look_up(host: str, port: int) -> list[str]:
    """The addresses `host` resolves to, in the resolver's order, each once."""
    found = await asyncio.get_running_loop().getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return list(dict.fromkeys(str(address[0]) for *_, address in found))


async def fetch_from(url: str, address: str) -> Fetched:
    """GET `url` from `address`, with no redirects, no proxy and a size bound."""
    parts = urlsplit(url)
    ip = ip_address(address)
    at = (f"[{ip}]" if ip.version == 6 else str(ip)) + (f":{parts.port}" if parts.port else "")
    target = urlunsplit((parts.scheme, at, parts.path, parts.query, ""))
    headers = {"Host": parts.netloc, "Accept": "application/json", "Accept-Encoding": "identity"}
    extensions = {} if _is_address(parts.hostname) else {"sni_hostname": parts.hostname}
    async with (
        httpx2.AsyncClient(follow_redirects=False, timeout=FETCH_SECONDS, trust_env=False) as http,
        http.stream("GET", target, headers=headers, extensions=extensions) as answer,
    ):
        if answer.headers.get("content-encoding", "identity").lower() != "identity":
            raise Unreadable("a compressed answer")
        if int(answer.headers.get("content-length") or 0) > MAX_DOCUMENT_BYTES:  # ValueError: not a size
            raise Unreadable("too large")
        body = bytearray()
        async for chunk in answer.aiter_raw():
            body += chunk
            if len(body) > MAX_DOCUMENT_BYTES:
                raise Unreadable("too large")
        return Fetched(answer.status_code, bytes(body), answer.headers.get("cache-control", ""))


def _is_address(host: str | None) -> bool:
    try:
        ip_address(host or "")
    except ValueError:
        return False
    return True
