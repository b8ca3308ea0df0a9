"""What find and replace looks for: the author's query turned into one compiled pattern.

Built on the `regex` library rather than `re` for three reasons an author would meet:
- whole words follow Unicode's word boundaries (UAX #29), so a Devanagari vowel sign or a
  combining accent belongs to its word (`re`'s `\\b` would cut "राम" out of "रामा");
- ignoring case uses full case folding (Georgian Mtavruli, Cyrillic, "straße" = "STRASSE");
- a pattern runs under a time limit, so a catastrophic regular expression an author (or an agent)
  types costs at most that, and is refused in words.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass

import regex

from romergo.errors import invalid

MAX_QUERY_CHARS = 500
MAX_REPLACEMENT_CHARS = 2000
# For all the texts one search or replace looks at together, not per text.
TIME_LIMIT_SECONDS = 2.0


@dataclass(frozen=True)
class SearchQuery:
    text: str
    match_case: bool = False
    whole_word: bool = False
    regex: bool = False


class Pattern:
    """A query compiled once; `spans` and `replace` share one time budget across every text."""

    def __init__(self, query: SearchQuery) -> None:
        self.query = query
        self._compiled = _compile(query)
        self._budget = TIME_LIMIT_SECONDS

    def spans(self, text: str) -> list[tuple[int, int]]:
        """Where the query matches in `text` (empty matches of a regular expression are skipped)."""
        return [match.span() for match in self._matches(text) if match.end() > match.start()]

    def replace(self, text: str, replacement: str) -> tuple[str, int]:
        """`text` with every match replaced; `replacement` is literal unless the query is a regular
        expression, where `\\1` and `\\g<name>` bring back groups. Returns the text and the count."""
        parts: list[str] = []
        count = 0
        last = 0
        for match in self._matches(text):
            if match.end() == match.start():
                continue
            parts.append(text[last : match.start()])
            parts.append(_expand(match, replacement) if self.query.regex else replacement)
            last = match.end()
            count += 1
        parts.append(text[last:])
        return "".join(parts), count

    def check_replacement(self, replacement: object) -> str:
        if not isinstance(replacement, str):
            raise invalid("The replacement must be text.")
        if len(replacement) > MAX_REPLACEMENT_CHARS:
            raise invalid(f"The replacement is limited to {MAX_REPLACEMENT_CHARS} characters.")
        return replacement

    def _matches(self, text: str) -> Iterator[regex.Match[str]]:
        started = time.monotonic()
        try:
            yield from self._compiled.finditer(text, timeout=max(self._budget, 0.001))
        except TimeoutError:
            raise invalid(
                "The pattern takes too long to run over this story; make it simpler (nested repeats "
                "such as (a+)+ are the usual cause)."
            ) from None
        finally:
            self._budget -= time.monotonic() - started


def _compile(query: SearchQuery) -> regex.Pattern[str]:
    text = query.text
    if not isinstance(text, str) or not text.strip():
        raise invalid("Type something to search for.")
    if len(text) > MAX_QUERY_CHARS:
        raise invalid(f"The search is limited to {MAX_QUERY_CHARS} characters.")
    source = text if query.regex else regex.escape(text)
    if query.whole_word:
        source = rf"\b(?:{source})\b"
    flags = regex.WORD | regex.VERSION0
    if not query.match_case:
        flags |= regex.IGNORECASE | regex.FULLCASE
    try:
        return regex.compile(source, flags)
    except regex.error as error:
        # The library's error carries the position (0-based) and the bare message.
        pos: int | None = getattr(error, "pos", None)
        where = f" at character {pos + 1}" if pos is not None else ""
        reason = getattr(error, "msg", str(error))
        raise invalid(f"The regular expression is not valid{where}: {reason}.") from None


def _expand(match: regex.Match[str], template: str) -> str:
    try:
        return match.expand(template)
    except (regex.error, IndexError) as error:
        raise invalid(f"The replacement cannot be used with this pattern: {error}.") from None
