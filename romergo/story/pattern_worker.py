"""The process that compiles and runs search patterns, away from the server (`PatternWorkers`).

Started by file path in isolated mode (`python -I pattern_worker.py CAP`), so it imports the
standard library and `regex` only, never the rest of Romergo. Its address space is capped at CAP
bytes (`RLIMIT_AS`): a pattern that needs more meets `MemoryError` here, answers so, and the
process ends, so no memory is kept. Each request carries its own time budget, the `regex`
library's timeout over all its texts; the server enforces a hard deadline besides, killing this
process when it overruns (a compile, or a match stuck where the library does not look at the clock).

Requests and answers are frames on stdin and stdout: an 8-byte big-endian length, then UTF-8 JSON.
- `{"op": "spans", "query": {...}, "texts": [...], "budget": s}` →
  `{"spans": [index, n, start, end, start, end, …, index, n, …]}`: for each text that matches,
  its index, how many matches, then where each starts and ends (flat: a list of lists for 50,000
  texts took the server ten times longer to decode);
- `{"op": "replace", ..., "replacement": r, "max_chars": n}` →
  `{"replaced": [[index, new_text, count], ...]}`, a new text longer than n cut at n + 1 characters
  (enough for the server to refuse it, never a line grown a thousandfold in memory);
- a refusal → `{"refused": sentence, "reason": "syntax" | "time" | "memory"}` (after "memory"
  this process ends).
"""

from __future__ import annotations

import functools
import json
import resource
import signal
import sys
import time
from collections.abc import Iterator
from typing import Any, BinaryIO

import regex

HEADER_BYTES = 8
TOO_SLOW = (
    "The pattern takes too long to run over this story; make it simpler (nested repeats such as "
    "(a+)+ are the usual cause)."
)
TOO_BIG = "The pattern needs too much memory to run over this story; make it simpler."


class Refused(Exception):
    """A request this process answers with a sentence instead of results."""

    def __init__(self, sentence: str, reason: str = "syntax") -> None:
        super().__init__(sentence)
        self.reason = reason


def main(argv: list[str]) -> None:
    cap = int(argv[1])
    resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
    # Ctrl+C in the server's terminal reaches this process too: the server ends it when it stops.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    serve(sys.stdin.buffer, sys.stdout.buffer)


def serve(requests: BinaryIO, answers: BinaryIO) -> None:
    """Answer requests one by one until the server closes the pipe (or memory runs out)."""
    while True:
        try:
            request = read_frame(requests)
            if request is None:
                return
            answer = handle(request)
        except MemoryError:
            # Say so with what is left, then end: the process's memory goes back whole.
            compiled.cache_clear()
            write_frame(answers, {"refused": TOO_BIG, "reason": "memory"})
            return
        write_frame(answers, answer)


def handle(request: dict[str, Any]) -> dict[str, Any]:
    try:
        matcher = Matcher(request["query"], float(request["budget"]))
        texts: list[str] = request["texts"]
        if request["op"] == "replace":
            replacement: str = request["replacement"]
            return {"replaced": list(matcher.replaced(texts, replacement, int(request["max_chars"])))}
        return {"spans": matcher.spans(texts)}
    except Refused as refusal:
        return {"refused": str(refusal), "reason": refusal.reason}


class Matcher:
    """One query compiled (or found compiled) and a time budget shared by every text it looks at."""

    def __init__(self, query: dict[str, Any], budget: float) -> None:
        self.regex = bool(query["regex"])
        self.compiled = compiled(
            str(query["text"]), self.regex, bool(query["whole_word"]), bool(query["match_case"])
        )
        self.deadline = time.monotonic() + budget

    def spans(self, texts: list[str]) -> list[int]:
        found: list[int] = []
        for index, text in enumerate(texts):
            spans = [match.span() for match in self.matches(text) if match.end() > match.start()]
            if spans:
                found += (index, len(spans))
                found += (offset for span in spans for offset in span)
        return found

    def replaced(self, texts: list[str], replacement: str, max_chars: int) -> Iterator[list[Any]]:
        """Every text with its matches replaced; `replacement` is literal unless the query is a
        regular expression, where `\\1` and `\\g<name>` bring back groups."""
        for index, text in enumerate(texts):
            parts: list[str] = []
            count = last = length = 0
            for match in self.matches(text):
                if match.end() == match.start():
                    continue
                parts.append(text[last : match.start()])
                parts.append(expanded(match, replacement) if self.regex else replacement)
                length += len(parts[-2]) + len(parts[-1])
                last = match.end()
                count += 1
                if length > max_chars:
                    break
            if count:
                parts.append(text[last:])
                yield [index, "".join(parts)[: max_chars + 1], count]

    def matches(self, text: str) -> Iterator[regex.Match[str]]:
        """The matches in `text`, within what is left of the budget. A plain query (escaped, so
        it cannot backtrack) runs without the clock: the library's timeout doubles the cost of a
        search through a long story's tens of thousands of texts."""
        if not self.regex:
            return self.compiled.finditer(text)
        try:
            return iter(
                list(self.compiled.finditer(text, timeout=max(self.deadline - time.monotonic(), 0.001)))
            )
        except TimeoutError:
            raise Refused(TOO_SLOW, "time") from None


@functools.lru_cache(maxsize=16)
def compiled(text: str, is_regex: bool, whole_word: bool, match_case: bool) -> regex.Pattern[str]:
    """A search page runs its query again at every change to the story: compile it once."""
    source = text if is_regex else regex.escape(text)
    if whole_word:
        source = rf"\b(?:{source})\b"
    flags = regex.WORD | regex.VERSION0
    if not match_case:
        flags |= regex.IGNORECASE | regex.FULLCASE
    try:
        return regex.compile(source, flags)
    except regex.error as error:
        # The library's error carries the position (0-based) and the bare message.
        pos: int | None = getattr(error, "pos", None)
        where = f" at character {pos + 1}" if pos is not None else ""
        reason = getattr(error, "msg", str(error))
        raise Refused(f"The regular expression is not valid{where}: {reason}.") from None


def expanded(match: regex.Match[str], template: str) -> str:
    try:
        return match.expand(template)
    except (regex.error, IndexError) as error:
        raise Refused(f"The replacement cannot be used with this pattern: {error}.") from None


def read_frame(stream: BinaryIO) -> dict[str, Any] | None:
    header = stream.read(HEADER_BYTES)
    if len(header) < HEADER_BYTES:
        return None
    body = stream.read(int.from_bytes(header, "big"))
    frame: dict[str, Any] = json.loads(body)
    return frame


def write_frame(stream: BinaryIO, frame: dict[str, Any]) -> None:
    stream.write(encode(frame))
    stream.flush()


def encode(frame: dict[str, Any]) -> bytes:
    body = json.dumps(frame, ensure_ascii=False).encode()
    return len(body).to_bytes(HEADER_BYTES, "big") + body


if __name__ == "__main__":
    main(sys.argv)
