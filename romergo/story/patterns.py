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
  numbers counting;
- repeats inside one another multiply (the library writes out a counted repeat's copies when it
  compiles: `(?:(?:a{999}){999}){999}` is a billion `a`s), so along any nesting the product of the
  counted repeats is at most `MAX_NESTED_REPEAT`;
- no verbose mode (`(?x)`): its comments may hide where a group ends, and this reading must not be
  fooled about nesting.
The checks are deliberately simple and err on the side of refusing: a `{n}` inside a `(?#...)`
comment counts as if it were a repeat. What passes may still be slow to match (`(a+)+$`); the
worker's deadline and memory cap bound that.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from romergo.errors import invalid

MAX_QUERY_CHARS = 500
MAX_REPLACEMENT_CHARS = 2000
MAX_REPEAT = 1000
"""The largest count a counted repeat may ask for."""
MAX_NESTED_REPEAT = 10_000
"""The largest product of counted repeats nested in one another (~10 ms and ~2 MB to compile)."""

COUNTED_REPEAT = re.compile(r"\{(\d*)(,?)(\d*)\}")
INLINE_FLAGS = re.compile(r"\(\?[a-zA-Z-]*[:)]")
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
    """Walk the pattern once, keeping for each open group the largest product of counted repeats
    inside it; a repeat after a group multiplies that group's product."""
    open_groups = [1]
    last_item = 1  # the product of the item a repeat here would apply to
    at = 0
    while at < len(pattern):
        char = pattern[at]
        if char == "\\":
            at, last_item = _after_escape(pattern, at), 1
        elif char == "[":
            at, last_item = _after_class(pattern, at), 1
        elif pattern.startswith("(?#", at):
            closing = pattern.find(")", at)
            at = len(pattern) if closing < 0 else closing + 1  # a comment: the item before still counts
        elif char == "(":
            _refuse_verbose_mode(pattern, at)
            open_groups.append(1)
            at, last_item = at + 1, 1
        elif char == ")":
            last_item = open_groups.pop() if len(open_groups) > 1 else 1
            open_groups[-1] = max(open_groups[-1], last_item)
            at += 1
        elif (repeat := COUNTED_REPEAT.match(pattern, at)) and (repeat[1] or repeat[2]):
            last_item *= _count(repeat)
            if last_item > MAX_NESTED_REPEAT:
                raise invalid(
                    "Counted repeats inside one another multiply, and a search allows at most "
                    f"{MAX_NESTED_REPEAT:,} together; this pattern asks for {last_item:,}."
                )
            open_groups[-1] = max(open_groups[-1], last_item)
            at = repeat.end()
        else:
            last_item = last_item if char.isspace() else 1
            at += 1


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
