"""A story as every interchange format sees it: no ids, no revisions; scenes point at each other by
a key that is unique in the document, and media by an asset key.

Formats (`archive`, `twee`, `yarn`) turn files into a `StoryDocument` and back; `check_document`
applies Romergo's own rules to a whole document before anything is created, so an import either
creates the whole project or nothing, and says which part is wrong.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from romergo.common.config import Limits
from romergo.common.errors import RomergoError, invalid
from romergo.story import validation
from romergo.story.media_types import AssetKind, accepted_types, sniff
from romergo.story.scenes import MAX_CHOICES
from romergo.story.state.evaluate import VariableType
from romergo.story.state.variables import check_variable, checked_condition, checked_effects


@dataclass
class LineDoc:
    text: str
    speaker: str | None = None
    """A character's name (one of the document's characters); None for narration."""
    where: str = ""
    """Where it came from in the file ("line 12"), for error messages."""
    condition: str | None = None


@dataclass
class ChoiceDoc:
    label: str
    target: str | None
    """The key of the scene it leads to; None when it leads nowhere (the story check says so)."""
    where: str = ""
    condition: str | None = None
    effects: str | None = None


@dataclass
class SceneDoc:
    key: str
    title: str
    lines: list[LineDoc] = field(default_factory=list)
    choices: list[ChoiceDoc] = field(default_factory=list)
    is_start: bool = False
    is_ending: bool = False
    background: str | None = None
    music: str | None = None
    where: str = ""
    entry_effects: str | None = None


@dataclass
class ChapterDoc:
    title: str
    scenes: list[SceneDoc] = field(default_factory=list)
    background: str | None = None
    music: str | None = None
    where: str = ""


@dataclass
class CharacterDoc:
    name: str
    color: str | None = None


@dataclass
class AssetDoc:
    key: str
    kind: AssetKind
    name: str
    data: bytes
    tags: list[str] = field(default_factory=list)


@dataclass
class VariableDoc:
    name: str
    type: str
    initial: bool | int | float | str | None = None
    description: str = ""


@dataclass
class StoryDocument:
    title: str
    chapters: list[ChapterDoc] = field(default_factory=list)
    characters: list[CharacterDoc] = field(default_factory=list)
    assets: list[AssetDoc] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    """What the file had that Romergo keeps no equivalent of (reported, never dropped silently)."""
    variables: list[VariableDoc] = field(default_factory=list)

    def scenes(self) -> list[SceneDoc]:
        return [scene for chapter in self.chapters for scene in chapter.scenes]

    def has_state(self) -> bool:
        """Whether it has variables, conditions or effects (story state)."""
        return bool(self.variables) or any(
            scene.entry_effects
            or any(line.condition for line in scene.lines)
            or any(choice.condition or choice.effects for choice in scene.choices)
            for scene in self.scenes()
        )


# `Name: text`, the convention Twee and Yarn authors use for who speaks: a name of at most four
# words before the colon (a sentence with a colon in it stays narration). Brackets, `<>` and `$`
# never make a name: before a colon they are story-format code (`(set: …)`, `](else-if: …)`,
# `{embed passage: …}`, `<<if $a: …>>`).
SPEAKER = re.compile(r"^(?P<name>[^\s:.!?\"'_()\[\]{}<>$][^:.!?\"()\[\]{}<>$]{0,38}?):\s+(?P<text>\S.*)$")
MAX_NAME_WORDS = 4


def split_speaker(text: str) -> tuple[str, str] | None:
    """(name, words) when `text` reads as `Name: words`."""
    match = SPEAKER.match(text)
    if match is None or len(match.group("name").split()) > MAX_NAME_WORDS:
        return None
    return match.group("name").strip(), match.group("text").strip()


def spoken_line(text: str, where: str, characters: dict[str, CharacterDoc]) -> LineDoc:
    """A line of a text format: spoken when it reads as `Name: words` (the character is added to
    `characters`, by case-folded name), else narration."""
    found = split_speaker(text)
    if found is None:
        return LineDoc(text, None, where)
    name, words = found
    return LineDoc(words, characters.setdefault(name.casefold(), CharacterDoc(name)).name, where)


def left_out(document: StoryDocument, what: str, *, keeps_state: bool = False) -> list[str]:
    """What a text format (`what`: "a Twee file") has no room for, said once each in an export's notes."""
    notes = []
    if document.assets or any(s.background or s.music for s in document.scenes()):
        notes.append(
            f"Backgrounds, music and sounds are not part of {what} (the Romergo archive keeps them)."
        )
    if document.has_state() and not keeps_state:
        notes.append(
            f"Variables, conditions and effects are not part of {what}: Twee 3 leaves them to the story "
            "format (Harlowe, SugarCube), whose macros differ. A Yarn script and the archive keep them."
        )
    if document.characters:
        notes.append(f"Characters' colours are not part of {what}; their names are, before each line.")
    return notes


