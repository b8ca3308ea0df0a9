"""The story check: pure logic over one project's rows, no I/O.

Each problem names a code (CONTRACT.md §1.2), a severity, a sentence for the author or the agent,
and where to look. The graph is the scenes joined by their choices; a story starts at the start
scene and should be able to reach an ending from everywhere it can go.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from typing import Literal

from romergo.story.views import ProjectData
from storage.tables import Scene

Severity = Literal["error", "warning", "info"]


@dataclass(frozen=True)
class Problem:
    code: str
    severity: Severity
    message: str
    scene_id: str | None = None
    chapter_id: str | None = None


def check_story(data: ProjectData) -> list[Problem]:
    problems: list[Problem] = []
    scenes = {scene.id: scene for scene in data.scenes}
    chapters = {chapter.id: chapter for chapter in data.chapters}
    live_assets = {asset.id for asset in data.assets}
    characters = {character.id for character in data.characters}
    edges: dict[str, list[str]] = {scene_id: [] for scene_id in scenes}

    def at(scene_id: str) -> tuple[str, str]:
        return scene_id, scenes[scene_id].chapter_id

    for choice in sorted(data.choices, key=lambda c: (c.scene_id, c.position)):
        if choice.scene_id not in scenes:
            continue
        if choice.target_scene_id in scenes:
            edges[choice.scene_id].append(choice.target_scene_id)
        else:
            where = (
                "has no target" if not choice.target_scene_id else "leads to a scene that no longer exists"
            )
            problems.append(
                Problem(
                    "dangling_target",
                    "error",
                    f'Choice "{choice.label}" in scene "{scenes[choice.scene_id].title}" {where}.',
                    *at(choice.scene_id),
                )
            )

    starts = [scene for scene in scenes.values() if scene.is_start]
    if not starts:
        problems.append(Problem("no_start_scene", "error", "No scene is marked as the start of the story."))
    reachable = _reach(edges, [s.id for s in starts])
    ends = {scene_id for scene_id, scene in scenes.items() if scene.is_ending}
    can_end = _reach(_reverse(edges), list(ends))

    for scene in _in_story_order(data):
        sid = scene.id
        chapter = chapters.get(scene.chapter_id)
        if starts and sid not in reachable:
            problems.append(
                Problem(
                    "unreachable_scene",
                    "warning",
                    f'Scene "{scene.title}" cannot be reached from the start: no choice leads to it.',
                    *at(sid),
                )
            )
        if not scene.is_ending and not any(c.scene_id == sid for c in data.choices):
            problems.append(
                Problem(
                    "dead_end",
                    "warning",
                    f'Scene "{scene.title}" has no choices and is not marked as an ending, '
                    "so the story stops there.",
                    *at(sid),
                )
            )
        background = scene.background_asset_id or (chapter.background_asset_id if chapter else None)
        if background not in live_assets:
            problems.append(
                Problem(
                    "missing_background", "warning", f'Scene "{scene.title}" has no background.', *at(sid)
                )
            )
        music = scene.music_asset_id or (chapter.music_asset_id if chapter else None)
        if music not in live_assets:
            problems.append(
                Problem(
                    "missing_music",
                    "warning",
                    f'Scene "{scene.title}" has no music, and neither has its chapter.',
                    *at(sid),
                )
            )
        lines = data.lines_of(sid)
        if not lines:
            problems.append(
                Problem("empty_scene", "warning", f'Scene "{scene.title}" has no dialogue.', *at(sid))
            )
        for line in lines:
            if line.character_id is not None and line.character_id not in characters:
                problems.append(
                    Problem(
                        "unknown_speaker",
                        "error",
                        f'Line {line.position + 1} of scene "{scene.title}" is spoken by a character '
                        "that does not exist.",
                        *at(sid),
                    )
                )

    for component in _cycles(edges):
        if any(scene_id in can_end for scene_id in component):
            continue
        ordered = [s for s in _in_story_order(data) if s.id in component]
        names = ", ".join(f'"{s.title}"' for s in ordered)
        problems.append(
            Problem(
                "loop_without_exit",
                "error",
                f"The scenes {names} lead only to each other: once there, no ending can be reached.",
                *at(ordered[0].id),
            )
        )

    used = {a for c in data.chapters for a in (c.background_asset_id, c.music_asset_id) if a}
    used |= {a for s in data.scenes for a in (s.background_asset_id, s.music_asset_id) if a}
    # Sounds have no slot yet (they are for effects a story plays on cue), so they are never "unused".
    for asset in sorted(data.assets, key=lambda a: a.name.casefold()):
        if asset.kind != "sound" and asset.id not in used:
            problems.append(
                Problem("unused_asset", "info", f'Asset "{asset.name}" is not used by any scene or chapter.')
            )
    return problems


def _in_story_order(data: ProjectData) -> list[Scene]:
    order = {chapter.id: chapter.position for chapter in data.chapters}
    return sorted(data.scenes, key=lambda s: (order.get(s.chapter_id, 0), s.position))


def _reach(edges: dict[str, list[str]], roots: list[str]) -> set[str]:
    seen = set(roots)
    queue = deque(roots)
    while queue:
        for target in edges.get(queue.popleft(), ()):
            if target not in seen:
                seen.add(target)
                queue.append(target)
    return seen


def _reverse(edges: dict[str, list[str]]) -> dict[str, list[str]]:
    reverse: dict[str, list[str]] = {node: [] for node in edges}
    for source, targets in edges.items():
        for target in targets:
            reverse.setdefault(target, []).append(source)
    return reverse


def _cycles(edges: dict[str, list[str]]) -> list[set[str]]:
    """Strongly connected components that contain a cycle (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    found: list[set[str]] = []
    counter = 0
    for root in edges:
        if root in index:
            continue
        work = [(root, iter(edges[root]))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, targets = work[-1]
            advanced = False
            for target in targets:
                if target not in index:
                    index[target] = low[target] = counter
                    counter += 1
                    stack.append(target)
                    on_stack.add(target)
                    work.append((target, iter(edges[target])))
                    advanced = True
                    break
                if target in on_stack:
                    low[node] = min(low[node], index[target])
            if advanced:
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component: set[str] = set()
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.add(member)
                    if member == node:
                        break
                if len(component) > 1 or node in edges[node]:
                    found.append(component)
    return found
