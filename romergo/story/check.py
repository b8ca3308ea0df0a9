"""The story check: pure logic over one project's rows, no I/O.

Each problem names a code (CONTRACT.md §1.2), a severity, a sentence for the author or the agent,
and where to look. The graph is the scenes joined by their choices; a story starts at the start
scene and should be able to reach an ending from everywhere it can go.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

from romergo.story.graph import cycles, reach, reverse
from romergo.story.media_rules import Furnished, effective_media
from romergo.story.media_types import sniff
from romergo.story.problems import Problem, Severity
from romergo.story.state.check import state_problems
from romergo.story.views import ChoiceRecord, ProjectData

__all__ = ["Problem", "Severity", "StoredMedia", "check_story"]


@dataclass(frozen=True)
class StoredMedia:
    """What the check needs of a media file's stored bytes: their first bytes and their length."""

    head: bytes
    length: int


def check_story(
    data: ProjectData, media: Mapping[str, StoredMedia] | None = None, reach: frozenset[str] | None = None
) -> list[Problem]:
    """Every problem of the story, in a stable order: choices, the start, scene by scene, loops, assets.

    `media`: the stored bytes of the project's assets by id (an asset missing from it has no
    bytes at all); without it, whether the media files load is not checked.

    `reach`: the chapters of an agent's limited room. Then only the problems of its chapters are
    listed, and the project-wide ones (no start scene, unused assets, variables), and no problem
    names a scene outside them: a loop that runs through the room and beyond is the room's problem
    too, so it is listed by its first scene inside, its outside scenes counted, never named."""
    story = _StoryIndex.of(data)
    problems = [*_dangling_targets(story), *_no_start_scene(story)]
    for scene in story.in_order:
        for scene_check in _SCENE_CHECKS:
            problems.extend(scene_check(story, scene))
    problems.extend(_loops_without_exit(story, reach))
    problems.extend(state_problems(data, story.at, story.reachable))
    problems.extend(_unused_assets(story))
    if media is not None:
        problems.extend(_unreadable_media(story, media))
    if reach is None:
        return problems
    return [problem for problem in problems if problem.chapter_id is None or problem.chapter_id in reach]


class _Scene(Furnished, Protocol):
    """What the checks read of a scene."""

    @property
    def id(self) -> str: ...
    @property
    def chapter_id(self) -> str: ...
    @property
    def title(self) -> str: ...
    @property
    def is_start(self) -> bool: ...
    @property
    def is_ending(self) -> bool: ...


@dataclass(frozen=True)
class _StoryIndex:
    """The scene graph and lookups the checks share, built once in O(scenes + choices + lines)."""

    data: ProjectData
    scenes: dict[str, _Scene]
    in_order: Sequence[_Scene]
    chapters: Mapping[str, Furnished]
    edges: dict[str, list[str]]
    """Scene id → the scenes its choices lead to (existing targets only)."""
    has_choices: set[str]
    reachable: set[str]
    can_end: set[str]
    live_assets: set[str]
    characters: set[str]

    @classmethod
    def of(cls, data: ProjectData) -> _StoryIndex:
        scenes: dict[str, _Scene] = {scene.id: scene for scene in data.scenes}
        edges = _edges(scenes, data.choices)
        return cls(
            data=data,
            scenes=scenes,
            in_order=data.scenes_in_order(),
            chapters={chapter.id: chapter for chapter in data.chapters},
            edges=edges,
            has_choices={choice.scene_id for choice in data.choices},
            reachable=reach(edges, [scene.id for scene in data.scenes if scene.is_start]),
            can_end=reach(reverse(edges), [scene.id for scene in data.scenes if scene.is_ending]),
            live_assets={asset.id for asset in data.assets},
            characters={character.id for character in data.characters},
        )

    @property
    def has_start(self) -> bool:
        return any(scene.is_start for scene in self.scenes.values())

    def at(self, scene_id: str) -> tuple[str, str]:
        return scene_id, self.scenes[scene_id].chapter_id


