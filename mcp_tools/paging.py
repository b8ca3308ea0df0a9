"""Pages of a long result: at most 64 KB of rendered text each, continued with `next_page`.

A paged tool hands over the list it pages over (lines of a scene, scenes of a chapter, ...) and
a function that builds the result's data from a slice of it. Each page holds as many items as
fit (always at least one, so reading always advances). The page token is stateless and opaque
to the agent: base64url of `[version, offset, call digest, list digest]`. The call digest ties
it to the same tool and arguments (another call's token is `invalid_argument`); the list digest
is over the items' ids, so a token taken before items were added, removed or reordered is
`conflict` instead of silently skipping or repeating items.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import hashlib
import json
import re
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from mcp.types import CallToolResult
from pydantic import BaseModel

from mcp_tools.envelope import TEXT_LIMIT_BYTES, new_nonce, render, rendered_envelope, rendered_size
from romergo.errors import RomergoError, invalid

T = TypeVar("T")
VERSION = 1
MAX_TOKEN_CHARS = 200
WHOLE_FIRST = 200
LONG_LIST = 500
_TOKEN = re.compile(r"^[A-Za-z0-9_-]+$")


def paged(
    call: str,
    items: Sequence[T],
    keys: Sequence[str],
    build: Callable[[Sequence[T]], BaseModel],
    page: str | None,
    limit: int | None = None,
) -> CallToolResult:
    """The page of `items` that starts where `page` says (the first without one).

    `call` names the tool and the arguments that select the list (e.g. "get_scene:scn_x");
    `keys` are the items' ids, in order. `limit` (UTF-8 bytes of text) defaults to 64 KB.
    """
    limit = TEXT_LIMIT_BYTES if limit is None else limit
    if len(keys) != len(items):
        raise ValueError("one key per item")
    listed = Listed(call, keys)
    start = read_token(page, listed)
    nonce = new_nonce()
    pages: dict[int, tuple[object, str]] = {}

    def rendered(end: int) -> int:
        """Render the page that ends at `end`, keep it for sending, and say how large it is."""
        token = listed.token(end) if end < len(items) else None
        dumped = build(items[start:end]).model_dump(mode="json")
        pages[end] = (dumped, render(dumped, nonce, token))
        return rendered_size(pages[end][1])

    end = _fitting_end(start, len(items), rendered, limit)
    next_page = listed.token(end) if end < len(items) else None
    if end not in pages:
        rendered(end)
    # The page that was measured is the page that is sent: built and rendered once.
    dumped, text = pages[end]
    return rendered_envelope(dumped, text, nonce, next_page is not None, next_page)


def _fitting_end(start: int, total: int, size: Callable[[int], int], limit: int) -> int:
    """The largest end whose page fits; one item always goes in, so reading always advances.

    A short rest (at most WHOLE_FIRST items: a scene's lines, a chapter's scenes) is tried whole
    first, which is nearly always the answer. In a longer one each probe is aimed by the bytes per
    item the last two pages measured show (a page's size grows about linearly with its items): two
    or three pages near the right size are rendered, where halving the range rendered a dozen. An
    aimed probe that does not halve what is left is followed by one that does, so uneven items
    cannot make the search crawl; and until a page is found that does not fit, a probe goes at most
    four times as far as the largest that does (or WHOLE_FIRST items), so a long list (thousands of
    problems) is never rendered whole just to learn that it does not fit on one page."""
    if total - start <= WHOLE_FIRST and size(total) <= limit:
        return total
    low, low_size = start + 1, size(start + 1)
    high: int | None = None  # the smallest end known not to fit
    per_item = max(1, low_size)  # at first the one-item page, envelope and all: an overestimate
    halve = False
    while low < total and (high is None or high - low > 1):
        if high is None:
            ceiling, width = min(total, low + max(4 * (low - start), WHOLE_FIRST)), None
        else:
            ceiling, width = high - 1, high - low
        probe = (low + high) // 2 if halve and high is not None else low + (limit - low_size) // per_item
        probe = max(low + 1, min(probe, ceiling))
        probe_size = size(probe)
        per_item = max(1, -(-(probe_size - low_size) // (probe - low)))
        if probe_size <= limit:
            low, low_size = probe, probe_size
        else:
            high = probe
        halve = width is not None and high is not None and 2 * (high - low) > width
    return low


async def paged_aside(
    call: str,
    items: Sequence[T],
    keys: Sequence[str],
    build: Callable[[Sequence[T]], BaseModel],
    page: str | None,
) -> CallToolResult:
    """`paged`, in a worker thread when the list is long (over LONG_LIST items).

    Fitting a page of a long list renders a few pages of it: ~13 ms of pure Python for the story
    check of 2,000 scenes, in which every other call on the event loop waited (issue 16). A short
    list is paged where it is: the hand-off would cost more than it spares."""
    if len(items) <= LONG_LIST:
        return paged(call, items, keys, build, page)
    return await asyncio.to_thread(paged, call, items, keys, build, page)


class Listed:
    """One call's list, whose digests every token of it carries: taken once per call, not once per
    page rendered (a digest goes over every key; a long check renders several pages to fit one)."""

    def __init__(self, call: str, keys: Sequence[str]) -> None:
        self.call_digest = _digest(call)
        self.keys_digest = _digest(*keys)
        self.count = len(keys)

    def token(self, offset: int) -> str:
        raw = json.dumps([VERSION, offset, self.call_digest, self.keys_digest], separators=(",", ":"))
        return base64.urlsafe_b64encode(raw.encode()).decode().rstrip("=")


def read_token(page: str | None, listed: Listed) -> int:
    """The offset a page token points at; 0 without one. Anything not made by us is refused."""
    if page is None:
        return 0
    bad = invalid("page is not a next_page value from this tool; omit it to start from the beginning.")
    decoded = _decoded(page)
    if (
        decoded is None
        or decoded[0] != VERSION
        or type(decoded[1]) is not int
        or decoded[2] != listed.call_digest
    ):
        raise bad
    offset: int = decoded[1]
    if decoded[3] != listed.keys_digest:
        raise RomergoError(
            "conflict",
            "The project changed since the first page was read; read again without page.",
        )
    if not 0 < offset < listed.count:
        raise bad
    return offset


def _decoded(page: object) -> list[Any] | None:
    """The four parts of a token in our format, or None for anything else."""
    if not isinstance(page, str) or not page or len(page) > MAX_TOKEN_CHARS or not _TOKEN.match(page):
        return None
    try:
        decoded = json.loads(base64.urlsafe_b64decode(page + "=" * (-len(page) % 4)))
    except (binascii.Error, ValueError):
        return None
    return decoded if isinstance(decoded, list) and len(decoded) == 4 else None


def _digest(*parts: str) -> str:
    hasher = hashlib.sha256()
    for part in parts:
        hasher.update(part.encode("utf-8"))
        hasher.update(b"\x00")
    return hasher.hexdigest()[:16]
