"""Slow clients cannot hold the server: deadlines for request heads and bodies, caps on connections.

uvicorn on its own reads a request head for as long as the client takes and accepts every
connection the process can open, so a few hundred connections trickling a byte at a time used up
the open files and every other client failed. Here, as uvicorn's HTTP protocol:

- a request head must arrive whole within `head_seconds` of the connection opening or of the
  previous response ending (else 408 if part of a head came, and the connection is closed);
- a request body must keep coming: at least `BODY_BYTES_PER_WINDOW` in every `head_seconds`
  window while the server waits for it (else the connection is closed);
- connections are counted per client address and in all; one over a cap is answered 503 at once
  and closed. Trusted proxies carry many clients, so only the total cap applies to them (the proxy
  limits each client itself).

Nothing runs against a request being answered: a long-poll or an event stream may last minutes
once its head and body are in. Idle keep-alive connections are closed by uvicorn's own timeout.
"""

from __future__ import annotations

import asyncio
import ipaddress
import json
import resource
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, ClassVar

from uvicorn.config import Config
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
from uvicorn.server import ServerState

HEAD_SECONDS = 10.0
"""How long a request head may take to arrive (`ROMERGO_REQUEST_HEAD_SECONDS`)."""
BODY_BYTES_PER_WINDOW = 16 * 1024
"""A request body must bring at least this much in each `head_seconds` window (1.6 KB/s at 10 s)."""
CONNECTIONS_PER_ADDRESS = 256
"""Open connections from one client address (`ROMERGO_CONNECTIONS_PER_ADDRESS`): a browser holds a
handful, an agent one per parked wait (at most 20) and a few calls; a small office behind one
address fits many of both."""
SHARE_OF_OPEN_FILES = 0.8
RESERVED_FILES = 64
"""Open files kept out of the connection cap: the database and its journal, uploads, logs, the
demo agent's pipes, a PostgreSQL pool."""
FEWEST_CONNECTIONS = 16


@dataclass(frozen=True)
class ConnectionRules:
    total: int
    """Open connections in all; see `total_for_open_files`."""
    per_address: int = CONNECTIONS_PER_ADDRESS
    head_seconds: float = HEAD_SECONDS
    body_bytes_per_window: int = BODY_BYTES_PER_WINDOW
    uncapped_networks: tuple[str, ...] = ()
    """Addresses or networks only the total cap applies to (trusted reverse proxies)."""


def total_for_open_files(open_files: int | None = None) -> int:
    """80 % of the process's open-files limit less a reserve: accepting past it would leave no file
    for the database, and the kernel would then refuse connections silently."""
    if open_files is None:
        open_files = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    if open_files == resource.RLIM_INFINITY:
        open_files = 1 << 20
    return max(FEWEST_CONNECTIONS, int(open_files * SHARE_OF_OPEN_FILES) - RESERVED_FILES)


def guarded_http_protocol(rules: ConnectionRules) -> type[asyncio.Protocol]:
    """uvicorn's HTTP protocol under `rules`, for `uvicorn.Config(http=...)`: one ledger of open
    connections for every connection the server accepts."""
    ledger = ConnectionLedger(rules)
    return type("GuardedHttp", (GuardedHttpProtocol,), {"ledger": ledger, "rules": rules})


class ConnectionLedger:
    """Which connections are open, by client address.

    A connection upgraded to a WebSocket is handed to another protocol and never says when it
    closes, so closed connections are also forgotten whenever a cap is reached.
    """

    def __init__(self, rules: ConnectionRules) -> None:
        self.rules = rules
        self.uncapped = tuple(
            ipaddress.ip_network(network, strict=False) for network in rules.uncapped_networks
        )
        self.by_address: dict[str, set[asyncio.BaseTransport]] = {}
        self.count = 0

    def admit(self, address: str, connection: asyncio.BaseTransport) -> str | None:
        """None if the connection may stay, else why not (in words for the client)."""
        if self.count >= self.rules.total:
            self._forget_closed(list(self.by_address))
            if self.count >= self.rules.total:
                return "Too many connections to this server; try again shortly."
        held = self.by_address.setdefault(address, set())
        if len(held) >= self.rules.per_address and not self._is_uncapped(address):
            self._forget_closed([address])
            if len(held) >= self.rules.per_address:
                return "Too many connections from your address; close some and try again."
        held.add(connection)
        self.count += 1
        return None

    def release(self, address: str, connection: asyncio.BaseTransport) -> None:
        held = self.by_address.get(address)
        if held is not None and connection in held:
            held.discard(connection)
            self.count -= 1
            if not held:
                del self.by_address[address]

    def _forget_closed(self, addresses: Iterable[str]) -> None:
        for address in addresses:
            for connection in [c for c in self.by_address.get(address, ()) if c.is_closing()]:
                self.release(address, connection)

    def _is_uncapped(self, address: str) -> bool:
        if not self.uncapped:
            return False
        try:
            ip = ipaddress.ip_address(address)
        except ValueError:
            return False
        return any(ip in network for network in self.uncapped)


