"""The story map's chart reaches the browser without an update method.

A page's sections are made after the browser connects, so the chart arrives in an update message.
NiceGUI's client calls an element's update method after mounting such an element, while the
chart's own `mounted()` applies its options anyway: with the method, a long story's map was laid
out and painted twice. The map never changes a chart's options in place (a new map is a new chart),
so it needs no update method; what the browser receives is what `_to_dict()` serializes.
"""

from __future__ import annotations

from nicegui import Client, ui

from ui.pages.story_map import MapChart

OPTIONS = {"series": [{"type": "graph", "data": [{"id": "a", "x": 0, "y": 0}], "links": []}]}


def test_the_map_chart_is_sent_without_an_update_method(client: Client):
    with client:
        chart = MapChart(OPTIONS, on_point_click=lambda _: None)
        plain = ui.echart(OPTIONS)
    sent = chart._to_dict()
    assert "update_method" not in sent  # (NiceGUI leaves out what is empty)
    assert sent["props"]["options"] == OPTIONS
    # The check above would pass vacuously if NiceGUI stopped sending update methods at all.
    assert plain._to_dict()["update_method"] == "update_chart"
