"""Number fields of the story's state: the message a field shows while its value is outside the
range a story holds (`romergo.story.state.numbers`); saving such a value is refused as well."""

from __future__ import annotations

from collections.abc import Callable

from romergo.story.state.numbers import RANGE_WORDS, in_range

NUMBER_IN_RANGE: dict[str, Callable[[object], bool]] = {
    f"A number must be {RANGE_WORDS}.": lambda value: (
        value is None or (isinstance(value, int | float) and not isinstance(value, bool) and in_range(value))
    ),
}
