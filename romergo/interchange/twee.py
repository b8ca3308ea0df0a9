"""Twee 3, Twine's text format (https://github.com/iftechfoundation/twine-specs/blob/master/twee-3-specification.md).

Passages ↔ scenes, `[[links]]` ↔ choices, the StoryData `start` ↔ the start scene, StoryTitle ↔ the
project's title. Romergo's own parts ride on tags Twine shows and keeps: `ending` marks an ending,
`chapter:Title_Words` names the passage's chapter (underscores for spaces). A dialogue line is a
line of passage text; `Name: text` is spoken by that character.

Import reads every passage first; a malformed header, a second passage of the same name or
StoryData that is not JSON is refused naming its line. The passages then become scenes as a
Twine 2 HTML file's do (`passages.py`), their story format's navigation macros choices
(`story_formats.py`, the format StoryData names). Other story-format code, passage positions,
other tags and link text inside a sentence have no equivalent and are reported as notes.
"""

from __future__ import annotations

import json
import re
import uuid

from romergo.common.errors import invalid
from romergo.interchange.bounds import Tally
from romergo.interchange.document import LineDoc, SceneDoc, StoryDocument, left_out, split_speaker
from romergo.interchange.passages import (
    CHAPTER_TAG,
    ENDING_TAG,
    FORMAT_PASSAGES,
    STORY_PASSAGES,
    Passage,
    is_scene,
    story_of,
)
from romergo.interchange.story_formats import story_format_of

HEADER = re.compile(r"^::(?P<rest>.*)$")
# Possessive (`*+`): a name and its tags never give back what they read, so a long header is read
# once (a 2,000-character one took 12 s while the engine tried every split of its spaces).
HEADER_PARTS = re.compile(
    r"^(?P<name>(?:\\.|[^\\\[\]{}])*+)(?:\[(?P<tags>(?:\\.|[^\\\]])*+)\])?\s*(?P<meta>\{.*\})?\s*$"
)


# ---- export ------------------------------------------------------------------------------------


def write_twee(document: StoryDocument) -> tuple[str, list[str]]:
    notes: list[str] = []
    names = _passage_names(document, notes)
    parts = [f":: StoryTitle\n{document.title}\n", f":: StoryData\n{_story_data(document, names)}\n"]
    for chapter in document.chapters:
        chapter_tag = CHAPTER_TAG + chapter.title.replace(" ", "_")
        parts += [_passage(scene, chapter_tag, names, notes) for scene in chapter.scenes]
    notes += left_out(document, "a Twee file")
    return "\n".join(parts), notes


def _story_data(document: StoryDocument, names: dict[str, str]) -> str:
    """StoryData's JSON; the IFID is derived from the first scene, so exporting twice gives one story."""
    scenes = document.scenes()
    start = next((s for s in scenes if s.is_start), None)
    seed = uuid.uuid5(uuid.NAMESPACE_URL, "romergo:" + scenes[0].key) if scenes else uuid.uuid4()
    data = {
        "ifid": str(seed).upper(),
        "format": "Harlowe",
        "format-version": "3.3.9",
        "start": names[start.key] if start else None,
        "zoom": 1,
    }
    return json.dumps(data, indent=2)


def _passage(scene: SceneDoc, chapter_tag: str, names: dict[str, str], notes: list[str]) -> str:
    tags = [chapter_tag] + ([ENDING_TAG] if scene.is_ending else [])
    body = [_line_text(line, notes) for line in scene.lines]
    body += [_link(choice.label, names.get(choice.target or ""), notes) for choice in scene.choices]
    header = f":: {_escape_name(names[scene.key])} [{' '.join(_escape_tag(t) for t in tags)}]"
    return header + "\n" + "\n\n".join(body) + "\n"


def _passage_names(document: StoryDocument, notes: list[str]) -> dict[str, str]:
    """Scene key → a passage name, unique as Twee requires (scene titles need not be)."""
    names: dict[str, str] = {}
    used: set[str] = STORY_PASSAGES | FORMAT_PASSAGES
    tried: dict[str, int] = {}  # title → the last number tried: 10,000 scenes of one title stay linear
    for scene in document.scenes():
        n = tried.get(scene.title, 1)
        name = scene.title if n == 1 else f"{scene.title} ({n})"
        while name in used:
            n += 1
            name = f"{scene.title} ({n})"
        tried[scene.title] = n
        if n > 1 and scene.title in STORY_PASSAGES | FORMAT_PASSAGES:
            notes.append(
                f'The scene "{scene.title}" has the name of a story format\'s special passage: its '
                f'passage is "{name}", so that it reads back as a scene.'
            )
        elif n > 1:
            notes.append(f'Two scenes are called "{scene.title}": the passage of the later one is "{name}".')
        used.add(name)
        names[scene.key] = name
    return names


