"""The story map: every scene a node, every choice an arrow, laid out in layers from the start.

Layers are the distance from the start scene along choices (so the story reads top to bottom);
scenes no choice reaches get layers below the rest, each group from its own first scene. Within
the layers igraph's Sugiyama layout (in C) orders the nodes to cross as few arrows as it can and
places them. A layout depends only on the graph's shape, so `MapLayouts` keeps the last few: a
change of text or media redraws the map without laying it out again.

Marks come from the story check (the same problems the check page lists), so the map and the
check never disagree.
"""

from __future__ import annotations

import threading
from collections import OrderedDict, deque
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cache
from types import ModuleType
from typing import Any

from romergo.story.check import Problem
from romergo.story.views import ProjectData

LAYOUT_ROUNDS = 10
"""Crossing-reduction sweeps: 2,000 scenes take ~5 ms; more rounds bought little on long stories."""
KEPT_LAYOUTS = 16
# Marks a node carries, from the story check's codes about one scene.
MARKS = {
    "unreachable_scene": "unreachable",
    "dead_end": "dead end",
    "blank_scene": "blank",
    "loop_without_exit": "loop without exit",
    "dangling_target": "choice leads nowhere",
    "empty_scene": "no dialogue",
    "duplicate_choice_label": "same choice twice",
    "empty_choice_label": "choice without label",
    "stuck_choices": "player can get stuck",
    "blocked_scene": "no play-through reaches it",
    "never_true_condition": "condition never true",
    "undeclared_variable": "unknown variable",
    "invalid_expression": "broken condition or effect",
}
SERIOUS = {
    *("unreachable_scene", "dead_end", "blank_scene", "loop_without_exit", "dangling_target"),
    *("stuck_choices", "blocked_scene"),
}


@dataclass(frozen=True)
class MapNode:
    scene_id: str
    title: str
    chapter_id: str
    x: float
    y: float
    is_start: bool
    is_ending: bool
    marks: tuple[str, ...] = ()
    serious: bool = False
    """Marked by a problem that stops a player (unreachable, dead end, loop, a choice to nowhere)."""


@dataclass(frozen=True)
class MapArrow:
    source: str
    target: str | None
    """None: the choice leads nowhere (the map draws it to a mark beside its scene)."""
    label: str


@dataclass(frozen=True)
class StoryMap:
    nodes: list[MapNode]
    arrows: list[MapArrow]
    chapters: list[tuple[str, str]] = field(default_factory=list)
    """(id, title) in story order, for the chapter filter and the node colours."""


class MapLayouts:
    """The last few layouts by graph shape; one per service, shared by every open map."""

    def __init__(self, kept: int = KEPT_LAYOUTS) -> None:
        self._kept = kept
        # Maps are made in worker threads (`StoryReads.story_map`); two at once share the cache.
        self._lock = threading.Lock()
        self._layouts: OrderedDict[tuple[object, ...], dict[str, tuple[float, float]]] = OrderedDict()

    def story_map(self, data: ProjectData, problems: Iterable[Problem]) -> StoryMap:
        scenes = data.scenes_in_order()
        ids = [scene.id for scene in scenes]
        known = set(ids)
        edges = [
            (choice.scene_id, choice.target_scene_id)
            for scene_id in ids
            for choice in data.choices_of(scene_id)
            if choice.target_scene_id in known
        ]
        starts = tuple(scene.id for scene in scenes if scene.is_start)
        positions = self._positions(ids, edges, starts)
        marks = _marks(problems)
        nodes = [
            MapNode(
                scene.id,
                scene.title,
                scene.chapter_id,
                *positions[scene.id],
                scene.is_start,
                scene.is_ending,
                tuple(MARKS[code] for code in marks.get(scene.id, ())),
                bool(SERIOUS & set(marks.get(scene.id, ()))),
            )
            for scene in scenes
        ]
        arrows = [
            MapArrow(
                scene_id, choice.target_scene_id if choice.target_scene_id in known else None, choice.label
            )
            for scene_id in ids
            for choice in data.choices_of(scene_id)
        ]
        chapters = [(chapter.id, chapter.title) for chapter in data.chapters_in_order()]
        return StoryMap(nodes, arrows, chapters)

    def _positions(
        self, ids: list[str], edges: list[tuple[str, str]], starts: tuple[str, ...]
    ) -> dict[str, tuple[float, float]]:
        key = (tuple(ids), tuple(edges), starts)
        with self._lock:
            if key in self._layouts:
                self._layouts.move_to_end(key)
                return self._layouts[key]
        positions = layered_layout(ids, edges, starts)
        with self._lock:
            self._layouts[key] = positions
            while len(self._layouts) > self._kept:
                self._layouts.popitem(last=False)
        return positions