class GuardedHttpProtocol(HttpToolsProtocol):
    """uvicorn's httptools protocol with a clock on each request's head and body and a place in the
    ledger. The clock runs only while the server waits for the client, never while it answers."""

    ledger: ClassVar[ConnectionLedger]
    rules: ClassVar[ConnectionRules]

    def __init__(
        self,
        config: Config,
        server_state: ServerState,
        app_state: dict[str, Any],
        _loop: asyncio.AbstractEventLoop | None = None,
    ) -> None:
        super().__init__(config, server_state, app_state, _loop)
        self.address = ""
        self.clock: asyncio.TimerHandle | None = None
        self.head_started = False
        self.body_bytes = 0
        self.refused = False

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self.address = self.client[0] if self.client else ""
        refusal = self.ledger.admit(self.address, transport)
        if refusal is not None:
            self.refused = True
            transport.write(_answer(503, "unavailable", refusal, retry_after=5))
            transport.close()
            return
        self._start_clock(self._head_overdue)

    def connection_lost(self, exc: Exception | None) -> None:
        self._stop_clock()
        self.ledger.release(self.address, self.transport)
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        if not self.refused:
            super().data_received(data)

    # The parser's events: a head begins, ends; a body arrives, ends; then the response ends.
    def on_message_begin(self) -> None:
        self.head_started = True
        super().on_message_begin()

    def on_headers_complete(self) -> None:
        self.head_started = False
        self.body_bytes = 0
        self._start_clock(self._body_check)  # stopped at once by the message's end if it has no body
        super().on_headers_complete()

    def on_body(self, body: bytes) -> None:
        self.body_bytes += len(body)
        super().on_body(body)

    def on_message_complete(self) -> None:
        self._stop_clock()
        super().on_message_complete()

    def on_response_complete(self) -> None:
        next_request_waiting = bool(self.pipeline)
        super().on_response_complete()
        if not next_request_waiting and not self.transport.is_closing():
            self._start_clock(self._head_overdue)

    def handle_websocket_upgrade(self) -> None:
        self._stop_clock()  # the WebSocket protocol takes the connection over
        super().handle_websocket_upgrade()

    # The clock.
    def _head_overdue(self) -> None:
        self.clock = None
        if self.head_started:
            self.transport.write(_answer(408, "timeout", "The request head took too long to arrive."))
        self.transport.close()

    def _body_check(self) -> None:
        """Close the connection if the client sent too little of the body in the last window. While
        reading is paused the app has not taken what came, and a client that asked to hear
        `100 Continue` first waits for the app to start reading: neither is the client's delay."""
        self.clock = None
        waiting_for_us = self.flow.read_paused or (
            self.cycle is not None and self.cycle.waiting_for_100_continue
        )
        if waiting_for_us or self.body_bytes >= self.rules.body_bytes_per_window:
            self.body_bytes = 0
            self._start_clock(self._body_check)
        else:
            self.transport.close()

    def _start_clock(self, overdue: Callable[[], None]) -> None:
        self._stop_clock()
        self.clock = self.loop.call_later(self.rules.head_seconds, overdue)

    def _stop_clock(self) -> None:
        if self.clock is not None:
            self.clock.cancel()
            self.clock = None


def _answer(status: int, code: str, message: str, retry_after: int | None = None) -> bytes:
    """A whole HTTP/1.1 response that closes the connection, written straight to the socket."""
    reason = {408: b"Request Timeout", 503: b"Service Unavailable"}[status]
    body = json.dumps({"error": {"code": code, "message": message}}).encode()
    headers = [
        b"HTTP/1.1 %d %s" % (status, reason),
        b"content-type: application/json",
        b"content-length: %d" % len(body),
        b"connection: close",
        *([b"retry-after: %d" % retry_after] if retry_after is not None else []),
    ]
    return b"\r\n".join(headers) + b"\r\n\r\n" + body