def _dangling_targets(story: _StoryIndex) -> Iterator[Problem]:
    for choice in _in_scene_order(story.data.choices):
        if choice.scene_id not in story.scenes or choice.target_scene_id in story.scenes:
            continue
        where = "has no target" if not choice.target_scene_id else "leads to a scene that no longer exists"
        title = story.scenes[choice.scene_id].title
        yield Problem(
            "dangling_target",
            "error",
            f'Choice "{choice.label}" in scene "{title}" {where}.',
            *story.at(choice.scene_id),
        )


def _no_start_scene(story: _StoryIndex) -> Iterator[Problem]:
    if not story.has_start:
        yield Problem("no_start_scene", "error", "No scene is marked as the start of the story.")


def _unreachable_scene(story: _StoryIndex, scene: _Scene) -> Iterator[Problem]:
    # Without a start every scene is unreachable; `no_start_scene` already says so, once.
    if story.has_start and scene.id not in story.reachable:
        yield Problem(
            "unreachable_scene",
            "warning",
            f'Scene "{scene.title}" cannot be reached from the start: no choice leads to it.',
            *story.at(scene.id),
        )


def _blank_scene(story: _StoryIndex, scene: _Scene) -> Iterator[Problem]:
    if _is_blank(story, scene):
        yield Problem(
            "blank_scene",
            "error",
            f'Scene "{scene.title}" has no lines and no choices: the player sees nothing there.',
            *story.at(scene.id),
        )


def _is_blank(story: _StoryIndex, scene: _Scene) -> bool:
    return scene.id not in story.has_choices and not story.data.lines_of(scene.id)


def _dead_end(story: _StoryIndex, scene: _Scene) -> Iterator[Problem]:
    # A blank scene is one problem (blank_scene), not three.
    if not scene.is_ending and scene.id not in story.has_choices and not _is_blank(story, scene):
        yield Problem(
            "dead_end",
            "warning",
            f'Scene "{scene.title}" has no choices and is not marked as an ending, so the story stops there.',
            *story.at(scene.id),
        )


def _missing_background(story: _StoryIndex, scene: _Scene) -> Iterator[Problem]:
    chapter = story.chapters.get(scene.chapter_id)
    if effective_media(scene, chapter, "background", story.live_assets).asset_id is None:
        yield Problem(
            "missing_background", "warning", f'Scene "{scene.title}" has no background.', *story.at(scene.id)
        )


def _missing_music(story: _StoryIndex, scene: _Scene) -> Iterator[Problem]:
    chapter = story.chapters.get(scene.chapter_id)
    if effective_media(scene, chapter, "music", story.live_assets).asset_id is None:
        yield Problem(
            "missing_music",
            "warning",
            f'Scene "{scene.title}" has no music, and neither has its chapter.',
            *story.at(scene.id),
        )


def _empty_scene(story: _StoryIndex, scene: _Scene) -> Iterator[Problem]:
    if not story.data.lines_of(scene.id) and not _is_blank(story, scene):
        yield Problem(
            "empty_scene", "warning", f'Scene "{scene.title}" has no dialogue.', *story.at(scene.id)
        )


def _unknown_speaker(story: _StoryIndex, scene: _Scene) -> Iterator[Problem]:
    for line in story.data.lines_of(scene.id):
        if line.character_id is not None and line.character_id not in story.characters:
            yield Problem(
                "unknown_speaker",
                "error",
                f'Line {line.position + 1} of scene "{scene.title}" is spoken by a character '
                "that does not exist.",
                *story.at(scene.id),
            )


def _choice_labels(story: _StoryIndex, scene: _Scene) -> Iterator[Problem]:
    seen: set[str] = set()
    for choice in story.data.choices_of(scene.id):
        label = choice.label.strip()
        if not label:
            yield Problem(
                "empty_choice_label",
                "error",
                f'Choice {choice.position + 1} of scene "{scene.title}" has no label: the player '
                "sees an empty button.",
                *story.at(scene.id),
            )
        elif label.casefold() in seen:
            yield Problem(
                "duplicate_choice_label",
                "warning",
                f'Scene "{scene.title}" offers "{label}" twice: the player cannot tell the choices apart.',
                *story.at(scene.id),
            )
        seen.add(label.casefold())


