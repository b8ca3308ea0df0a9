"""The demo agent's main loop: join, long-poll, handle each command once, report, repeat.

It is an outside agent: it talks to Romergo only through the public MCP tools, exactly as Claude
or Codex would. It survives poll timeouts, redelivery and server restarts (reconnecting with
backoff and carrying on with its channel and cursor) and stops on `channel_ended` or when asked.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from demo_agent.intents import classify
from demo_agent.rules import RULES, NeedsAnswer, Work, no_changes
from demo_agent.session import ToolCaller, ToolFailure, connect, data_of

log = logging.getLogger("romergo.demo_agent")
WAIT_SECONDS = 25
BACKOFF = (0.5, 1.0, 2.0, 4.0, 8.0)
FATAL = ("code_invalid", "channel_ended", "unauthorized", "permission_denied")
GONE = ("command_cancelled", "command_finished", "not_claimed_by_you")
LEAVE_SECONDS = 2
OUT_OF_REACH = (
    "That part of the story is outside this room's reach, so I left it alone and changed nothing. "
    "You can widen the room under Channel settings."
)
T = TypeVar("T")


class DemoAgent:
    def __init__(self, url: str, code: str, token: str, say: Callable[[str], None] | None = None) -> None:
        self.url = url
        self.code = code
        self.token = token
        self.say = say or (lambda message: log.info("%s", message))
        self.channel_id: str | None = None
        self.cursor = 0
        self.handled = 0

    async def run(self, stop: asyncio.Event | None = None) -> str:
        """Work until the channel ends (returns "channel_ended"), a fatal refusal, or `stop` is set."""
        stop = stop or asyncio.Event()
        failures = 0
        while not stop.is_set():
            try:
                async with connect(self.url, self.token) as call:
                    if self.channel_id is None:
                        await self._join(call)
                    failures = 0
                    return await self._serve(call, stop)
            except ToolFailure as failure:
                if failure.code in FATAL:
                    self.say(f"Stopping: {failure.message}")
                    return failure.code
                if failure.code == "not_member":
                    self.channel_id = None  # left or removed: join again with the code
                    continue
                failures += 1
                self.say(f"Romergo refused a call ({failure.code}); trying again.")
            except asyncio.CancelledError:
                raise
            except Exception as error:  # any transport failure means: reconnect later
                failures += 1
                self.say(f"Connection lost ({type(error).__name__}); reconnecting.")
            delay = BACKOFF[min(failures, len(BACKOFF)) - 1] if failures else 0
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), delay)
        return "stopped"

    async def _join(self, call: ToolCaller) -> None:
        joined = await call("romergo_join_builder_channel", {"code": self.code})
        self.channel_id = str(joined["channel_id"])
        self.cursor = int(joined["cursor"])
        self.say(f"Joined channel {self.channel_id}; waiting for commands.")

    async def _serve(self, call: ToolCaller, stop: asyncio.Event) -> str:
        while True:
            waited = await _unless_stopped(
                call(
                    "romergo_wait_for_builder_command",
                    {"channel_id": self.channel_id, "cursor": self.cursor, "timeout_seconds": WAIT_SECONDS},
                ),
                stop,
            )
            if waited is None:
                await self._leave(call)
                return "stopped"
            if waited["status"] == "channel_ended":
                self.say("The channel has ended. Goodbye.")
                return "channel_ended"
            if waited["status"] == "timeout":
                continue
            command = waited["command"]
            await self.handle(call, command)
            self.cursor = int(waited["cursor"])
            self.handled += 1

    async def _leave(self, call: ToolCaller) -> None:
        """Asked to stop: say goodbye to the room, but never hang on the way out."""
        with contextlib.suppress(Exception):
            leave = call("romergo_leave_builder_channel", {"channel_id": self.channel_id})
            await asyncio.wait_for(leave, LEAVE_SECONDS)
            self.say("Left the channel. Goodbye.")

    async def handle(self, call: ToolCaller, command: dict[str, Any]) -> None:
        context = data_of(command.get("context") or {}) or {}
        command_id = str(command["command_id"])

        async def report(kind: str, text: str, summary: dict[str, Any] | None) -> None:
            arguments: dict[str, Any] = {"command_id": command_id, "kind": kind, "text": text}
            if summary is not None:
                arguments["summary"] = summary
            await call("romergo_report_builder_event", arguments)

        intent = classify(str(command.get("text", "")))
        self.say(
            f"Command {command_id}: {intent.value}{' (redelivered)' if command.get('redelivered') else ''}"
        )
        try:
            await RULES[intent](Work(call, command, context, report))
        except NeedsAnswer as question:
            await report("question", str(question), None)
        except ToolFailure as failure:
            if failure.code == "out_of_scope":
                await report("reply", OUT_OF_REACH, no_changes(OUT_OF_REACH))
                return
            if failure.code in GONE:
                self.say(f"Command {command_id} is no longer mine ({failure.code}); moving on.")
                return
            if failure.code in FATAL:
                raise
            await report("error", f"I could not finish this: {failure.message}", None)


async def _unless_stopped(work: Awaitable[T], stop: asyncio.Event) -> T | None:
    """The result of `work`, or None as soon as `stop` is set (the work is then cancelled).

    A long-poll parks for up to WAIT_SECONDS; Ctrl-C must not wait for it to come back.
    """
    task = asyncio.ensure_future(work)
    stopped = asyncio.ensure_future(stop.wait())
    try:
        await asyncio.wait({task, stopped}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        stopped.cancel()
    if task.done():
        return task.result()
    task.cancel()
    with contextlib.suppress(BaseException):
        await task
    return None