def check_document(document: StoryDocument, limits: Limits) -> None:
    """Every rule an edit in the editor obeys, for the whole document at once; the first broken
    one is raised as `invalid_argument` naming where it is."""
    with _at("the story's title"):
        validation.title(document.title, limits, "Story title")
    if not document.scenes():
        raise invalid("The file holds no scenes (passages, nodes) to import.")
    keys: set[str] = set()
    for scene in document.scenes():
        if scene.key in keys:
            raise invalid(f"Two scenes are both called {scene.key!r} ({scene.where}).")
        keys.add(scene.key)
    names = _characters(document, limits)
    assets = _assets(document, limits)
    types = _variables(document)
    for chapter in document.chapters:
        with _at(chapter.where):
            validation.title(chapter.title, limits, "Chapter title")
        _media(chapter.background, chapter.music, assets, chapter.where)
        for scene in chapter.scenes:
            _scene(scene, keys, names, assets, limits)
            _state(scene, types)


def _scene(scene: SceneDoc, keys: set[str], names: set[str], assets: dict[str, str], limits: Limits) -> None:
    with _at(scene.where):
        validation.title(scene.title, limits, "Scene title")
    _media(scene.background, scene.music, assets, scene.where)
    if len(scene.choices) > MAX_CHOICES:
        raise invalid(
            f"Scene {scene.title!r} ({scene.where}) offers {len(scene.choices)} choices; "
            f"at most {MAX_CHOICES}."
        )
    for line in scene.lines:
        with _at(line.where or scene.where):
            validation.line_text(line.text, limits)
        if line.speaker is not None and line.speaker.casefold() not in names:
            raise invalid(
                f"{line.where or scene.where}: the speaker {line.speaker!r} is not one of the characters."
            )
    for choice in scene.choices:
        with _at(choice.where or scene.where):
            validation.title(choice.label, limits, "Choice label")
        if choice.target is not None and choice.target not in keys:
            raise invalid(
                f"{choice.where or scene.where}: the choice leads to {choice.target!r}, "
                "which is not in the file."
            )


def _variables(document: StoryDocument) -> dict[str, VariableType]:
    types: dict[str, VariableType] = {}
    for variable in document.variables:
        with _at(f"variable {variable.name!r}"):
            types[variable.name] = check_variable(variable.name, variable.type, variable.initial, list(types))
    return types


def _state(scene: SceneDoc, types: dict[str, VariableType]) -> None:
    checked_effects(scene.entry_effects, types, f"{scene.where}: the scene's entry effects")
    for line in scene.lines:
        checked_condition(line.condition, types, f"{line.where or scene.where}: the line's condition")
    for choice in scene.choices:
        checked_condition(choice.condition, types, f"{choice.where or scene.where}: the choice's condition")
        checked_effects(choice.effects, types, f"{choice.where or scene.where}: the choice's effects")


def _characters(document: StoryDocument, limits: Limits) -> set[str]:
    names: set[str] = set()
    for character in document.characters:
        with _at("the characters"):
            name = validation.title(character.name, limits, "Character name")
        if character.color is not None:
            with _at(f"character {name!r}"):
                validation.color(character.color)
        if name.casefold() in names:
            raise invalid(f"Two characters are both called {name!r}.")
        names.add(name.casefold())
    return names


def _assets(document: StoryDocument, limits: Limits) -> dict[str, str]:
    """Asset key → kind, after checking each file is what it says (the full decode happens when
    the project is created, as for any import)."""
    kinds: dict[str, str] = {}
    for asset in document.assets:
        if asset.kind not in ("background", "music", "sound"):
            raise invalid(f"Asset {asset.name!r} has an unknown kind {asset.kind!r}.")
        with _at(f"asset {asset.key!r}"):
            validation.title(asset.name, limits, "Asset name")
        with _at(f"asset {asset.name!r}"):
            validation.tags(asset.tags)
        if sniff(asset.data) not in accepted_types(asset.kind):
            raise invalid(f"Asset {asset.name!r} is not a {asset.kind} file Romergo can play.")
        limit = limits.max_image_bytes if asset.kind == "background" else limits.max_audio_bytes
        if len(asset.data) > limit:
            raise invalid(f"Asset {asset.name!r} has {len(asset.data):,} bytes; the limit is {limit:,}.")
        kinds[asset.key] = asset.kind
    return kinds


def _media(background: str | None, music: str | None, assets: dict[str, str], where: str) -> None:
    for key, kind in ((background, "background"), (music, "music")):
        if key is not None and assets.get(key) != kind:
            raise invalid(f"{where}: the {kind} {key!r} is not a {kind} asset of the file.")


@contextmanager
def _at(where: str) -> Iterator[None]:
    """A broken rule, said with where in the file it is."""
    try:
        yield
    except RomergoError as error:
        raise invalid(f"{where}: {error.message}" if where else error.message) from None
