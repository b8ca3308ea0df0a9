"""Yarn Spinner scripts (`.yarn`, https://docs.yarnspinner.dev/getting-started/writing-in-yarn).

Nodes ↔ scenes, `Name: text` lines ↔ dialogue spoken by that character (other lines: narration),
`-> option` followed by an indented `<<jump Node>>` ↔ a choice. The node called `Start` (else the
first) is the start. Romergo's own parts ride on headers Yarn keeps: `tags: ending`,
`romergo_title:` (a scene title may hold what a node title may not) and `romergo_chapter:`.
Variables, conditions and effects map to Yarn's own (`yarn_state`).

Import reads every node first: a node without a title, a second node of the same title, a node
without its `---` or `===` is refused naming its line. Commands other than jumps, conditions,
variables, line tags and lines inside an option have no equivalent and are reported as notes.
"""

from __future__ import annotations

import re
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
    VariableDoc,
    left_out,
    split_speaker,
    spoken_line,
)
from romergo.interchange.yarn_state import (
    assignment,
    condition_to_yarn,
    declarations,
    declared,
    effects_to_yarn,
    joined,
    settle,
    split_condition,
)

STORY_COMMENT = "// story: "
TITLE_HEADER = "romergo_title"
CHAPTER_HEADER = "romergo_chapter"
ENDING_TAG = "ending"
DEFAULT_CHAPTER = "Chapter 1"
HEADER_LINE = re.compile(r"^(?P<key>[A-Za-z_][\w.]*)\s*:\s*(?P<value>.*)$")
JUMP = re.compile(r"^<<\s*jump\s+(?P<target>[^>\s]+)\s*>>$")
OPTION = re.compile(r"^->\s*(?P<label>.*)$")
LINE_TAG = re.compile(r"#[\w:.\-]+")


# ---- export ------------------------------------------------------------------------------------


def write_yarn(document: StoryDocument) -> tuple[str, list[str]]:
    notes: list[str] = []
    titles = _node_titles(document)
    nodes: list[str] = []
    first = next((s for s in document.scenes() if s.is_start), None) or next(iter(document.scenes()), None)
    for chapter in document.chapters:
        for scene in chapter.scenes:
            headers = [f"title: {titles[scene.key]}", f"{TITLE_HEADER}: {_one_line(scene.title)}"]
            headers.append(f"{CHAPTER_HEADER}: {_one_line(chapter.title)}")
            if scene.is_ending:
                headers.append(f"tags: {ENDING_TAG}")
            body = declarations(document) if scene is first else []
            body += effects_to_yarn(scene.entry_effects)
            body += [_line(line, notes) + condition_to_yarn(line.condition) for line in scene.lines]
            for choice in scene.choices:
                body.append(f"-> {_one_line(choice.label)}{condition_to_yarn(choice.condition)}")
                body += [f"    {effect}" for effect in effects_to_yarn(choice.effects)]
                if choice.target in titles:
                    body.append(f"    <<jump {titles[choice.target]}>>")
                else:
                    notes.append(
                        f'The choice "{choice.label}" leads nowhere: written as an option without a jump.'
                    )
            nodes.append("\n".join([*headers, "---", *body, "==="]))
    notes += left_out(document, "a Yarn script", keeps_state=True)
    story = f"{STORY_COMMENT}{_one_line(document.title)}\n\n"
    return story + "\n\n".join(nodes) + "\n", list(dict.fromkeys(notes))


def _node_titles(document: StoryDocument) -> dict[str, str]:
    """Scene key → a node title: letters, digits and underscores, unique; the start scene is `Start`."""
    titles: dict[str, str] = {}
    used: set[str] = set()
    tried: dict[str, int] = {}
    start = next((s for s in document.scenes() if s.is_start), None)
    if start is not None:
        titles[start.key] = "Start"
        used.add("Start")
    for scene in document.scenes():
        if scene.key in titles:
            continue
        base = re.sub(r"\W+", "_", scene.title, flags=re.ASCII).strip("_") or "Scene"
        base = base if base[0].isalpha() or base[0] == "_" else f"_{base}"
        n = tried.get(base, 1)
        title = base if n == 1 else f"{base}_{n}"
        while title in used:
            n += 1
            title = f"{base}_{n}"
        tried[base] = n  # the last number tried: 10,000 scenes of one title stay linear
        used.add(title)
        titles[scene.key] = title
    return titles


