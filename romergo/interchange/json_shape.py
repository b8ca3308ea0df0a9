"""A JSON document's shape checked in one pass that keeps nothing, before it is read for real.

`json.loads` builds every object it reads: a `story.json` of a million scenes was five gigabytes
before anything could count them, and 200,000 nested brackets ended in a RecursionError. The scan
below lets the json module parse while each object is replaced by its depth alone, and counts the
lists the story is made of as they close, so a document past a limit is refused part way through,
having held little more than the text it was given.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, cast

from romergo.common.errors import RomergoError, invalid
from romergo.interchange.bounds import LIMITS, Counted, Tally

MAX_JSON_DEPTH = 32
"""Objects and lists inside one another (a Romergo archive's `story.json` needs 7)."""
MAX_JSON_OBJECTS = sum(LIMITS.values()) + 1


class _Refused(Exception):
    """Ends the scan from inside the json module; turned into the refusal it carries."""

    def __init__(self, refusal: Exception) -> None:
        self.refusal = refusal


@dataclass(frozen=True)
class _Shape:
    depth: int


@dataclass
class _Scan:
    what: str
    tally: Tally = field(default_factory=Tally)
    objects: int = 0

    def __call__(self, pairs: list[tuple[str, Any]]) -> _Shape:
        self.objects += 1
        if self.objects > MAX_JSON_OBJECTS:
            raise _Refused(invalid(f"{self.what} holds more than {MAX_JSON_OBJECTS:,} objects."))
        depth = 1
        for key, value in pairs:
            if isinstance(value, list) and key in LIMITS:
                self._count(key, len(value))
            depth = max(depth, 1 + _depth(value, MAX_JSON_DEPTH - 1))
        if depth > MAX_JSON_DEPTH:
            raise _Refused(self.too_deep())
        return _Shape(depth)

    def _count(self, key: str, number: int) -> None:
        try:
            self.tally.add(cast(Counted, key), number)
        except RomergoError as refusal:
            raise _Refused(refusal) from None

    def too_deep(self) -> Exception:
        return invalid(f"{self.what} nests objects and lists more than {MAX_JSON_DEPTH} deep.")


def loaded(raw: bytes, what: str) -> Any:
    """The JSON in `raw` (named `what` in refusals), once it is known to be within the limits."""
    scan = _Scan(what)
    try:
        shape = json.loads(raw, object_pairs_hook=scan)
    except _Refused as refused:
        raise refused.refusal from None
    except RecursionError:
        raise scan.too_deep() from None
    except ValueError as error:  # not JSON, not UTF-8, a number past what Python reads
        raise invalid(f"{what} is not JSON: {error}.") from None
    if not isinstance(shape, _Shape):
        raise invalid(f"{what} is not a JSON object.")
    return json.loads(raw)


def _depth(value: Any, room: int) -> int:
    """How deep `value` nests (a scalar: 0), looked at no further than `room` levels."""
    if isinstance(value, _Shape):
        return value.depth
    if not isinstance(value, list) or not value:
        return 1 if isinstance(value, list) else 0
    if room <= 0:
        return 1 + MAX_JSON_DEPTH
    return 1 + max(_depth(item, room - 1) for item in value)
