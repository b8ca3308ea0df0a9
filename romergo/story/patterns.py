"""What find and replace looks for, and the checks a query passes before anything compiles it.

Queries run on the `regex` library rather than `re` for three reasons an author would meet:
- whole words follow Unicode's word boundaries (UAX #29), so a Devanagari vowel sign or a
  combining accent belongs to its word (`re`'s `\\b` would cut "राम" out of "रामा");
- ignoring case uses full case folding (Georgian Mtavruli, Cyrillic, "straße" = "STRASSE");
- a pattern runs under a time limit, so a catastrophic regular expression costs at most that.

A regular expression comes from outside (an author, or an agent with nothing but `read`), so it is
compiled and run in a worker process (`pattern_workers`), never in the server, and before that it
passes these checks, which read the pattern's text without compiling it:
- at most `MAX_QUERY_CHARS` characters;
- every counted repeat (`{n}`, `{n,}`, `{,m}`, `{n,m}`) at most `MAX_REPEAT`, the larger of its two
  numbers counting (`{0}` counts as 1);
- the library writes out a counted repeat's copies when it compiles, and repeats inside one another
  multiply (`(?:(?:a{999}){999}){999}` is a billion `a`s), so the pattern written out, each
  character, escape or class counting 1, is at most `MAX_WRITTEN_OUT` long: this bounds the product
  of nested repeats and the sum of those side by side;
- no verbose mode (`(?x)`): its comments may hide where a group ends, and this reading must not be
  fooled about nesting.
The reading is simple and errs on the side of refusing. What passes may still be slow to match
(`(a+)+$`): the worker's deadline and memory cap bound that.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from romergo.common.errors import invalid

MAX_QUERY_CHARS = 500
MAX_REPLACEMENT_CHARS = 2000
MAX_REPEAT = 1000
"""The largest count a counted repeat may ask for."""
MAX_WRITTEN_OUT = 10_000
"""The longest a pattern may be with its counted repeats written out (~10 ms and ~3 MB to compile),
which bounds the product of repeats nested in one another and the sum of repeats side by side."""

COUNTED_REPEAT = re.compile(r"\{(\d*)(,?)(\d*)\}")
INLINE_FLAGS = re.compile(r"\(\?[a-zA-Z-]*[:)]")
GROUP_OPENING = re.compile(r"\((?:\?(?:P?<\w*>|<[=!]|[:=!>|]|[a-zA-Z-]*:)?)?")
"""`(`, `(?:`, `(?P<name>`, `(?<=`, `(?i:`…: what opens a group is not part of what it repeats."""
NAMED_ESCAPES = frozenset("pPN")
"""Escapes followed by a name in braces (`\\p{Lu}`), which is not a repeat."""


@dataclass(frozen=True)
class SearchQuery:
    text: str
    match_case: bool = False
    whole_word: bool = False
    regex: bool = False


def checked_query(query: SearchQuery) -> SearchQuery:
    """The query if it may be compiled, else `invalid_argument` naming the limit it is over."""
    text = query.text
    if not isinstance(text, str) or not text.strip():
        raise invalid("Type something to search for.")
    if len(text) > MAX_QUERY_CHARS:
        raise invalid(f"The search is limited to {MAX_QUERY_CHARS} characters.")
    if query.regex:
        _check_repeats(text)
    return query


def checked_replacement(replacement: object) -> str:
    if not isinstance(replacement, str):
        raise invalid("The replacement must be text.")
    if len(replacement) > MAX_REPLACEMENT_CHARS:
        raise invalid(f"The replacement is limited to {MAX_REPLACEMENT_CHARS} characters.")
    return replacement


def _check_repeats(pattern: str) -> None:
    """Walk the pattern once, keeping how long each open group would be written out; a counted
    repeat multiplies the item before it (a character, a class, or a whole group)."""
    open_groups = [0]  # written out, the length of each open group so far
    last_item = 0  # written out, the item a repeat here would apply to
    at = 0
    while at < len(pattern):
        if pattern.startswith("(?#", at):  # a comment: a repeat after it applies to what came before
            closing = pattern.find(")", at)
            at = len(pattern) if closing < 0 else closing + 1
        elif pattern[at] == "(":
            _refuse_verbose_mode(pattern, at)
            open_groups.append(0)
            opening = GROUP_OPENING.match(pattern, at)
            at, last_item = (opening.end() if opening else at + 1), 0
        elif pattern[at] == ")":
            last_item = open_groups.pop() if len(open_groups) > 1 else 0
            open_groups[-1] += last_item
            at += 1
        elif (repeat := COUNTED_REPEAT.match(pattern, at)) and (repeat[1] or repeat[2]):
            count = _count(repeat)
            open_groups[-1] += last_item * (count - 1)
            last_item *= count
            _refuse_long_writing_out(sum(open_groups))
            at = repeat.end()
        else:
            at = _after_item(pattern, at)
            last_item = 1
            open_groups[-1] += 1
    _refuse_long_writing_out(sum(open_groups))


def _refuse_long_writing_out(length: int) -> None:
    if length > MAX_WRITTEN_OUT:
        raise invalid(
            "Counted repeats multiply what they repeat, and repeats inside one another multiply "
            f"again: written out, this pattern would be at least {length:,} characters long, and a "
            f"search allows {MAX_WRITTEN_OUT:,}."
        )


def _after_item(pattern: str, at: int) -> int:
    """Past one character, escape or character class."""
    if pattern[at] == "\\":
        return _after_escape(pattern, at)
    if pattern[at] == "[":
        return _after_class(pattern, at)
    return at + 1


def _count(repeat: re.Match[str]) -> int:
    numbers = [digits for digits in (repeat[1], repeat[3]) if digits]
    # Long digit runs are over the limit whatever they say (and never reach int()).
    largest = max((int(digits) if len(digits) <= 6 else MAX_REPEAT + 1 for digits in numbers), default=0)
    if largest > MAX_REPEAT:
        raise invalid(
            f"A counted repeat such as {{n}} is limited to {MAX_REPEAT:,} in a search; "
            f"{repeat[0]} asks for more."
        )
    return max(largest, 1)


def _after_escape(pattern: str, at: int) -> int:
    if pattern[at + 1 : at + 2] in NAMED_ESCAPES and pattern[at + 2 : at + 3] == "{":
        closing = pattern.find("}", at)
        return len(pattern) if closing < 0 else closing + 1
    return at + 2


def _after_class(pattern: str, at: int) -> int:
    """Past a character class `[...]` (a `]` first in it, or after `^`, is a member)."""
    at += 1
    if pattern[at : at + 1] == "^":
        at += 1
    if pattern[at : at + 1] == "]":
        at += 1
    while at < len(pattern) and pattern[at] != "]":
        at += 2 if pattern[at] == "\\" else 1
    return at + 1


def _refuse_verbose_mode(pattern: str, at: int) -> None:
    flags = INLINE_FLAGS.match(pattern, at)
    if flags and "x" in flags[0]:
        raise invalid("Verbose mode (?x) is not available in a search; write the pattern without it.")
