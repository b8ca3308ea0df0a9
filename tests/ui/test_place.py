"""The tab's place and selection: the context a command to the agent carries (CONTRACT.md §1.1)."""

from __future__ import annotations

from ui.place import Place, Selection
from ui.selection import parse

LINE = "🔥 Someone broke this 👩‍👩‍👧 on purpose."


def place_on_a_scene() -> Place:
    place = Place()
    place.enter("/projects/p/scenes/s", "scene", project_id="p", scene_id="s")
    place.chapter_id = "c"
    place.show_lines({"lin_1": LINE, "lin_2": "Plain."})
    return place


def test_context_data_has_the_contract_fields():
    place = place_on_a_scene()
    place.selection = Selection("dialogue_line", "lin_1", 30, 37, "purpose")

    data = place.context_data()

    assert {k: v for k, v in data.items() if k != "captured_at"} == {
        "route": "/projects/p/scenes/s",
        "project_id": "p",
        "chapter_id": "c",
        "scene_id": "s",
        "surface": "scene",
        "selection": {
            "text": "purpose",
            "entity_type": "dialogue_line",
            "entity_id": "lin_1",
            "start": 30,
            "end": 37,
        },
    }
    assert data["captured_at"].endswith("Z")


def test_a_reported_selection_is_checked_against_the_line_in_code_points():
    place = place_on_a_scene()
    reported = {
        "entity_type": "dialogue_line",
        "entity_id": "lin_1",
        "start": 30,
        "end": 37,
        "text": "purpose",
    }
    assert parse(place, reported) == Selection("dialogue_line", "lin_1", 30, 37, "purpose")
    assert LINE[30:37] == "purpose"


def test_anything_else_clears_the_selection():
    place = place_on_a_scene()
    good = {"entity_type": "dialogue_line", "entity_id": "lin_2", "start": 0, "end": 5, "text": "Plain"}
    assert parse(place, good) is not None
    for bad in [
        None,
        "text",
        {**good, "entity_type": "scene"},
        {**good, "entity_id": "lin_elsewhere"},  # not on this page
        {**good, "start": 5, "end": 5},
        {**good, "start": -1},
        {**good, "start": True, "end": 5},
        {**good, "end": "5"},
        {**good, "text": "Plai"},  # the text does not fit the offsets
    ]:
        assert parse(place, bad) is None, bad


def test_a_new_page_or_a_changed_line_drops_the_selection():
    place = place_on_a_scene()
    place.selection = Selection("dialogue_line", "lin_2", 0, 5, "Plain")
    place.show_lines({"lin_2": "Plain, still."})
    assert place.selection is not None
    place.show_lines({"lin_2": "Changed."})
    assert place.selection is None

    place.selection = Selection("dialogue_line", "lin_1", 0, 1, "🔥")
    place.enter("/projects/p/check", "check", project_id="p")
    assert place.selection is None
    assert place.context_data()["scene_id"] is None
