"""What a wait takes from outside: the event number it starts after, and how long it may park.

Agents reach Romergo through harnesses that change tool schemas on the way: some drop `minimum`,
`maximum` and `default` before the model sees them, and those written in JavaScript round any
integer past 2^53 - 1. So:

- a wait's range is also said in words, and a wait asked for outside it parks as long as the range
  allows and says so in a note (`wait_length`): 50 seconds instead of 60 changes nothing an agent
  relies on, since a timed-out wait is simply called again;
- a wait that is kept alive (the call asked for progress, so Romergo sends a notification every
  10 s) may park nine minutes instead of 50 seconds. Every timed-out wait costs the agent one model
  request: 72 an hour at 50 s, fewer than 7 at nine minutes. Claude Code and opencode keep a call
  open while progress arrives; Gemini CLI cuts any call at ten minutes, so nine fit under it; Codex
  cuts one at its `tool_timeout_sec` (60 s unless raised) whatever arrives, and is told to stay at 50.
  Every one of them sends a progress token, so the server cannot tell them apart: the agent is told
  which length suits its client;
- a cursor or an `after` names one event exactly, so it is never bent into range: past the largest
  integer a JavaScript number holds exactly it is refused, naming the range (`EventNumber`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

from pydantic import AfterValidator, Field
from pydantic_core import PydanticCustomError

MIN_WAIT = 1
MAX_WAIT = 50
DEFAULT_WAIT = 25
"""Seconds a wait may park: the shortest, the longest, and what it parks when not told."""
MAX_KEPT_ALIVE_WAIT = 540
"""The longest a kept-alive wait parks (one with progress notifications): under Gemini CLI's
ten-minute limit on any call."""

MAX_EVENT_NUMBER = 2**53 - 1
"""The largest cursor or event number taken from outside: the largest integer a JavaScript number
holds exactly (9007199254740991). A channel numbers its events one by one, so no real cursor
comes near it; a larger one could only reach the agent rounded to another event's number."""

EVENT_NUMBER_RANGE = f"a whole number from 0 to {MAX_EVENT_NUMBER}"

SHOWN_UP_TO = 10**6
"""A requested length is repeated in the note up to this; beyond it the note just says too long."""


@dataclass(frozen=True)
class WaitLength:
    """How long a wait parks, and, when that is not what was asked, a note saying so."""

    seconds: int
    note: str | None = None


def wait_length(asked: int, kept_alive: bool = False) -> WaitLength:
    """`asked` brought into the range a wait may park, with a note when it had to be."""
    longest = longest_wait(kept_alive)
    if asked > longest:
        why = f"more than the longest {'kept-alive ' if kept_alive else ''}wait ({longest} seconds)"
        if not kept_alive:
            why += f"; a call that asks for progress notifications may wait up to {MAX_KEPT_ALIVE_WAIT}"
        return WaitLength(longest, _note(asked, why, longest, longest))
    if asked < MIN_WAIT:
        return WaitLength(
            MIN_WAIT,
            _note(asked, f"less than the shortest wait ({MIN_WAIT} second)", MIN_WAIT, longest),
        )
    return WaitLength(asked)


def longest_wait(kept_alive: bool) -> int:
    """How long a wait may park: longer when progress notifications keep the call alive."""
    return MAX_KEPT_ALIVE_WAIT if kept_alive else MAX_WAIT


def _note(asked: int, why: str, waited: int, longest: int) -> str:
    given = f" {asked}," if abs(asked) < SHOWN_UP_TO else ""
    unit = "second" if waited == 1 else "seconds"
    return (
        f"timeout_seconds was{given} {why}: this call waited up to {waited} {unit}. "
        f"Pass {MIN_WAIT} to {longest} (default {DEFAULT_WAIT})."
    )


def _exact_event_number(number: int) -> int:
    if not 0 <= number <= MAX_EVENT_NUMBER:
        raise PydanticCustomError(
            "event_number_range",
            f"must be {EVENT_NUMBER_RANGE} (past that, JavaScript numbers are no longer exact)",
        )
    return number


EventNumber = Annotated[
    int,
    Field(json_schema_extra={"minimum": 0, "maximum": MAX_EVENT_NUMBER}),
    AfterValidator(_exact_event_number),
]
"""A cursor or an `after` as an argument: its schema states the range, and a number outside it is
refused with a message that names the range (a plain `le` names only the end that was crossed)."""
