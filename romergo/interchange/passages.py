"""Twine passages as scenes, read alike from a Twee file (`twee.py`) and a Twine 2 HTML file
(`twine_html.py`).

A passage is a scene, its navigation (`story_formats.py`) its choices, a line of its text a
dialogue line (`Name: text` is spoken by that character). Romergo's own parts ride on tags Twine
shows and keeps: `ending` marks an ending, `chapter:Title_Words` names the passage's chapter.
The story format's special passages (StoryInit, PassageHeader, …) and passages tagged as code
(script, stylesheet, widget, Harlowe's header/footer/startup) are never scenes: Romergo has no
place for their code, so each is said in a note. Code left in a line stays as its text and is
noted with its line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from romergo.interchange.bounds import Tally
from romergo.interchange.document import (
    ChapterDoc,
    CharacterDoc,
    ChoiceDoc,
    SceneDoc,
    StoryDocument,
    spoken_line,
)
from romergo.interchange.story_formats import Navigation, StoryFormat, navigations, with_navigations

ENDING_TAG = "ending"
CHAPTER_TAG = "chapter:"
DEFAULT_CHAPTER = "Chapter 1"
STORY_PASSAGES = {"StoryTitle", "StoryData"}
FORMAT_PASSAGES = {
    "StoryInit",
    "StoryAuthor",
    "StoryBanner",
    "StoryCaption",
    "StoryInterface",
    "StoryMenu",
    "StoryShare",
    "StorySubtitle",
    "PassageDone",
    "PassageFooter",
    "PassageHeader",
    "PassageReady",
}
"""SugarCube's special passages: code and page furniture, never a place the story goes."""
CODE_TAGS = {
    "script",
    "stylesheet",
    "widget",
    "header",
    "footer",
    "startup",
    "debug-header",
    "debug-footer",
    "debug-startup",
}
CODE = re.compile(r"<<|>>|<%|%>|\(\w[\w-]*:|\$\w|\{\{|</?\w+[^<>]*>|\{[a-z][\w ]*[:}]")


@dataclass
class Passage:
    name: str
    tags: list[str]
    line: int
    body: list[tuple[int, str]] = field(default_factory=list)
    """(line number in the file, text) for each line of the passage's text."""


def is_scene(name: str, tags: list[str]) -> bool:
    return name not in STORY_PASSAGES | FORMAT_PASSAGES and not CODE_TAGS & set(tags)


def story_of(
    title: str,
    passages: list[Passage],
    start: str | None,
    story_format: StoryFormat | None,
    notes: list[str],
    tally: Tally,
) -> StoryDocument:
    """The document of a story's passages; `start` names the start passage (else "Start", else
    the first scene)."""
    scenes = [p for p in passages if _kept(p, notes)]
    names = {p.name for p in scenes}
    start = start or ("Start" if "Start" in names else (scenes[0].name if scenes else None))
    characters: dict[str, CharacterDoc] = {}
    chapters: dict[str, ChapterDoc] = {}
    for passage in scenes:
        scene = _scene(passage, passage.name == start, names, story_format, characters, notes, tally)
        chapter_title = _chapter_of(passage, notes)
        if chapter_title not in chapters:
            tally.add("chapters")
            chapters[chapter_title] = ChapterDoc(chapter_title, where=f"line {passage.line}")
        chapters[chapter_title].scenes.append(scene)
    return StoryDocument(title, list(chapters.values()), list(characters.values()), [], _unique(notes))


def _kept(passage: Passage, notes: list[str]) -> bool:
    if passage.name in FORMAT_PASSAGES:
        notes.append(f'Passage "{passage.name}" is a special passage of the story format: skipped.')
        return False
    if CODE_TAGS & set(passage.tags):
        kinds = "/".join(sorted(CODE_TAGS & set(passage.tags)))
        notes.append(f'Passage "{passage.name}" is {kinds}: skipped.')
        return False
    return passage.name not in STORY_PASSAGES


def _scene(
    passage: Passage,
    is_start: bool,
    names: set[str],
    story_format: StoryFormat | None,
    characters: dict[str, CharacterDoc],
    notes: list[str],
    tally: Tally,
) -> SceneDoc:
    scene = SceneDoc(passage.name, passage.name, is_start=is_start, is_ending=ENDING_TAG in passage.tags)
    scene.where = f"line {passage.line}"
    last = max((number for number, raw in passage.body if raw.strip()), default=0)
    for number, raw in passage.body:
        found = navigations(raw, story_format)
        tally.add("choices", len(found))
        for navigation in found:
            scene.choices.append(_choice(navigation, passage.name, number, number == last, names, notes))
        if not with_navigations(raw, found, shown=False).strip():
            continue  # a line of links only: they are the scene's choices
        if any(not n.automatic for n in found):
            notes.append(
                f"line {number}: a link inside a sentence became a choice; its words stay in the line."
            )
        text = with_navigations(raw, found).strip()
        if CODE.search(text):
            notes.append(
                f'Passage "{passage.name}" has story-format code (macros, variables, HTML) on line {number}: '
                f"kept as text: {text[:60]}"
            )
        tally.add("lines")
        scene.lines.append(spoken_line(text, f"line {number}", characters))
    return scene


def _choice(
    navigation: Navigation, passage: str, number: int, at_end: bool, names: set[str], notes: list[str]
) -> ChoiceDoc:
    target = navigation.target if navigation.target in names else None
    if target is None:
        notes.append(
            f'line {number}: the link to "{navigation.target}" leads to no passage; the choice leads nowhere.'
        )
    if navigation.automatic and not at_end:
        notes.append(
            f'line {number}: passage "{passage}" moves on to "{navigation.target}" before its end; '
            'the move became a choice labelled "Continue".'
        )
    if navigation.setter is not None:
        notes.append(
            f'line {number}: the link "{navigation.label}" sets [{navigation.setter}] as it is followed; '
            "the setter is not kept."
        )
    return ChoiceDoc(navigation.label, target, f"line {number}")


def _chapter_of(passage: Passage, notes: list[str]) -> str:
    chapter = DEFAULT_CHAPTER
    for tag in passage.tags:
        if tag.startswith(CHAPTER_TAG) and len(tag) > len(CHAPTER_TAG):
            chapter = tag[len(CHAPTER_TAG) :].replace("_", " ")
        elif tag != ENDING_TAG:
            notes.append(f'The tag "{tag}" has no equivalent in Romergo: not kept.')
    return chapter


def _unique(notes: list[str]) -> list[str]:
    return list(dict.fromkeys(notes))
