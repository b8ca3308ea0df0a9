"""Where search patterns run: a few worker processes, each with a memory cap, under a hard deadline.

A regular expression from outside can need unbounded time to match (`(a+)+$`) or memory to compile,
so the server never compiles or runs one itself. `PatternWorkers` keeps up to `WORKERS` processes
(`pattern_worker.py`), started on first use and reused; each search or replace waits for a free
one, and the whole of it, waiting included, ends within `DEADLINE_SECONDS`:
- inside the worker the `regex` library's timeout is the soft budget (`TIME_LIMIT_SECONDS`, less if
  the search waited), so a slow pattern is often refused by the worker itself;
- a worker still busy after `RUN_SECONDS`, or at the deadline, is killed (and started afresh on
  next use): the refusal says the pattern takes too long;
- a worker that runs out of memory (its address space is capped at `MEMORY_CAP_BYTES`) says so and
  ends; nothing it allocated stays anywhere.
Literal queries take the same path: one way to search. On a 2,000-scene story (56,000 texts, 3.9
million characters) the trip there and back adds 0.1-0.3 s to a search of ~1 s, measured on a busy
two-core machine; the encoding and decoding happen in threads, so the event loop is free throughout
(matching in the server held it 0.3-0.5 s per search of such a story).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import sys
import time
from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

from romergo.common.errors import RomergoError, invalid
from romergo.story import pattern_worker
from romergo.story.patterns import SearchQuery

WORKERS = 2
TIME_LIMIT_SECONDS = 2.0
"""The soft budget inside the worker, for all the texts one search or replace looks at together
(the `regex` library looks at the clock only now and then: it may stop seconds late)."""
RUN_SECONDS = 2.5
"""The hard limit on one run in a worker: past it the worker is killed."""
DEADLINE_SECONDS = 5.0
"""From the moment a search asks for a worker to its answer, waiting for a free one included."""
MEMORY_CAP_BYTES = 512 * 1024 * 1024
"""A worker's address space; the interpreter and `regex` take ~30 MB of it."""
LEEWAY_SECONDS = 0.5
"""Kept between the soft budget and the hard limit, for the texts' trip and the worker's answer."""
WORKER_SCRIPT = Path(pattern_worker.__file__)
READ_BUFFER_BYTES = 2**22
"""How much of an answer is read ahead (asyncio's default, 64 KB, makes a long story's answer crawl)."""

TOO_SLOW = (
    f"The pattern takes too long to run over this story (a search may run for {TIME_LIMIT_SECONDS:g} "
    "seconds); make it simpler (nested repeats such as (a+)+ are the usual cause)."
)
BUSY = (
    "The server is busy with other searches: this one could not start within "
    f"{DEADLINE_SECONDS:g} seconds; try again in a moment."
)


def too_big(memory_cap: int) -> str:
    return f"The pattern needs more memory than a search may use ({memory_cap // 2**20} MB); make it simpler."


