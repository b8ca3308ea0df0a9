"""Twee 3, Twine's text format (https://github.com/iftechfoundation/twine-specs/blob/master/twee-3-specification.md).

Passages ↔ scenes, `[[links]]` ↔ choices, the StoryData `start` ↔ the start scene, StoryTitle ↔ the
project's title. Romergo's own parts ride on tags Twine shows and keeps: `ending` marks an ending,
`chapter:Title_Words` names the passage's chapter (underscores for spaces). A dialogue line is a
line of passage text; `Name: text` is spoken by that character.

Import reads every passage first; a malformed header, a second passage of the same name or
StoryData that is not JSON is refused naming its line. Story-format code (macros, variables,
scripts, stylesheets), passage positions, other tags and link text inside a sentence have no
equivalent and are reported as notes.
"""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field

from romergo.common.errors import invalid
from romergo.interchange.bounds import Tally
from romergo.interchange.document import (
    ChapterDoc,
    CharacterDoc,
    ChoiceDoc,
    LineDoc,
    SceneDoc,
    StoryDocument,
    left_out,
    split_speaker,
    spoken_line,
)

HEADER = re.compile(r"^::(?P<rest>.*)$")
# Possessive (`*+`): a name and its tags never give back what they read, so a long header is read
# once (a 2,000-character one took 12 s while the engine tried every split of its spaces).
HEADER_PARTS = re.compile(
    r"^(?P<name>(?:\\.|[^\\\[\]{}])*+)(?:\[(?P<tags>(?:\\.|[^\\\]])*+)\])?\s*(?P<meta>\{.*\})?\s*$"
)
CODE = re.compile(r"<<|>>|\(\w[\w-]*:|\$\w|\{\{|</?\w+[^<>]*>")
ENDING_TAG = "ending"
CHAPTER_TAG = "chapter:"
DEFAULT_CHAPTER = "Chapter 1"
SPECIAL = {"StoryTitle", "StoryData"}
CODE_TAGS = {"script", "stylesheet"}


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
    used: set[str] = set(SPECIAL)
    tried: dict[str, int] = {}  # title → the last number tried: 10,000 scenes of one title stay linear
    for scene in document.scenes():
        n = tried.get(scene.title, 1)
        name = scene.title if n == 1 else f"{scene.title} ({n})"
        while name in used:
            n += 1
            name = f"{scene.title} ({n})"
        tried[scene.title] = n
        if n > 1:
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


