"""A PageContext of fakes and a click as the browser reports it: enough to drive page parts in a tab."""

from __future__ import annotations

from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any, cast

from nicegui import Client, events, ui

from romergo.common.bus import EventBus
from ui.context import PageContext
from ui.edits import EditHistory
from ui.place import Place

USER_ID = "usr_author"
"""The signed-in author of a fake tab."""


@dataclass
class Fakes:
    bus: EventBus = field(default_factory=EventBus)
    signed_in: bool = True
    stories: Any = None
    history: Any = None

    def ctx(self) -> PageContext:
        async def still_signed_in() -> bool:
            return self.signed_in

        story_parts = (
            "projects",
            "publishing",
            "chapters",
            "scenes",
            "lines",
            "characters",
            "assets",
            "reads",
        )
        services = SimpleNamespace(
            bus=self.bus, history=self.history, **dict.fromkeys(story_parts, self.stories)
        )
        fake = SimpleNamespace(
            services=services,
            user=SimpleNamespace(id=USER_ID),
            actor=None,
            place=Place(),
            edits=EditHistory(),
            still_signed_in=still_signed_in,
        )
        return cast(PageContext, fake)


def click(tab: Client, label: str) -> None:
    """Click the button showing `label` (or named so: an icon button), as the browser would report it."""
    button = next(
        e
        for e in tab.elements.values()
        if isinstance(e, ui.button) and label in (e.text, e.props.get("aria-label")) and not e.is_deleted
    )
    for listener in list(button._event_listeners.values()):  # a click may delete its button
        if listener.type == "click":
            events.handle_event(
                listener.handler, events.GenericEventArguments(sender=button, client=tab, args=None)
            )