class PatternWorkers:
    """Runs queries over texts in worker processes; `close` ends them (the server's shutdown)."""

    def __init__(
        self,
        workers: int = WORKERS,
        deadline: float = DEADLINE_SECONDS,
        run_seconds: float = RUN_SECONDS,
        memory_cap: int = MEMORY_CAP_BYTES,
    ) -> None:
        self.deadline = deadline
        self.run_seconds = run_seconds
        self.memory_cap = memory_cap
        self._workers = [_Worker(memory_cap) for _ in range(workers)]
        self._idle = list(self._workers)
        self._free = asyncio.Semaphore(workers)

    async def spans(self, query: SearchQuery, texts: Sequence[str]) -> list[list[tuple[int, int]]]:
        """For each text, where the query matches in it (empty matches skipped)."""
        answer = await self._run({"op": "spans", "query": asdict(query), "texts": list(texts)})
        # Tens of thousands of texts may match: unpacked off the event loop.
        return await asyncio.to_thread(_unpacked, answer["spans"], len(texts))

    async def replaced(
        self, query: SearchQuery, replacement: str, texts: Sequence[str], max_chars: int
    ) -> dict[str, tuple[str, int]]:
        """Each text that matches, with its new text and how many matches were replaced; a new
        text over `max_chars` comes cut at `max_chars + 1` (it is only there to be refused)."""
        request = {
            "op": "replace",
            "query": asdict(query),
            "texts": list(texts),
            "replacement": replacement,
            "max_chars": max_chars,
        }
        answer = await self._run(request)
        return {texts[index]: (new_text, count) for index, new_text, count in answer["replaced"]}

    async def close(self) -> None:
        for worker in self._workers:
            await worker.stop()

    async def _run(self, request: dict[str, Any]) -> dict[str, Any]:
        deadline = time.monotonic() + self.deadline
        try:
            async with asyncio.timeout(self.deadline - LEEWAY_SECONDS):
                await self._free.acquire()
        except TimeoutError:
            raise RomergoError("rate_limited", BUSY) from None
        worker = self._idle.pop()
        try:
            seconds = min(self.run_seconds, deadline - time.monotonic())
            request["budget"] = min(TIME_LIMIT_SECONDS, seconds - LEEWAY_SECONDS)
            answer = await worker.ask(request, seconds)
        finally:
            self._idle.append(worker)
            self._free.release()
        if "refused" in answer:
            raise invalid(self._in_our_words(answer))
        return answer

    def _in_our_words(self, refusal: dict[str, Any]) -> str:
        """The worker's reasons in the server's words, which name the limits."""
        reason = refusal.get("reason")
        if reason == "time":
            return TOO_SLOW
        if reason == "memory":
            return too_big(self.memory_cap)
        sentence: str = refusal["refused"]  # the pattern's syntax, in the library's words
        return sentence


def _unpacked(flat: list[int], texts: int) -> list[list[tuple[int, int]]]:
    """The worker's flat answer (index, count, then start and end of each match) per text."""
    found: list[list[tuple[int, int]]] = [[] for _ in range(texts)]
    at = 0
    while at < len(flat):
        index, count = flat[at], flat[at + 1]
        offsets = flat[at + 2 : at + 2 + 2 * count]
        found[index] = list(zip(offsets[::2], offsets[1::2], strict=True))
        at += 2 + 2 * count
    return found


class _Worker:
    """One worker process, started when first asked, stopped when it overran or ran out of memory."""

    def __init__(self, memory_cap: int) -> None:
        self.memory_cap = memory_cap
        self.process: asyncio.subprocess.Process | None = None

    async def ask(self, request: dict[str, Any], seconds: float) -> dict[str, Any]:
        try:
            async with asyncio.timeout(seconds):
                answer = await self._exchange(request)
        except TimeoutError:
            await self.stop()
            raise invalid(TOO_SLOW) from None
        except (asyncio.IncompleteReadError, ConnectionError):  # it died: out of memory, most likely
            await self.stop()
            raise invalid(too_big(self.memory_cap)) from None
        except BaseException:  # cancelled mid-exchange: its next answer would belong to no one
            await self.stop()
            raise
        if answer.get("reason") == "memory":  # the worker ends to give its memory back
            await self.stop()
        return answer

    async def stop(self) -> None:
        process, self.process = self.process, None
        if process is None:
            return
        with contextlib.suppress(ProcessLookupError):
            process.kill()
        await process.wait()

    async def _exchange(self, request: dict[str, Any]) -> dict[str, Any]:
        process = self.process
        if process is None or process.returncode is not None:
            process = await self._start()
        assert process.stdin is not None and process.stdout is not None
        # A long story's texts take tens of milliseconds to encode: not on the event loop.
        process.stdin.write(await asyncio.to_thread(pattern_worker.encode, request))
        await process.stdin.drain()
        size = int.from_bytes(await process.stdout.readexactly(pattern_worker.HEADER_BYTES), "big")
        body = await process.stdout.readexactly(size)
        answer: dict[str, Any] = await asyncio.to_thread(json.loads, body)
        return answer

    async def _start(self) -> asyncio.subprocess.Process:
        # Isolated mode (-I): the worker's own directory is not on its path and no environment
        # variable changes what it imports; it needs the standard library and `regex` only.
        self.process = await asyncio.create_subprocess_exec(
            sys.executable,
            "-I",
            str(WORKER_SCRIPT),
            str(self.memory_cap),
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            limit=READ_BUFFER_BYTES,
        )
        return self.process
