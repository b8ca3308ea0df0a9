"""The conversation a joining agent gets, bounded like a page (mcp_tools/paging.py).

The room's last events can hold up to 50 reports of 8,000 characters each: far more than a
harness shows (Codex keeps about 12,000 and drops the middle). So a long text in an event is cut
to its first MAX_EVENT_TEXT characters, followed by a marker that says how many were left out;
then the newest events whose result fits DEFAULT_PAGE_CHARS (both forms, UTF-8 bytes) are kept,
and the older ones are counted, not shown. The newest event is always kept: it is what the agent
most needs, and the agent's own work is read back whole with romergo_list_command_changes.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from mcp.types import CallToolResult

from mcp_tools.paging import DEFAULT_PAGE_CHARS, form_size
from romergo.channels import wire

MAX_EVENT_TEXT = 1_000
"""The characters of one text in an event of the conversation; the owner's panel shows them all."""


def newest_that_fit(
    events: Sequence[wire.Event], result_of: Callable[[list[wire.Event], int], CallToolResult]
) -> CallToolResult:
    """The result of `result_of(kept, left_out)` for the most newest events that fit, at least one.

    Fewer events make a smaller result, so the count is found by halving: at most six results of
    fifty events are rendered."""
    shortened = [_shortened(event) for event in events]

    def result(count: int) -> CallToolResult:
        return result_of(shortened[len(shortened) - count :], len(shortened) - count)

    whole = result(len(shortened))
    if len(shortened) <= 1 or form_size(whole) <= DEFAULT_PAGE_CHARS:
        return whole
    low, high = 1, len(shortened)  # low: known to be kept; high: known not to fit
    fitting = result(low)
    while high - low > 1:
        middle = (low + high) // 2
        probe = result(middle)
        if form_size(probe) <= DEFAULT_PAGE_CHARS:
            low, fitting = middle, probe
        else:
            high = middle
    return fitting


def _shortened(event: wire.Event) -> wire.Event:
    """The event with each long text in its data cut, and marked as cut."""
    data = {key: _cut(value) for key, value in event.data.items()}
    return event if data == event.data else event.model_copy(update={"data": data})


def _cut(value: Any) -> Any:
    """The value with each string in it longer than MAX_EVENT_TEXT cut and marked (a reply's
    summary and a command's selection hold theirs deeper in)."""
    if isinstance(value, dict):
        return {key: _cut(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_cut(item) for item in value]
    if not isinstance(value, str) or len(value) <= MAX_EVENT_TEXT:
        return value
    left_out = len(value) - MAX_EVENT_TEXT
    return (
        f"{value[:MAX_EVENT_TEXT]} [cut here: {left_out:,} more characters left out of this text; "
        "the owner's agent panel shows it whole]"
    )
