"""Bookkeeping that the busy path notes in memory and one write stores for many calls at once.

The settings page shows when each grant was last used and each agent's last accepted call. Both
used to be written by the call itself, at most once a minute per grant or agent: with a thousand
agents re-polling their waits that is a write transaction every few hundredths of a second, each
waiting its turn on the database file (docs/performance.md). The call now notes the
value here, and every `every` seconds one write (a ledger's, one statement run once per value)
stores all noted since.

What is noted and not written yet stays readable (`noted`, `pending`), so this process's own
settings page is never behind; another instance's page may be, by `every`. A value noted when the
process dies is lost: the page shows an older one. A write that fails, or that a clean stop
interrupts, keeps its values for the next one.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Hashable, Mapping
from typing import Generic, TypeVar

logger = logging.getLogger(__name__)

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class NotedWrites(Generic[K, V]):
    """Values noted per key, and the task that writes them together."""

    def __init__(
        self,
        store: Callable[[Mapping[K, V]], Awaitable[None]],
        *,
        every: float,
        keep_first: bool,
        what: str,
    ) -> None:
        self.store = store
        """Writes the values given, all in one transaction (a ledger's method)."""
        self.every = every
        """Seconds from the first value noted to the write that takes it."""
        self.keep_first = keep_first
        """A key noted again before its write keeps its first value (else its newest)."""
        self.what = what
        self._noted: dict[K, V] = {}
        self._in_write: dict[K, V] = {}
        """Taken by the write under way: still shown until it is committed."""
        self._writing: asyncio.Task[None] | None = None

    def note(self, key: K, value: V) -> None:
        """Written within `every` seconds."""
        if self.keep_first:
            self._noted.setdefault(key, value)
        else:
            self._noted[key] = value
        if self._writing is None or self._writing.done():
            self._writing = asyncio.get_running_loop().create_task(self._later(), name=self.what)

    def noted(self, key: K) -> V | None:
        """The key's value noted here and not written yet."""
        found = self._noted.get(key)
        return found if found is not None else self._in_write.get(key)

    def pending(self) -> dict[K, V]:
        """Every value noted here and not written yet."""
        return {**self._in_write, **self._noted}

    async def write(self) -> None:
        """Every value noted so far, in one write."""
        if not self._noted:
            return
        self._in_write, self._noted = self._noted, {}
        try:
            await self.store(self._in_write)
        except BaseException:
            # Not written (it failed, or a stop cancelled it): kept for the next write. A key
            # noted again meanwhile keeps that newer value.
            for key, value in self._in_write.items():
                self._noted.setdefault(key, value)
            raise
        finally:
            self._in_write = {}

    async def close(self) -> None:
        """Write what is noted now (a clean stop), instead of after the wait. A write under way is
        stopped first: what it had taken comes back (`write`) and goes in this one."""
        writing = self._writing
        if writing is not None and not writing.done():
            writing.cancel()
            await asyncio.gather(writing, return_exceptions=True)
        await self.write()

    async def _later(self) -> None:
        # Until nothing is left: what was noted while a write was under way goes in the next one.
        while self._noted:
            await asyncio.sleep(self.every)
            try:
                await self.write()
            except Exception:  # the calls were answered; only the settings page is behind
                logger.exception("Writing %s failed", self.what)
                return