def layered_layout(
    ids: list[str], edges: list[tuple[str, str]], starts: Iterable[str]
) -> dict[str, tuple[float, float]]:
    """Scene id → (x, layer): layers by distance from the start, order within them by igraph."""
    if not ids:
        return {}
    igraph = layout_engine()
    index = {scene_id: n for n, scene_id in enumerate(ids)}
    layers = _layers(ids, edges, [s for s in starts if s in index])
    graph = _graph(igraph, len(ids), [(index[a], index[b]) for a, b in edges if a != b])
    layout = graph.layout_sugiyama(layers=[layers[scene_id] for scene_id in ids], maxiter=LAYOUT_ROUNDS)
    # The first len(ids) rows are the scenes (the rest are bends igraph adds to long arrows).
    coords = layout.coords  # a new list on every access: read it once
    return {scene_id: (float(coords[n][0]), float(coords[n][1])) for n, scene_id in enumerate(ids)}


def _graph(igraph: ModuleType, nodes: int, edges: list[tuple[int, int]]) -> Any:
    """A directed igraph graph, made by igraph's core constructor alone.

    `igraph.Graph(...)` first imports numpy where it is installed (to take numpy arrays as edges,
    which the map never passes): ~30 ms or more on the first map after start-up and 11 MB for good,
    where the layout of 2,000 scenes itself takes ~5 ms. Romergo does not install numpy, but an
    environment may have it (the tests' does). Graph's own constructor adds nothing else a bare
    graph needs."""
    graph = igraph.Graph.__new__(igraph.Graph)
    igraph.GraphBase.__init__(graph, nodes, edges, True)
    return graph


def _layers(ids: list[str], edges: list[tuple[str, str]], starts: list[str]) -> dict[str, int]:
    """Breadth-first distance from the starts; what they do not reach, in layers below, group by group."""
    targets: dict[str, list[str]] = {scene_id: [] for scene_id in ids}
    for source, target in edges:
        targets[source].append(target)
    layers: dict[str, int] = {}
    base = 0
    for roots in ([*starts] or [ids[0]], *([scene_id] for scene_id in ids)):
        fresh = [root for root in roots if root not in layers]
        if not fresh:
            continue
        deepest = _breadth_first(fresh, targets, layers, base)
        base = deepest + 1
    return layers


def _breadth_first(roots: list[str], targets: dict[str, list[str]], layers: dict[str, int], base: int) -> int:
    queue = deque(roots)
    for root in roots:
        layers[root] = base
    deepest = base
    while queue:
        node = queue.popleft()
        for target in targets[node]:
            if target not in layers:
                layers[target] = layers[node] + 1
                deepest = max(deepest, layers[target])
                queue.append(target)
    return deepest


def _marks(problems: Iterable[Problem]) -> dict[str, list[str]]:
    marks: dict[str, list[str]] = {}
    for problem in problems:
        if problem.scene_id and problem.code in MARKS and problem.code not in marks.get(problem.scene_id, []):
            marks.setdefault(problem.scene_id, []).append(problem.code)
    return marks


def _known(target: str | None, known: set[str]) -> str | None:
    return target if target in known else None


@cache
def layout_engine() -> ModuleType:
    """igraph, imported on first use: only a map needs it.

    The server loads it at start-up, before anything else runs, without igraph's drawing half
    (`app.load_layout_engine`); here it is a plain import."""
    import igraph

    engine: ModuleType = igraph
    return engine
