"""Wake-ups between processes on one PostgreSQL database: LISTEN/NOTIFY (DESIGN.md §6).

Each process keeps one connection that LISTENs on one channel; a publish in any process becomes
`pg_notify(channel, origin|topic)` on that connection, and every other process hands the topic to
its own bus. The payload is only the topic: listeners re-read what they need, as they do for a
wake-up from their own process.

A notification can be lost (the connection dropped, the server restarted). So when the listening
connection comes back, `reconnected()` is called and the bus wakes every waiter and page to re-read
by cursor: a lost notification costs a re-check, never a command. Reconnection starts at once and
backs off to at most `MAX_BACKOFF_SECONDS` (1 s), so that re-check happens within about a second
of the database answering again.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import uuid
from collections.abc import Awaitable, Callable
from functools import partial
from typing import Any

import asyncpg
from sqlalchemy import String, bindparam, func, select
from sqlalchemy.engine import make_url

log = logging.getLogger(__name__)

CHANNEL = "romergo_wakeups"
APPLICATION_NAME = "romergo-wakeups"  # how an operator finds the listeners in pg_stat_activity
MAX_BACKOFF_SECONDS = 1.0
MAX_TOPIC_BYTES = 7000  # NOTIFY payloads stop at 8000 bytes; topics are a prefix and an id


class PostgresWakeups:
    """One process's end of the wake-up channel."""

    def __init__(
        self, url: str, deliver: Callable[[str], None], reconnected: Callable[[], Awaitable[None]]
    ) -> None:
        self._connect_args = asyncpg_args(url)
        self._deliver = deliver
        self._reconnected = reconnected
        self.origin = uuid.uuid4().hex[:12]
        self._connection: Any = None
        self._pending: list[str] = []
        self._task: asyncio.Task[None] | None = None
        self._up = asyncio.Event()
        self._sender: asyncio.Task[None] | None = None
        self.connections = 0
        """How many times the listening connection was opened (1 + reconnections)."""

    async def start(self, timeout: float = 10) -> None:  # noqa: ASYNC109 - start-up waits for the first connection
        """Listen from now on; returns once the first connection listens."""
        self._task = asyncio.create_task(self._listen_forever(), name="postgres wake-ups")
        async with asyncio.timeout(timeout):
            await self._up.wait()

    async def stop(self) -> None:
        for task in (self._task, self._sender):
            if task is not None:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
        if self._connection is not None and not self._connection.is_closed():
            await self._connection.close()

    def send(self, topic: str) -> None:
        """Tell the other processes about `topic` (after the commit that changed it)."""
        if len(topic.encode()) > MAX_TOPIC_BYTES:
            log.warning("wake-up topic too long for NOTIFY, not sent: %.60s…", topic)
            return
        self._pending.append(topic)
        if self._sender is None or self._sender.done():
            self._sender = asyncio.create_task(self._send_pending(), name="postgres notify")

    async def _send_pending(self) -> None:
        # One round trip for every topic published meanwhile: a burst of writes costs one NOTIFY batch.
        while self._pending:
            topics, self._pending = self._pending, []
            payloads = [f"{self.origin}|{topic}" for topic in dict.fromkeys(topics)]
            try:  # one sender task at a time (`send` starts another only when this one is done)
                await self._up.wait()
                await self._connection.execute(
                    "SELECT pg_notify($1, payload) FROM unnest($2::text[]) AS payload", CHANNEL, payloads
                )
            except (OSError, asyncpg.PostgresError, asyncpg.InterfaceError) as error:
                # The listener reconnects and then wakes everyone: nothing waits on this one.
                log.warning("wake-up not sent (%s); every waiter re-checks on reconnect", error)

    async def _listen_forever(self) -> None:
        backoff = 0.05
        while True:
            lost = asyncio.Event()
            try:
                connection = await asyncpg.connect(
                    **self._connect_args, server_settings={"application_name": APPLICATION_NAME}
                )
                connection.add_termination_listener(partial(_set, lost))
                await connection.add_listener(CHANNEL, self._on_notify)
            except (OSError, asyncpg.PostgresError, asyncpg.InterfaceError) as error:
                log.warning("wake-up listener cannot connect (%s); retrying in %.2f s", error, backoff)
                await asyncio.sleep(backoff)
                backoff = min(backoff * 2, MAX_BACKOFF_SECONDS)
                continue
            self._connection = connection
            self.connections += 1
            backoff = 0.05
            self._up.set()
            if self.connections > 1:
                await self._reconnected()  # what was published while we were away is re-read now
            await lost.wait()
            self._up.clear()
            log.warning("wake-up listener lost its connection; reconnecting")

    def notice(self, topic: str) -> tuple[Any, dict[str, Any]]:
        """`send`'s NOTIFY as a statement for a write transaction: sent when it commits, not at all
        when it rolls back, and without a round trip of its own."""
        return _NOTIFY, {"channel": CHANNEL, "payload": f"{self.origin}|{topic}"}

    def _on_notify(self, _connection: Any, _pid: int, _channel: str, payload: str) -> None:
        origin, _, topic = payload.partition("|")
        if origin != self.origin and topic:
            self._deliver(topic)


_NOTIFY = select(func.pg_notify(bindparam("channel", type_=String), bindparam("payload", type_=String)))


def _set(event: asyncio.Event, _connection: Any) -> None:
    event.set()


def asyncpg_args(url: str) -> dict[str, Any]:
    """asyncpg's connect() arguments for a SQLAlchemy URL."""
    parsed = make_url(url)
    return {
        "host": parsed.host,
        "port": parsed.port or 5432,
        "user": parsed.username,
        "password": parsed.password,
        "database": parsed.database,
    }
