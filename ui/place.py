"""Where the author is in one browser tab, and what text they selected there.

Each tab has one `Place`, held by its PageContext as `ctx.place`. Every sub page sets it with
`enter(...)` when it is built; the selection tracker (ui/selection.py) keeps `selection` current.
The agent panel reads `ctx.place.context_data()` when the author sends a command: that dict is
CONTRACT.md §1.1's command context.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

from romergo.common import urls
from romergo.common.clock import iso, utcnow

Surface = Literal[
    "project",
    "chapter",
    "scene",
    "characters",
    "variables",
    "assets",
    "check",
    "search",
    "map",
    "play",
    "history",
    "settings",
]


@dataclass(frozen=True)
class Selection:
    """Text selected inside one entity; offsets count Unicode code points, `end` exclusive."""

    entity_type: str
    entity_id: str
    start: int
    end: int
    text: str

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class Place:
    route: str = urls.PROJECTS
    surface: Surface | None = None
    project_id: str | None = None
    chapter_id: str | None = None
    scene_id: str | None = None
    selection: Selection | None = None
    selectable: dict[str, str] = field(default_factory=dict)
    """Dialogue lines on screen (id → text) that a selection may point into; set by the scene page."""
    listeners: list[Callable[[], None]] = field(default_factory=list, repr=False, compare=False)
    """Called after every `enter`: the agent panel follows the author from project to project."""
    card_listeners: list[Callable[[str], None]] = field(default_factory=list, repr=False, compare=False)
    """Called by `show_card`: the panel brings the command's card into view, the shell opens it."""

    def enter(
        self,
        route: str,
        surface: Surface | None,
        *,
        project_id: str | None = None,
        chapter_id: str | None = None,
        scene_id: str | None = None,
    ) -> None:
        """A new page: a selection made on the previous one no longer applies."""
        self.route = route
        self.surface = surface
        self.project_id = project_id
        self.chapter_id = chapter_id
        self.scene_id = scene_id
        self.selection = None
        self.selectable = {}
        for listener in list(self.listeners):
            listener()

    def show_card(self, command_id: str) -> None:
        """Bring an agent command's card up in this tab's panel (from the history page)."""
        for listener in list(self.card_listeners):
            listener(command_id)

    def show_lines(self, texts: dict[str, str]) -> None:
        """The lines now on screen; a selection whose text changed or vanished is dropped."""
        self.selectable = dict(texts)
        chosen = self.selection
        if chosen is not None:
            source = texts.get(chosen.entity_id)
            if source is None or source[chosen.start : chosen.end] != chosen.text:
                self.selection = None

    def context_data(self) -> dict[str, Any]:
        return {
            "route": self.route,
            "project_id": self.project_id,
            "chapter_id": self.chapter_id,
            "scene_id": self.scene_id,
            "surface": self.surface,
            "captured_at": iso(utcnow()),
            "selection": self.selection.as_dict() if self.selection else None,
        }