def _line(line: LineDoc, notes: list[str]) -> str:
    text = _one_line(line.text)
    if text != line.text:
        notes.append("Lines of more than one paragraph are joined into one (a Yarn line is one line).")
    if line.speaker:
        return f"{line.speaker}: {text}"
    if split_speaker(text) or text.startswith(("->", "<<", "//", "===", "---")):
        notes.append(f'The narration "{text[:40]}" would read as Yarn syntax: written with a leading "\\".')
        return "\\" + text
    return text


def _one_line(text: str) -> str:
    return " ".join(text.split("\n"))


# ---- import ------------------------------------------------------------------------------------


@dataclass
class _Node:
    title: str
    headers: dict[str, str]
    line: int
    body: list[tuple[int, str]] = field(default_factory=list)


def read_yarn(text: str) -> StoryDocument:
    """The story's title comes from a first line `// story: Title`; without one it is "" (the
    importer names it after the file)."""
    lines = text.splitlines()
    first = next((line.strip() for line in lines if line.strip()), "")
    title = first[len(STORY_COMMENT) :].strip() if first.startswith(STORY_COMMENT) else ""
    tally = Tally()
    nodes = _nodes(lines, tally)
    titles = {node.title for node in nodes}
    start = "Start" if "Start" in titles else nodes[0].title
    notes: list[str] = []
    characters: dict[str, CharacterDoc] = {}
    chapters: dict[str, ChapterDoc] = {}
    variables: list[VariableDoc] = []
    for node in nodes:
        scene = _scene(node, node.title == start, titles, characters, variables, notes)
        tally.add("lines", len(scene.lines))
        tally.add("choices", len(scene.choices))
        chapter_title = node.headers.get(CHAPTER_HEADER, "").strip() or DEFAULT_CHAPTER
        if chapter_title not in chapters:
            tally.add("chapters")
            chapters[chapter_title] = ChapterDoc(chapter_title, where=f"line {node.line}")
        chapters[chapter_title].scenes.append(scene)
    document = StoryDocument(title, list(chapters.values()), list(characters.values()), [], notes, variables)
    settle(document, notes)
    document.notes = list(dict.fromkeys(notes))
    return document


def _nodes(lines: list[str], tally: Tally) -> list[_Node]:
    nodes: list[_Node] = []
    seen: dict[str, int] = {}
    number, total = 0, len(lines)
    while number < total:
        if not lines[number].strip() or lines[number].lstrip().startswith("//"):
            number += 1
            continue
        node, number = _node(lines, number)
        if node.title in seen:
            raise invalid(
                f'line {node.line}: a second node titled "{node.title}" (the first: line {seen[node.title]}).'
            )
        seen[node.title] = node.line
        tally.add("scenes")
        nodes.append(node)
    if not nodes:
        raise invalid(
            "line 1: no nodes: a Yarn node is headers (title: …), a line '---', its lines and '==='."
        )
    return nodes


def _node(lines: list[str], index: int) -> tuple[_Node, int]:
    """The node whose headers start at `index`, and the index after its `===`."""
    first, headers = index + 1, {}
    while index < len(lines) and lines[index].strip() != "---":
        match = HEADER_LINE.match(lines[index].strip())
        if match is None:
            raise invalid(f"line {index + 1}: expected a header (key: value) or '---'.")
        headers[match.group("key")] = match.group("value").strip()
        index += 1
    if index == len(lines):
        raise invalid(f"line {first}: the node's headers never end with a line '---'.")
    title = headers.get("title", "")
    if not title:
        raise invalid(f"line {first}: the node has no title header.")
    node = _Node(title, headers, first)
    index += 1
    while index < len(lines) and lines[index].strip() != "===":
        node.body.append((index + 1, lines[index]))
        index += 1
    if index == len(lines):
        raise invalid(f'line {first}: node "{title}" never ends with a line "===".')
    return node, index + 1


