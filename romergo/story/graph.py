"""The scene graph's algorithms: what can be reached from where, and the loops. Pure, iterative
(a long chain of scenes cannot exhaust Python's recursion limit); the story check and the story
map share them."""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator


def reach(edges: dict[str, list[str]], roots: list[str]) -> set[str]:
    seen = set(roots)
    queue = deque(roots)
    while queue:
        for target in edges.get(queue.popleft(), ()):
            if target not in seen:
                seen.add(target)
                queue.append(target)
    return seen


def reverse(edges: dict[str, list[str]]) -> dict[str, list[str]]:
    reverse: dict[str, list[str]] = {node: [] for node in edges}
    for source, targets in edges.items():
        for target in targets:
            reverse.setdefault(target, []).append(source)
    return reverse


def cycles(edges: dict[str, list[str]]) -> list[set[str]]:
    """Strongly connected components that contain a cycle (Tarjan, iterative)."""
    search = _Tarjan(edges)
    for root in edges:
        if root not in search.index:
            search.run(root)
    return search.found


class _Tarjan:
    """Iterative, so a long chain of scenes cannot exhaust Python's recursion limit."""

    def __init__(self, edges: dict[str, list[str]]) -> None:
        self.edges = edges
        self.index: dict[str, int] = {}
        self.low: dict[str, int] = {}
        self.on_stack: set[str] = set()
        self.stack: list[str] = []
        self.found: list[set[str]] = []

    def run(self, root: str) -> None:
        work = [self._enter(root)]
        while work:
            node, targets = work[-1]
            unvisited = self._next_unvisited(node, targets)
            if unvisited is not None:
                work.append(self._enter(unvisited))
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                self.low[parent] = min(self.low[parent], self.low[node])
            if self.low[node] == self.index[node]:
                self._close(node)

    def _enter(self, node: str) -> tuple[str, Iterator[str]]:
        self.index[node] = self.low[node] = len(self.index)
        self.stack.append(node)
        self.on_stack.add(node)
        return node, iter(self.edges[node])

    def _next_unvisited(self, node: str, targets: Iterator[str]) -> str | None:
        for target in targets:
            if target not in self.index:
                return target
            if target in self.on_stack:
                self.low[node] = min(self.low[node], self.index[target])
        return None

    def _close(self, node: str) -> None:
        component: set[str] = set()
        while True:
            member = self.stack.pop()
            self.on_stack.discard(member)
            component.add(member)
            if member == node:
                break
        if len(component) > 1 or node in self.edges[node]:
            self.found.append(component)