_SCENE_CHECKS: tuple[Callable[[_StoryIndex, _Scene], Iterator[Problem]], ...] = (
    _unreachable_scene,
    _blank_scene,
    _dead_end,
    _missing_background,
    _missing_music,
    _empty_scene,
    _unknown_speaker,
    _choice_labels,
)


def _loops_without_exit(story: _StoryIndex, reach: frozenset[str] | None) -> Iterator[Problem]:
    for component in cycles(story.edges):
        if any(scene_id in story.can_end for scene_id in component):
            continue
        ordered = [scene for scene in story.in_order if scene.id in component]
        named = [scene for scene in ordered if reach is None or scene.chapter_id in reach]
        if not named:
            continue
        yield Problem(
            "loop_without_exit",
            "error",
            f"{_loop_names(named, len(ordered) - len(named))} lead only to each other: once there, "
            "no ending can be reached.",
            *story.at(named[0].id),
        )


def _loop_names(named: list[_Scene], outside: int) -> str:
    """ "The scenes "A", "B"", or in a limited room "The scene "A" and 2 scenes outside this room"."""
    names = ", ".join(f'"{scene.title}"' for scene in named)
    if not outside:
        return f"The scenes {names}"
    scenes = "scene" if outside == 1 else "scenes"
    return f"The scene{'s' if len(named) > 1 else ''} {names} and {outside} {scenes} outside this room"


def _unused_assets(story: _StoryIndex) -> Iterator[Problem]:
    data = story.data
    used = {a for c in data.chapters for a in (c.background_asset_id, c.music_asset_id) if a}
    used |= {a for s in data.scenes for a in (s.background_asset_id, s.music_asset_id) if a}
    # Sounds have no slot (they are for effects a story plays on cue), so they are never "unused".
    for asset in sorted(data.assets, key=lambda a: a.name.casefold()):
        if asset.kind != "sound" and asset.id not in used:
            yield Problem(
                "unused_asset", "info", f'Asset "{asset.name}" is not used by any scene or chapter.'
            )


def _unreadable_media(story: _StoryIndex, media: Mapping[str, StoredMedia]) -> Iterator[Problem]:
    """Backgrounds and music that are used but whose stored file would not load: missing, cut
    short, or not the type it was accepted as (a whole decode happened when it was imported)."""
    data = story.data
    used = {a for c in data.chapters for a in (c.background_asset_id, c.music_asset_id) if a}
    used |= {a for s in data.scenes for a in (s.background_asset_id, s.music_asset_id) if a}
    for asset in sorted(data.assets, key=lambda a: a.name.casefold()):
        if asset.id not in used:
            continue
        stored = media.get(asset.id)
        if stored is None:
            why = "its file is missing"
        elif stored.length != asset.size:
            why = f"its file is cut short ({stored.length:,} of {asset.size:,} bytes)"
        elif sniff(stored.head) != asset.mime:
            why = f"its file is no longer a {asset.mime} file"
        else:
            continue
        what = "Background" if asset.kind == "background" else "Music"
        yield Problem("unreadable_media", "error", f'{what} "{asset.name}" cannot be loaded: {why}.')


def _edges(scenes: dict[str, _Scene], choices: list[ChoiceRecord]) -> dict[str, list[str]]:
    edges: dict[str, list[str]] = {scene_id: [] for scene_id in scenes}
    for choice in _in_scene_order(choices):
        if choice.scene_id in scenes and choice.target_scene_id in scenes:
            edges[choice.scene_id].append(choice.target_scene_id)
    return edges


def _in_scene_order(choices: list[ChoiceRecord]) -> list[ChoiceRecord]:
    return sorted(choices, key=lambda c: (c.scene_id, c.position))