def _scene(
    node: _Node,
    is_start: bool,
    titles: set[str],
    characters: dict[str, CharacterDoc],
    variables: list[VariableDoc],
    notes: list[str],
) -> SceneDoc:
    tags = node.headers.get("tags", "").split()
    title = node.headers.get(TITLE_HEADER, "").strip() or node.title
    scene = SceneDoc(
        node.title, title, is_start=is_start, is_ending=ENDING_TAG in tags, where=f"line {node.line}"
    )
    for tag in tags:
        if tag != ENDING_TAG:
            notes.append(f'The tag "{tag}" has no equivalent in Romergo: not kept.')
    option: tuple[ChoiceDoc, int] | None = None
    entry: list[str] = []
    comment: str | None = None
    for number, raw in node.body:
        stripped = raw.strip()
        indent = len(raw) - len(raw.lstrip())
        if not stripped or stripped.startswith("//"):
            comment = stripped[2:].strip() if stripped else None
            continue
        if option is not None and indent > option[1]:
            _inside_option(option[0], stripped, number, titles, notes)
            continue
        option = None
        stripped = _without_tags(stripped, notes)
        if (variable := declared(stripped, comment)) is not None:
            variables.append(variable)
        elif (effect := assignment(stripped)) is not None:
            entry.append(effect)
        elif (found := OPTION.match(stripped)) is not None:
            label, condition = split_condition(found.group("label"))
            choice = ChoiceDoc(label.strip(), None, f"line {number}", condition)
            scene.choices.append(choice)
            option = (choice, indent)
        elif (jump := JUMP.match(stripped)) is not None:
            notes.append(f'line {number}: a jump outside an option became a choice labelled "Continue".')
            scene.choices.append(
                ChoiceDoc("Continue", _target(jump.group("target"), number, titles, notes), f"line {number}")
            )
        elif stripped.startswith("<<"):
            notes.append(
                f"line {number}: the command {stripped[:40]} has no equivalent in Romergo: not kept."
            )
        else:
            text, condition = split_condition(stripped)
            line = _spoken(text, f"line {number}", characters, notes)
            line.condition = condition
            scene.lines.append(line)
        comment = None
    scene.entry_effects = joined(entry)
    return scene


def _inside_option(choice: ChoiceDoc, stripped: str, number: int, titles: set[str], notes: list[str]) -> None:
    jump = JUMP.match(stripped)
    effect = assignment(stripped)
    if jump is not None and choice.target is None:
        choice.target = _target(jump.group("target"), number, titles, notes)
    elif effect is not None:
        choice.effects = joined([choice.effects, effect] if choice.effects else [effect])
    else:
        notes.append(
            f"line {number}: lines and commands inside an option (other than its jump) are not kept."
        )


def _target(name: str, number: int, titles: set[str], notes: list[str]) -> str | None:
    if name in titles:
        return name
    notes.append(f'line {number}: the jump to "{name}" leads to no node; the choice leads nowhere.')
    return None


def _without_tags(text: str, notes: list[str]) -> str:
    cleaned = _tags_cut(text)
    if cleaned != text:
        notes.append("Line tags (#…) have no equivalent in Romergo: not kept.")
    return cleaned


def _tags_cut(text: str) -> str:
    """`text` without the `#tags` that end it (each after a space), read from the end once: the
    pattern `(?:\\s+#[\\w:.\\-]+)+\\s*$` it replaces was tried again from every space of the line."""
    end = len(text.rstrip())
    kept = len(text)
    while end > 0:
        start = end
        while start > 0 and not text[start - 1].isspace():
            start -= 1
        if start == 0 or LINE_TAG.fullmatch(text, start, end) is None:
            break
        while start > 0 and text[start - 1].isspace():
            start -= 1
        end = kept = start
    return text[:kept]


def _spoken(text: str, where: str, characters: dict[str, CharacterDoc], notes: list[str]) -> LineDoc:
    if "{" in text and "}" in text:
        notes.append(f"{where}: interpolated values ({{$…}}) are kept as text.")
    if text.startswith("\\"):
        return LineDoc(text[1:], None, where)
    return spoken_line(text, where, characters)
