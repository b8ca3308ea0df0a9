"""Twine 2 HTML (https://github.com/iftechfoundation/twine-specs/blob/master/twine-2-htmloutput-spec.md):
a published story file, or a Twine library archive, read with the standard library's HTML parser.

`<tw-storydata>` ↔ the story (its `name` the project's title, `startnode` the start scene, its
`format` the story format whose navigation becomes choices), each `<tw-passagedata>` ↔ a passage,
read as a Twee passage is (`passages.py`). A library archive holds several stories: the first is
imported and the others are named in a note (publish each from Twine to import it). The IFID, the
story format's version, passage positions and the story's own JavaScript and stylesheet have no
place in a project and are noted. A file cut short (a story or passage never closed), a second
passage of one name, or a start passage that is not in the story is refused.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from html.parser import HTMLParser

from romergo.common.errors import invalid
from romergo.interchange.bounds import Tally
from romergo.interchange.document import StoryDocument
from romergo.interchange.passages import Passage, is_scene, story_of
from romergo.interchange.story_formats import story_format_of

STORY = "tw-storydata"
PASSAGE = "tw-passagedata"


@dataclass
class _Story:
    attributes: dict[str, str]
    line: int
    passages: list[Passage] = field(default_factory=list)
    pids: dict[str, str] = field(default_factory=dict)
    placed: bool = False
    code: list[str] = field(default_factory=list)
    """The kinds of code the story carries of its own ("JavaScript", "stylesheet")."""
    closed: bool = False


class _TwineReader(HTMLParser):
    """The stories of a file and their passages; what the HTML around them holds is passed by."""

    def __init__(self, tally: Tally) -> None:
        super().__init__(convert_charrefs=True)
        self.tally = tally
        self.stories: list[_Story] = []
        self.passage: Passage | None = None
        self.text: list[str] = []
        self.text_line = 0
        self.code: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        attributes = {key: value or "" for key, value in attrs}
        line = self.getpos()[0]
        if self.passage is not None:
            self._text(self.get_starttag_text() or "", line)  # markup written unescaped in a passage
        elif tag == STORY:
            if self.stories and not self.stories[-1].closed:
                raise invalid(f"line {line}: a story begins inside another story.")
            self.stories.append(_Story(attributes, line))
        elif tag == PASSAGE and len(self.stories) == 1 and not self.stories[0].closed:
            self._open_passage(self.stories[-1], attributes, line)
        elif tag in ("script", "style") and self.stories and not self.stories[-1].closed:
            self.code = "JavaScript" if tag == "script" else "stylesheet"

    def handle_endtag(self, tag: str) -> None:
        if tag == PASSAGE and self.passage is not None:
            self._close_passage()
        elif self.passage is not None:
            self._text(f"</{tag}>", self.getpos()[0])
        elif tag == STORY and self.stories:
            self.stories[-1].closed = True
        elif tag in ("script", "style"):
            self.code = None

    def handle_data(self, data: str) -> None:
        if self.passage is not None:
            self._text(data, self.getpos()[0])
        elif self.code is not None and data.strip() and self.code not in self.stories[-1].code:
            self.stories[-1].code.append(self.code)

    def _text(self, text: str, line: int) -> None:
        if not self.text:
            self.text_line = line
        self.text.append(text)

    def _open_passage(self, story: _Story, attributes: dict[str, str], line: int) -> None:
        name = attributes.get("name", "").strip()
        if not name:
            raise invalid(f"line {line}: a passage needs a name.")
        first = next((p.line for p in story.passages if p.name == name), None)
        if first is not None:
            raise invalid(f'line {line}: a second passage named "{name}" (the first is on line {first}).')
        tags = attributes.get("tags", "").split()
        if is_scene(name, tags):
            self.tally.add("scenes")
        story.pids[attributes.get("pid", "")] = name
        story.placed = story.placed or bool(attributes.get("position"))
        self.passage = Passage(name, tags, line)
        self.text = []

    def _close_passage(self) -> None:
        assert self.passage is not None
        lines = "".join(self.text).split("\n")
        self.passage.body = [(self.text_line + at, raw.rstrip("\r")) for at, raw in enumerate(lines)]
        self.stories[-1].passages.append(self.passage)
        self.passage = None


def is_twine_html(text: str) -> bool:
    """Whether a text file is HTML rather than Twee (which begins with a `::` passage header)."""
    return text.lstrip("\ufeff \t\r\n").startswith("<")


def read_twine_html(text: str) -> StoryDocument:
    tally = Tally()
    reader = _TwineReader(tally)
    # The standard library's parser (3.11) rescans to the end of the file for each tag left open
    # there (120 KB of `<a ` took two minutes), and refuses some declarations with an
    # AssertionError. What follows the last `>` holds no whole tag, so it is never fed.
    try:
        reader.feed(text[: text.rfind(">") + 1])
        reader.close()
    except AssertionError:
        raise invalid("The file's HTML is malformed: it holds no Twine story that can be read.") from None
    if reader.passage is not None:
        raise invalid(
            f'The file ends inside passage "{reader.passage.name}" (line {reader.passage.line}): '
            "it is cut short."
        )
    if not reader.stories:
        raise invalid(
            "The file is HTML but holds no Twine 2 story (<tw-storydata>): publish it from Twine 2 "
            "(Library → Publish to File), or export it as Twee."
        )
    story = reader.stories[0]
    if not story.closed:
        raise invalid(f"The story that begins on line {story.line} never ends: the file is cut short.")
    notes = _notes(story, reader.stories[1:])
    start = _start(story)
    return story_of(
        story.attributes.get("name", "").strip(),
        story.passages,
        start,
        story_format_of(story.attributes.get("format")),
        notes,
        tally,
    )


def _start(story: _Story) -> str | None:
    pid = story.attributes.get("startnode", "").strip()
    if not pid:
        return None
    name = story.pids.get(pid)
    passage = next((p for p in story.passages if p.name == name), None)
    if passage is None or not is_scene(passage.name, passage.tags):
        raise invalid(
            f"line {story.line}: the story starts at passage {pid}, which is not one of its scenes."
        )
    return passage.name


def _notes(story: _Story, others: list[_Story]) -> list[str]:
    notes: list[str] = []
    if others:
        names = ", ".join(f'"{other.attributes.get("name", "")}"' for other in others)
        notes.append(
            f"The file is a Twine library of {len(others) + 1} stories: only the first, "
            f'"{story.attributes.get("name", "")}", is imported; not {names} '
            "(publish each from Twine to import it)."
        )
    attributes = story.attributes
    kept_out = [
        f"{label} {attributes[key]}"
        for label, key in (("IFID", "ifid"), ("story format", "format"), ("version", "format-version"))
        if attributes.get(key)
    ]
    if kept_out:
        notes.append(f"The story's {', '.join(kept_out)} are not kept (an export names its own).")
    if story.placed:
        notes.append("Passage positions and sizes (Twine's map layout) are not kept.")
    notes += [f"The story's own {code} is not kept." for code in story.code]
    return notes
