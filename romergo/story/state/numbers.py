"""The one range every number in a story's state keeps to: finite, from -10^15 to 10^15.

Why this range: it is far beyond any count a story keeps (coins, days, courage), and every whole
number in it is exact as a float, so a value reads back unchanged through JSON, SQLite and a
JavaScript client; the sum of two values in it never overflows anything.

Where it holds:
- a number variable's starting value, a value a simulated play-through starts with, and a number
  written in a condition or an effect are refused outside it (`invalid_argument`, naming the
  range), changing nothing;
- arithmetic while a story plays saturates at the ends: `set coins = coins + coins` repeated
  stops at 10^15 (and a falling value at -10^15) instead of growing without bound or failing in
  the middle of a play-through for what the author wrote.
"""

from __future__ import annotations

import math
from typing import Final

MAX_MAGNITUDE: Final = 10**15
RANGE_WORDS: Final = "between -10^15 and 10^15 (a million billion either way)"


def in_range(value: int | float) -> bool:
    """Whether `value` is a number the state may hold (ints of any size compare exactly)."""
    if isinstance(value, float) and not math.isfinite(value):
        return False
    return -MAX_MAGNITUDE <= value <= MAX_MAGNITUDE


def saturated(value: int | float) -> int | float:
    """`value` held to the range: what arithmetic while playing gives at its ends."""
    if isinstance(value, float) and math.isnan(value):
        return 0  # values in the range never make one; if one came, play goes on from zero
    if value > MAX_MAGNITUDE:
        return MAX_MAGNITUDE
    if value < -MAX_MAGNITUDE:
        return -MAX_MAGNITUDE
    return value
