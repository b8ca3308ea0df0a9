"""The frame every project page is built in: load, not-found, the project bar, then live updates.

A page says what it loads, how it draws itself the first time and how it shows a newer load; the
frame does the rest the same way on every page. A load that fails (an unknown id, another author's
project, something deleted meanwhile) shows the not-found page; the tab's title follows the story;
every change to the project is re-read and shown again, and `Section` (ui/live.py) keeps each
redraw to the parts whose content changed.
"""

from __future__ import annotations

import asyncio
from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import ClassVar, Generic, Literal, Protocol, TypeVar

from nicegui import ui

from romergo.common.bus import project_topic
from romergo.common.errors import RomergoError
from romergo.story.records import ProjectRecord
from ui.components.not_found import not_found
from ui.components.project_nav import NavEntry, project_nav
from ui.context import PageContext
from ui.live import Section, watch

Shown = Literal["nothing", "not found", "page"]
Item = TypeVar("Item")


class OfProject(Protocol):
    """What a project page loads: it knows the project it belongs to (for the project bar)."""

    @property
    def project(self) -> ProjectRecord: ...


T = TypeVar("T", bound=OfProject)


@dataclass(frozen=True)
class Listing(Generic[Item]):
    """A project and one list read with it (its assets, its problems, its latest changes)."""

    project: ProjectRecord
    items: list[Item]


class ProjectPage(ABC, Generic[T]):
    """One open project page in one tab; subclasses draw, the frame loads and follows changes."""

    what: ClassVar[str] = "project"
    """What the not-found page says does not exist."""
    nav: ClassVar[NavEntry | None] = "story"
    """The entry of the project bar this page belongs to."""
    heading: ClassVar[str | None] = None
    """Put before the story's title in the tab's title ("Check · My story · Romergo")."""

    def __init__(self, ctx: PageContext, project_id: str) -> None:
        self.ctx = ctx
        self.project_id = project_id
        self.services = ctx.services
        self.host = ui.column().classes("w-full gap-3")
        """Lives as long as the page: dialogs are made here, out of reach of any redraw."""
        self.current: T | None = None
        self._shown: Shown = "nothing"
        self._bar: Section[ProjectRecord] | None = None
        self._reloading = asyncio.Lock()

    async def open(self) -> None:
        """Draw the page, then keep it current while it is open (a page never found is not watched).

        The watch starts before the first read: a change committed while that read runs (the
        author toggled a switch and went straight to another page) still redraws this one."""
        watcher = watch(self.ctx, project_topic(self.project_id), self.reload)
        await self.reload()
        if self.current is None:
            watcher.delete()

    async def reload(self) -> None:
        """Read the page afresh and show it. Reloads take turns: each reads after the one before
        has drawn, so the last one asked for is the one left on screen. (Side by side, an older
        read that finished last drew over a newer one: a search page left showing the results of
        a search typed over.)"""
        async with self._reloading:
            await self._reload()

    async def _reload(self) -> None:
        try:
            loaded = await self.load()
        except RomergoError:
            loaded = None
        self.current = loaded
        if loaded is None:
            self._not_found()
            return
        ui.page_title(f"{self.title(loaded)} · Romergo")
        project = loaded.project
        if self._shown == "page" and self._bar is not None:
            self._bar.show(project)
            self.show(loaded)
            return
        # First draw, or the page came back (an undone deletion): every part is made anew.
        self.host.clear()
        with self.host:
            self._bar = Section(self._draw_bar, key=lambda shown: shown.title)
            self._bar.show(project)
            self.build(loaded)
        self._shown = "page"

    # ---- what each page says -------------------------------------------------------------------

    @abstractmethod
    async def load(self) -> T | None:
        """What the page shows, read fresh; None (or a RomergoError) when there is nothing to show."""

    def title(self, loaded: T) -> str:
        """The tab's title, before " · Romergo"."""
        story = loaded.project.title
        return f"{self.heading} · {story}" if self.heading else story

    @abstractmethod
    def build(self, loaded: T) -> None:
        """Draw the page below the project bar, the first time."""

    @abstractmethod
    def show(self, loaded: T) -> None:
        """Show a newer load of a page already drawn."""

    # ---- the frame's own parts -----------------------------------------------------------------

    def _draw_bar(self, project: ProjectRecord) -> None:
        project_nav(project, self.nav)

    def _not_found(self) -> None:
        if self._shown == "not found":
            return  # already says so: redrawing it on every change elsewhere would only flicker
        self._shown = "not found"
        self._bar = None
        self.host.clear()
        with self.host:
            not_found(self.what)


class SectionPage(ProjectPage[T]):
    """A project page whose part below the bar is one section, redrawn only when `key` changes."""

    _body: Section[T] | None = None

    def build(self, loaded: T) -> None:
        self._body = Section(self.draw, key=self.key)
        self._body.show(loaded)

    def show(self, loaded: T) -> None:
        if self._body is not None:
            self._body.show(loaded)

    @abstractmethod
    def draw(self, loaded: T) -> None:
        """Draw the section (again) for `loaded`."""

    def key(self, loaded: T) -> object:
        """What the section shows: a load with an equal key leaves it (and its focus) be."""
        return loaded


class ListingPage(SectionPage[Listing[Item]]):
    """A page about one list of the project's (its assets, its problems, its latest changes)."""

    async def load(self) -> Listing[Item]:
        return Listing(
            await self.services.projects.get_project(self.ctx.actor, self.project_id), await self.items()
        )

    @abstractmethod
    async def items(self) -> list[Item]:
        """The list, read fresh."""
