"""A live part of a page listens to its bus topic exactly as long as it is on the page."""

from __future__ import annotations

from nicegui import Client, ui

from romergo.common.bus import EventBus
from tests.support.waiting import until
from ui.live import live

TOPIC = "project:prj_1"


async def test_a_live_part_refreshes_on_its_topic_and_stops_when_deleted(client: Client) -> None:
    bus = EventBus()
    seen: list[object] = []
    with client:
        watcher = live(bus, TOPIC, seen.append)

        bus.publish(TOPIC, "first")
        await until(lambda: seen == ["first"], what="the refresh")
        watcher.delete()

    assert bus.listener_count(TOPIC) == 0


async def test_a_closed_page_stops_listening() -> None:
    bus, page = EventBus(), Client(ui.page("/story"), request=None)
    with page:
        live(bus, TOPIC, lambda _: None)
        live(bus, "presence:chn_1", lambda _: None)
    assert bus.listener_count(TOPIC) == 1

    page.delete()

    assert (bus.listener_count(TOPIC), bus.listener_count("presence:chn_1")) == (0, 0)


async def test_a_part_removed_with_its_parent_stops_at_the_next_event_without_refreshing(
    client: Client,
) -> None:
    bus = EventBus()
    seen: list[object] = []
    with client:
        with ui.column() as body:
            live(bus, TOPIC, seen.append)
        body.clear()  # a redraw: NiceGUI removes the children without deleting them one by one

        bus.publish(TOPIC, "after the redraw")

    assert bus.listener_count(TOPIC) == 0
    assert seen == []
