"""Pages of a long result, each small enough for every common agent harness to show it whole.

A paged tool hands over the list it pages over (lines of a scene, scenes of a chapter, ...) and
a function that builds the result's data from a slice of it. Each page holds as many whole items
as fit (always at least one, so reading always advances; an item is never split). The page token
is stateless and opaque to the agent: base64url of `[version, offset, call digest, list digest]`.
The call digest ties it to the same tool and arguments (another call's token is
`invalid_argument`); the list digest is over the items' ids, so a token taken before items were
added, removed or reordered is `conflict` instead of silently skipping or repeating items. The
page size is not part of the call: an agent may change it from one page to the next.

Page size. Harnesses hand the model either form of a result, the text rendering or the
structured JSON, and cut what is too long: Codex keeps about 12,000 characters (its estimate
counts UTF-8 bytes, four to a token) and drops the middle, Gemini CLI and opencode cut from the
middle too, Claude Code keeps 50,000 unless the tool declares more. So both forms of a page are
measured, in UTF-8 bytes (never fewer than the characters, or the UTF-16 units JavaScript
counts), and by default each stays within DEFAULT_PAGE_CHARS, 10,000: under Codex's limit with
room to spare. An agent whose harness shows more asks for `page_size` up to MAX_PAGE_CHARS (what
the paged tools declare to Claude Code as `anthropic/maxResultSizeChars`); a size outside
MIN_PAGE_CHARS..MAX_PAGE_CHARS is clamped and `page_note` says so. One item larger than the page
(a very long line, shown escaped) gets a page of its own, whole, and `page_note` says that too:
cutting it would hand an agent text it could mistake for the line and write back.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import hashlib
import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from mcp.types import CallToolResult, TextContent
from pydantic import BaseModel

from mcp_tools.envelope import new_nonce, render, rendered_envelope
from romergo.common.errors import RomergoError, invalid

T = TypeVar("T")
VERSION = 1
MAX_TOKEN_CHARS = 200
WHOLE_FIRST = 200
LONG_LIST = 500
DEFAULT_PAGE_CHARS = 10_000
"""Each form of a page by default: fits Codex's ~12,000, the smallest default of the harnesses."""
MIN_PAGE_CHARS = 2_000
"""The smallest page an agent may ask for: below it the repeated parts (a scene's header and
choices, the envelope) would leave room for hardly any items."""
MAX_PAGE_CHARS = 60_000
"""The largest page an agent may ask for: within what Claude Code keeps once the tool declares it,
and a bound on the work and memory of one page."""
_TOKEN = re.compile(r"^[A-Za-z0-9_-]+$")


def paged(
    call: str,
    items: Sequence[T],
    keys: Sequence[str],
    build: Callable[[Sequence[T]], BaseModel],
    page: str | None,
    page_size: int | None = None,
) -> CallToolResult:
    """The page of `items` that starts where `page` says (the first without one).

    `call` names the tool and the arguments that select the list (e.g. "get_scene:scn_x");
    `keys` are the items' ids, in order. `page_size` is the agent's (clamped, see Sizing).
    """
    if len(keys) != len(items):
        raise ValueError("one key per item")
    listed = Listed(call, keys)
    start = read_token(page, listed)
    sizing = Sizing.asked(page_size)
    nonce = new_nonce()
    pages: dict[int, CallToolResult] = {}

    def rendered(end: int, note: str | None = sizing.note) -> int:
        """Render the page that ends at `end`, keep it for sending, and say how large it is."""
        token = listed.token(end) if end < len(items) else None
        dumped = build(items[start:end]).model_dump(mode="json")
        text = render(dumped, nonce, token, note)
        pages[end] = rendered_envelope(dumped, text, nonce, token is not None, token, note)
        return form_size(pages[end])

    end = _fitting_end(start, len(items), rendered, sizing.chars)
    if end not in pages:
        rendered(end)
    if end == start + 1 and form_size(pages[end]) > sizing.chars:
        rendered(end, sizing.oversized())
    # The page that was measured is the page that is sent: built and rendered once (an oversized
    # item once more, to say so).
    return pages[end]


@dataclass(frozen=True)
class Sizing:
    """The page size a call uses, and what the result says about it when it is not what was asked."""

    chars: int
    note: str | None = None

    @classmethod
    def asked(cls, page_size: int | None) -> Sizing:
        if page_size is None:
            return cls(DEFAULT_PAGE_CHARS)
        if page_size < MIN_PAGE_CHARS:
            return cls(
                MIN_PAGE_CHARS,
                f"page_size is at least {MIN_PAGE_CHARS:,}; pages of {MIN_PAGE_CHARS:,} were used.",
            )
        if page_size > MAX_PAGE_CHARS:
            return cls(
                MAX_PAGE_CHARS,
                f"page_size is at most {MAX_PAGE_CHARS:,}; pages of {MAX_PAGE_CHARS:,} were used.",
            )
        return cls(page_size)

    def oversized(self) -> str:
        said = f"{self.note} " if self.note else ""
        return (
            f"{said}This page holds one item, whole, larger than page_size ({self.chars:,}): "
            "an item is never split."
        )


def form_size(result: CallToolResult) -> int:
    """The larger of the page's two forms, text and structured JSON, in UTF-8 bytes."""
    text = sum(len(part.text.encode()) for part in result.content if isinstance(part, TextContent))
    structured = json.dumps(result.structured_content, ensure_ascii=False)
    return max(text, len(structured.encode()))


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
    page_size: int | None = None,
) -> CallToolResult:
    """`paged`, in a worker thread when the list is long (over LONG_LIST items).

    Fitting a page of a long list renders a few pages of it: ~13 ms of pure Python for the story
    check of 2,000 scenes, in which every other call on the event loop waited. A short
    list is paged where it is: the hand-off would cost more than it spares."""
    if len(items) <= LONG_LIST:
        return paged(call, items, keys, build, page, page_size)
    return await asyncio.to_thread(paged, call, items, keys, build, page, page_size)


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