def _line_text(line: LineDoc, notes: list[str]) -> str:
    text = line.text.replace("\n", " ")
    if text != line.text:
        notes.append("Lines of more than one paragraph are joined into one (a Twee line is one line).")
    if not line.speaker and split_speaker(text):
        notes.append(f'The narration "{text[:40]}" looks like "Name: text" and will read back as spoken.')
    return f"{line.speaker}: {text}" if line.speaker else text


def _link(label: str, target: str | None, notes: list[str]) -> str:
    if target is None:
        notes.append(f'The choice "{label}" leads nowhere: it is written as a link to a missing passage.')
        target = label
    clean = label.replace("->", "→").replace("|", "/").replace("]]", "] ]")
    return f"[[{target}]]" if clean == target else f"[[{clean}->{target}]]"


def _escape_name(name: str) -> str:
    return re.sub(r"([\\\[\]{}])", r"\\\1", name)


def _escape_tag(tag: str) -> str:
    return re.sub(r"([\\\[\]])", r"\\\1", tag.replace(" ", "_"))


# ---- import ------------------------------------------------------------------------------------


def read_twee(text: str) -> StoryDocument:
    tally = Tally()
    passages, notes = _passages(text.splitlines(), tally)
    title, start, story_format = _story_passages(passages)
    if start is not None and not any(p.name == start and is_scene(p.name, p.tags) for p in passages):
        raise invalid(f'StoryData names "{start}" as the start passage, but there is no such passage.')
    return story_of(title, passages, start, story_format_of(story_format), notes, tally)


def _story_passages(passages: list[Passage]) -> tuple[str, str | None, str | None]:
    """The title (StoryTitle; "" without one: the importer names the story after the file), and
    the start passage's name and the story format StoryData names."""
    title = ""
    start: str | None = None
    story_format: str | None = None
    for passage in passages:
        if passage.name == "StoryTitle":
            title = " ".join(t for _, t in passage.body if t.strip()).strip() or title
        elif passage.name == "StoryData":
            start, story_format = _story_data_of(passage)
    return title, start, story_format


def _passages(lines: list[str], tally: Tally) -> tuple[list[Passage], list[str]]:
    passages: list[Passage] = []
    passages_placed: list[int] = []
    seen: dict[str, int] = {}
    for number, raw in enumerate(lines, start=1):
        header = HEADER.match(raw)
        if header is None:
            if passages:
                passages[-1].body.append((number, raw))
            continue
        name, tags, placed = _header(header.group("rest"), number)
        if placed:
            passages_placed.append(number)
        if name in seen:
            raise invalid(
                f'line {number}: a second passage named "{name}" (the first is on line {seen[name]}).'
            )
        seen[name] = number
        if is_scene(name, tags):
            tally.add("scenes")
        passages.append(Passage(name, tags, number))
    if not passages:
        raise invalid("line 1: no passages: a Twee file starts each passage with a line beginning '::'.")
    notes = ["Passage positions and sizes (Twine's map layout) are not kept."] if passages_placed else []
    return passages, notes


def _header(rest: str, number: int) -> tuple[str, list[str], bool]:
    """The name, the tags and whether the header carries metadata (a position)."""
    match = HEADER_PARTS.match(rest)
    if match is None:
        raise invalid(f"line {number}: the passage header is malformed (name [tags] {{metadata}}).")
    name = re.sub(r"\\(.)", r"\1", match.group("name")).strip()
    if not name:
        raise invalid(f"line {number}: a passage header needs a name.")
    tags = [re.sub(r"\\(.)", r"\1", t) for t in (match.group("tags") or "").split()]
    return name, tags, match.group("meta") is not None


def _story_data_of(passage: Passage) -> tuple[str | None, str | None]:
    """StoryData's start passage and story format."""
    raw = "\n".join(text for _, text in passage.body).strip()
    try:
        data = json.loads(raw) if raw else {}
    except json.JSONDecodeError as error:
        raise invalid(
            f"line {passage.line + error.lineno}: StoryData is not valid JSON: {error.msg}."
        ) from None
    if not isinstance(data, dict):
        return None, None
    start, story_format = data.get("start"), data.get("format")
    return (
        start if isinstance(start, str) and start else None,
        story_format if isinstance(story_format, str) else None,
    )
