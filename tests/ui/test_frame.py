"""The frame of every project page: first draw, not-found, redraws only for a changed key, live updates."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, replace
from types import SimpleNamespace
from typing import Any

from nicegui import Client, ui

from romergo.common.bus import EventBus, project_topic
from romergo.common.errors import RomergoError
from romergo.story.projects import new_project
from romergo.story.records import ProjectRecord
from tests.support.waiting import until
from tests.ui.tabs import Fakes
from ui.context import PageContext
from ui.frame import Listing, ListingPage, SectionPage

GONE = RomergoError("not_found", "gone")


@dataclass
class Story:
    project: ProjectRecord
    lines: tuple[str, ...] = ()


@dataclass
class Loads:
    """What the page reads, in turn: a value, None, or an error to raise."""

    results: list[Any]
    calls: int = 0

    async def next(self) -> Any:
        self.calls += 1
        result = self.results.pop(0) if len(self.results) > 1 else self.results[0]
        if isinstance(result, Exception):
            raise result
        return result


class StoryPage(SectionPage[Story]):
    def __init__(self, ctx: PageContext, loads: Loads) -> None:
        super().__init__(ctx, "prj_1")
        self.loads = loads
        self.drawn: list[tuple[str, ...]] = []

    async def load(self) -> Story | None:
        result: Story | None = await self.loads.next()
        return result

    def draw(self, loaded: Story) -> None:
        self.drawn.append(loaded.lines)
        ui.label(" / ".join(loaded.lines))

    def key(self, loaded: Story) -> object:
        return loaded.lines


class WordsPage(ListingPage[str]):
    heading = "Words"

    async def items(self) -> list[str]:
        return ["a", "b"]

    def draw(self, loaded: Listing[str]) -> None:
        ui.label(",".join(loaded.items))


def project(title: str = "My story") -> ProjectRecord:
    return replace(new_project("usr_1", title), id="prj_1")


def texts(tab: Client) -> list[str]:
    return [e.text for e in tab.elements.values() if isinstance(e, ui.label) and not e.is_deleted]


def listeners(bus: EventBus) -> int:
    return len(bus._listeners.get(project_topic("prj_1"), []))


async def test_draws_the_project_bar_and_the_page_and_then_follows_the_project(client: Client) -> None:
    with client:
        fakes = Fakes()
        page = StoryPage(fakes.ctx(), Loads([Story(project(), ("one",))]))

        await page.open()

        assert page.drawn == [("one",)]
        assert any(e.props.get("data-testid") == "project-name" for e in client.elements.values())
        assert listeners(fakes.bus) == 1


async def test_a_change_committed_during_the_first_read_still_redraws_the_page(client: Client) -> None:
    """The author toggles a switch and goes straight to another page: that change may land while
    the new page reads. The page watches before it reads, so it redraws with the change."""
    with client:
        fakes = Fakes()
        loads = Loads([Story(project(), ("before",)), Story(project(), ("after",))])
        first_read = loads.next

        async def read_while_a_change_lands() -> Story:
            result: Story = await first_read()
            fakes.bus.publish(project_topic("prj_1"))
            return result

        loads.next = read_while_a_change_lands  # type: ignore[method-assign]
        page = StoryPage(fakes.ctx(), loads)
        await page.open()
        loads.next = first_read  # type: ignore[method-assign]

        await until(lambda: page.drawn == [("before",), ("after",)], what="the redraw after the change")


async def test_redraws_only_when_the_key_changed(client: Client) -> None:
    with client:
        first = Story(project(), ("one",))
        loads = Loads([first, Story(project("Renamed"), ("one",)), Story(project(), ("one", "two"))])
        page = StoryPage(Fakes().ctx(), loads)
        await page.open()

        await page.reload()  # same lines, another title: the section keeps its elements
        await page.reload()

        await until(lambda: page.drawn == [("one",), ("one", "two")], what="the refresh task's redraw")
        assert page.drawn == [("one",), ("one", "two")]


async def test_a_slow_read_asked_for_first_never_draws_over_a_newer_one(client: Client) -> None:
    """A search typed over while the last one still reads: the page ends on what was asked last."""
    with client:
        loads = Loads([Story(project(), ("first",))])
        page = StoryPage(Fakes().ctx(), loads)
        await page.open()
        slow_read_started, let_it_finish = asyncio.Event(), asyncio.Event()

        async def slow_then_quick() -> Story:
            if loads.calls == 1:
                loads.calls += 1
                slow_read_started.set()
                await let_it_finish.wait()
                return Story(project(), ("older",))
            loads.calls += 1
            return Story(project(), ("newer",))

        async def reload_in_the_tab() -> None:
            with client:  # as a click's handler runs: in the tab, in a task of its own
                await page.reload()

        loads.next = slow_then_quick  # type: ignore[method-assign]
        older = asyncio.create_task(reload_in_the_tab())
        await slow_read_started.wait()
        newer = asyncio.create_task(reload_in_the_tab())
        await asyncio.sleep(0.01)  # the newer reload has its turn to run, were it not waiting
        let_it_finish.set()
        await asyncio.gather(older, newer)

        await until(lambda: page.drawn[-1] == ("newer",), what="the newer read drawn last")
        assert page.drawn[-1] == ("newer",)
        assert page.current is not None and page.current.lines == ("newer",)


async def test_an_unknown_project_is_not_found_and_not_watched(client: Client) -> None:
    with client:
        fakes = Fakes()
        page = StoryPage(fakes.ctx(), Loads([GONE]))

        await page.open()

        assert "This project does not exist" in texts(client)
        assert page.drawn == []
        assert listeners(fakes.bus) == 0


async def test_a_page_whose_project_goes_says_so_once_and_comes_back_when_it_returns(client: Client) -> None:
    with client:
        story = Story(project(), ("one",))
        page = StoryPage(Fakes().ctx(), Loads([story, None, GONE, story]))
        await page.open()

        await page.reload()
        shown = [e for e in client.elements.values() if e.props.get("data-testid") == "not-found"]
        await page.reload()
        again = [e for e in client.elements.values() if e.props.get("data-testid") == "not-found"]
        assert len(shown) == 1 and again == shown  # not redrawn on every change elsewhere

        await page.reload()  # e.g. an undone deletion: the page is drawn anew
        assert page.drawn == [("one",), ("one",)]
        assert shown[0].is_deleted


async def test_a_change_on_the_bus_reloads_the_page(client: Client) -> None:
    with client:
        fakes = Fakes()
        loads = Loads([Story(project(), ("one",)), Story(project(), ("one", "two"))])
        page = StoryPage(fakes.ctx(), loads)
        await page.open()

        fakes.bus.publish(project_topic("prj_1"), {"type": "changed"})

        await until(lambda: page.drawn[-1] == ("one", "two"), what="the reload after the change")
        assert loads.calls == 2
        assert page.drawn[-1] == ("one", "two")


async def test_a_listing_page_reads_the_project_with_its_list(client: Client) -> None:
    with client:

        async def get_project(actor: object, project_id: str) -> ProjectRecord:
            return project()

        fakes = Fakes(stories=SimpleNamespace(get_project=get_project))
        page = WordsPage(fakes.ctx(), "prj_1")

        await page.open()

        assert page.current.items == ["a", "b"]
        assert page.title(page.current) == "Words · My story"
        assert "a,b" in texts(client)