@dataclass
class _Passage:
    name: str
    tags: list[str]
    line: int
    body: list[tuple[int, str]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def read_twee(text: str) -> StoryDocument:
    tally = Tally()
    passages = _passages(text.splitlines(), tally)
    notes: list[str] = [note for passage in passages for note in passage.notes]
    title, start_name, scenes = _special_passages(passages, notes)
    by_name = {p.name: p for p in scenes}
    if start_name is not None and start_name not in by_name:
        raise invalid(f'StoryData names "{start_name}" as the start passage, but there is no such passage.')
    start = start_name or ("Start" if "Start" in by_name else (scenes[0].name if scenes else None))
    characters: dict[str, CharacterDoc] = {}
    chapters: dict[str, ChapterDoc] = {}
    names = set(by_name)
    for passage in scenes:
        scene = _scene(passage, passage.name == start, names, characters, notes, tally)
        chapter_title = _chapter_of(passage, notes)
        if chapter_title not in chapters:
            tally.add("chapters")
            chapters[chapter_title] = ChapterDoc(chapter_title, where=f"line {passage.line}")
        chapters[chapter_title].scenes.append(scene)
    return StoryDocument(title, list(chapters.values()), list(characters.values()), [], _unique(notes))


def _special_passages(passages: list[_Passage], notes: list[str]) -> tuple[str, str | None, list[_Passage]]:
    """The title (StoryTitle; "" without one: the importer names the story after the file), the
    start passage's name (StoryData), and the passages that are scenes (not scripts or styles)."""
    title = ""
    start_name: str | None = None
    scenes: list[_Passage] = []
    for passage in passages:
        if passage.name == "StoryTitle":
            title = " ".join(t for _, t in passage.body if t.strip()).strip() or title
        elif passage.name == "StoryData":
            start_name = _start_of(passage)
        elif CODE_TAGS & set(passage.tags):
            kinds = "/".join(sorted(CODE_TAGS & set(passage.tags)))
            notes.append(f'Passage "{passage.name}" is {kinds}: skipped.')
        else:
            scenes.append(passage)
    return title, start_name, scenes


def _passages(lines: list[str], tally: Tally) -> list[_Passage]:
    passages: list[_Passage] = []
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
        if name not in SPECIAL and not CODE_TAGS & set(tags):
            tally.add("scenes")
        passages.append(_Passage(name, tags, number))
    if not passages:
        raise invalid("line 1: no passages: a Twee file starts each passage with a line beginning '::'.")
    if passages_placed:
        passages[0].notes.append("Passage positions and sizes (Twine's map layout) are not kept.")
    return passages


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


def _start_of(passage: _Passage) -> str | None:
    raw = "\n".join(text for _, text in passage.body).strip()
    try:
        data = json.loads(raw) if raw else {}
    except json.JSONDecodeError as error:
        raise invalid(
            f"line {passage.line + error.lineno}: StoryData is not valid JSON: {error.msg}."
        ) from None
    start = data.get("start") if isinstance(data, dict) else None
    return start if isinstance(start, str) and start else None


def _scene(
    passage: _Passage,
    is_start: bool,
    names: set[str],
    characters: dict[str, CharacterDoc],
    notes: list[str],
    tally: Tally,
) -> SceneDoc:
    scene = SceneDoc(passage.name, passage.name, is_start=is_start, is_ending=ENDING_TAG in passage.tags)
    scene.where = f"line {passage.line}"
    for number, raw in passage.body:
        links = _links(raw)
        tally.add("choices", len(links))
        for _, _, link in links:
            label, target = _parse_link(link)
            if target not in names:
                notes.append(
                    f'line {number}: the link to "{target}" leads to no passage; the choice leads nowhere.'
                )
            scene.choices.append(ChoiceDoc(label, target if target in names else None, f"line {number}"))
        text = _with_links(raw, links, lambda inner: _parse_link(inner)[0]).strip()
        if links and not _with_links(raw, links, lambda _: "").strip():
            continue  # a line of links only: they are the scene's choices
        if links:
            notes.append(
                f"line {number}: a link inside a sentence became a choice; its words stay in the line."
            )
        if not text:
            continue
        if CODE.search(text):
            notes.append(
                f'Passage "{passage.name}" has story-format code (macros, variables, HTML): kept as text.'
            )
        tally.add("lines")
        scene.lines.append(_spoken(text, f"line {number}", characters))
    return scene


def _links(raw: str) -> list[tuple[int, int, str]]:
    """The `[[…]]` links of a line as (start, end, what is inside): what the pattern
    `\\[\\[(.+?)\\]\\](?!\\])` finds, in one pass (the pattern retried the rest of the line from
    each unclosed `[[`, and a line of them took minutes)."""
    found: list[tuple[int, int, str]] = []
    start = raw.find("[[")
    while start != -1:
        close = raw.find("]]", start + 3)
        if close == -1:
            break
        while raw.startswith("]", close + 2):  # `[[a]]]` links to "a]"
            close += 1
        found.append((start, close + 2, raw[start + 2 : close]))
        start = raw.find("[[", close + 2)
    return found


def _with_links(raw: str, links: list[tuple[int, int, str]], shown: Callable[[str], str]) -> str:
    """The line with each link replaced by `shown(what is inside)`."""
    parts: list[str] = []
    at = 0
    for start, end, inner in links:
        parts += [raw[at:start], shown(inner)]
        at = end
    parts.append(raw[at:])
    return "".join(parts)


def _parse_link(inner: str) -> tuple[str, str]:
    """(label, target) of `[[inner]]`: `label->target`, `target<-label`, `label|target` or `target`."""
    if "->" in inner:
        label, _, target = inner.rpartition("->")
    elif "<-" in inner:
        target, _, label = inner.partition("<-")
    elif "|" in inner:
        label, _, target = inner.rpartition("|")
    else:
        label = target = inner
    return label.strip() or target.strip(), target.strip()


def _spoken(text: str, where: str, characters: dict[str, CharacterDoc]) -> LineDoc:
    return spoken_line(text, where, characters)


def _chapter_of(passage: _Passage, notes: list[str]) -> str:
    chapter = DEFAULT_CHAPTER
    for tag in passage.tags:
        if tag.startswith(CHAPTER_TAG) and len(tag) > len(CHAPTER_TAG):
            chapter = tag[len(CHAPTER_TAG) :].replace("_", " ")
        elif tag != ENDING_TAG:
            notes.append(f'The tag "{tag}" has no equivalent in Romergo: not kept.')
    return chapter


def _unique(notes: list[str]) -> list[str]:
    return list(dict.fromkeys(notes))
