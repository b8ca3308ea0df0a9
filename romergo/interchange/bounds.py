"""How much one import may hold: limits no real author meets (the editor is comfortable at 2,000
scenes), counted while a file is read so a file past one is refused at once, before the work and
memory the rest of it would cost, and nothing is created.

Every format counts with a `Tally`: the archive while its `story.json` is scanned
(`json_shape`), Twee and Yarn passage by passage and line by line; `check_counts` holds any
finished document to the same numbers.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from romergo.common.errors import invalid
from romergo.interchange.document import StoryDocument

Counted = Literal["scenes", "lines", "choices", "chapters", "characters", "variables", "assets"]

MAX_SCENES = 10_000
MAX_LINES = 200_000
MAX_CHOICES = 100_000
"""Choices in the whole story (a scene offers at most `story.scenes.MAX_CHOICES`)."""
MAX_CHAPTERS = 1_000
MAX_CHARACTERS = 1_000
MAX_VARIABLES = 1_000
MAX_ASSETS = 1_000
LIMITS: dict[Counted, int] = {
    "scenes": MAX_SCENES,
    "lines": MAX_LINES,
    "choices": MAX_CHOICES,
    "chapters": MAX_CHAPTERS,
    "characters": MAX_CHARACTERS,
    "variables": MAX_VARIABLES,
    "assets": MAX_ASSETS,
}
MAX_TEXT_LINES = 1_000_000
"""Lines of a Twee or Yarn file (an export at every limit above has about 650,000)."""


@dataclass
class Tally:
    """Running counts of what a file holds; `add` refuses the first one past its limit."""

    counts: dict[Counted, int] = field(default_factory=dict)

    def add(self, what: Counted, number: int = 1) -> None:
        total = self.counts.get(what, 0) + number
        if total > LIMITS[what]:
            raise too_many(what)
        self.counts[what] = total


def too_many(what: Counted) -> Exception:
    return invalid(f"An import may hold at most {LIMITS[what]:,} {what}; this file holds more.")


def check_text_lines(text: str) -> None:
    lines = text.count("\n") + 1
    if lines > MAX_TEXT_LINES:
        raise invalid(f"The file has {lines:,} lines; a story file may have at most {MAX_TEXT_LINES:,}.")


def check_counts(document: StoryDocument) -> None:
    """A finished document held to the same limits (whatever format made it)."""
    tally = Tally()
    tally.add("chapters", len(document.chapters))
    tally.add("characters", len(document.characters))
    tally.add("variables", len(document.variables))
    tally.add("assets", len(document.assets))
    for scene in document.scenes():
        tally.add("scenes")
        tally.add("lines", len(scene.lines))
        tally.add("choices", len(scene.choices))
