"""Every update tool that takes `expected_revision`, as one case each: an entity just made and
read, the caller's write to one of its fields, another agent's write to that field and to another
one, and how to read both fields back (tests/mcp_tools/test_expected_revision.py)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from tests.support.agents import Agent, data


@dataclass(frozen=True)
class Place:
    """Where a case makes its entity: the demo project, a fresh chapter and speaker, and media."""

    project_id: str
    chapter_id: str
    character_id: str
    backgrounds: tuple[str, str]
    tunes: tuple[str, str]


@dataclass(frozen=True)
class Write:
    tool: str
    args: dict[str, Any]


@dataclass(frozen=True)
class Case:
    """One entity, just made and read at `revision`, and three writes to it: the caller's, the
    other agent's of the same field, and the other agent's of another field."""

    entity: tuple[str, str]
    revision: int
    mine: Write
    same_field: Write
    other_field: Write
    read: Callable[[Agent], Awaitable[tuple[Any, Any]]]
    """The field the caller changes and the other field, as stored now."""
    values: tuple[Any, Any, Any, Any]
    """The caller's value, the other agent's value of that field, the other field before and after."""
    shown: str
    """How the conflict's text names the field both changed and the other agent's value of it."""


async def ok(who: Agent, tool: str, **arguments: Any) -> Any:
    return data(await who.call(tool, **arguments))


async def place_of(who: Agent) -> Place:
    [project] = data(await who.call("romergo_list_projects"))["projects"]
    chapter = await ok(who, "romergo_add_chapter", project_id=project["id"], title="Harbour wall")
    sailor = f"Sailor {chapter['id'][-6:]}"
    speaker = await ok(who, "romergo_add_character", project_id=project["id"], name=sailor)
    assets = (await ok(who, "romergo_search_assets", project_id=project["id"]))["assets"]
    backgrounds = [a["id"] for a in assets if a["kind"] == "background"]
    tunes = [a["id"] for a in assets if a["kind"] == "music"]
    return Place(
        project["id"],
        chapter["id"],
        speaker["id"],
        (backgrounds[0], backgrounds[1]),
        (tunes[0], tunes[1]),
    )


async def every(who: Agent, tool: str, key: str, project_id: str) -> list[dict[str, Any]]:
    """The items of a paged list, all its pages read."""
    items: list[dict[str, Any]] = []
    page = None
    while True:
        content = (await who.call(tool, project_id=project_id, page=page))["untrusted_content"]
        items += content["data"][key]
        page = content["next_page"]
        if page is None:
            return items


async def scene_of(who: Agent, scene_id: str) -> dict[str, Any]:
    return await ok(who, "romergo_get_scene", scene_id=scene_id)


async def dialogue_line(who: Agent, place: Place) -> Case:
    scene = await ok(who, "romergo_add_scene", chapter_id=place.chapter_id, title="Quay")
    line = await ok(who, "romergo_add_dialogue_line", scene_id=scene["id"], text="Who is there?")

    async def read(reader: Agent) -> tuple[Any, Any]:
        [now] = (await scene_of(reader, scene["id"]))["lines"]
        return now["text"], now["character_id"]

    tool = "romergo_update_dialogue_line"
    return Case(
        ("dialogue_line", line["id"]),
        line["revision"],
        Write(tool, {"line_id": line["id"], "text": "Who goes there?"}),
        Write(tool, {"line_id": line["id"], "text": "Who hides there?"}),
        Write(tool, {"line_id": line["id"], "character_id": place.character_id}),
        read,
        ("Who goes there?", "Who hides there?", None, place.character_id),
        'text is now "Who hides there?"',
    )


async def scene_header(who: Agent, place: Place) -> Case:
    scene = await ok(who, "romergo_add_scene", chapter_id=place.chapter_id, title="Quay")

    async def read(reader: Agent) -> tuple[Any, Any]:
        now = (await scene_of(reader, scene["id"]))["scene"]
        return now["title"], now["is_ending"]

    tool = "romergo_update_scene"
    return Case(
        ("scene", scene["id"]),
        scene["revision"],
        Write(tool, {"scene_id": scene["id"], "title": "Quay at dawn"}),
        Write(tool, {"scene_id": scene["id"], "title": "Quay at dusk"}),
        Write(tool, {"scene_id": scene["id"], "is_ending": True}),
        read,
        ("Quay at dawn", "Quay at dusk", False, True),
        'title is now "Quay at dusk"',
    )


async def scene_choices(who: Agent, place: Place) -> Case:
    scene = await ok(who, "romergo_add_scene", chapter_id=place.chapter_id, title="Quay")
    ship = await ok(who, "romergo_add_scene", chapter_id=place.chapter_id, title="Ship")
    listed = await ok(
        who,
        "romergo_set_choices",
        scene_id=scene["id"],
        choices=[{"label": "Wait", "target_scene_id": ship["id"]}],
    )

    [choice] = listed["choices"]

    def labelled(label: str) -> list[dict[str, Any]]:
        return [{"id": choice["id"], "label": label, "target_scene_id": ship["id"]}]

    async def read(reader: Agent) -> tuple[Any, Any]:
        now = await scene_of(reader, scene["id"])
        return [c["label"] for c in now["choices"]], now["scene"]["title"]

    tool = "romergo_set_choices"
    return Case(
        ("scene", scene["id"]),
        listed["revision"],
        Write(tool, {"scene_id": scene["id"], "choices": labelled("Board the ship")}),
        Write(tool, {"scene_id": scene["id"], "choices": labelled("Stay ashore")}),
        Write("romergo_update_scene", {"scene_id": scene["id"], "title": "Quay at dusk"}),
        read,
        (["Board the ship"], ["Stay ashore"], "Quay", "Quay at dusk"),
        f'choices[{choice["id"]}].label is now "Stay ashore"',
    )


def scene_media(slot: str) -> Callable[[Agent, Place], Awaitable[Case]]:
    async def make(who: Agent, place: Place) -> Case:
        scene = await ok(who, "romergo_add_scene", chapter_id=place.chapter_id, title="Quay")
        first, second = place.backgrounds if slot == "background" else place.tunes

        async def read(reader: Agent) -> tuple[Any, Any]:
            now = await scene_of(reader, scene["id"])
            return now[slot]["asset_id"], now["scene"]["title"]

        tool = f"romergo_set_scene_{slot}"
        return Case(
            ("scene", scene["id"]),
            scene["revision"],
            Write(tool, {"scene_id": scene["id"], "asset_id": first}),
            Write(tool, {"scene_id": scene["id"], "asset_id": second}),
            Write("romergo_update_scene", {"scene_id": scene["id"], "title": "Quay at dusk"}),
            read,
            (first, second, "Quay", "Quay at dusk"),
            f'{slot}_asset_id is now "{second}"',
        )

    return make


async def chapter_title(who: Agent, place: Place) -> Case:
    chapter = await ok(who, "romergo_add_chapter", project_id=place.project_id, title="Tides")

    async def read(reader: Agent) -> tuple[Any, Any]:
        now = await ok(reader, "romergo_get_chapter", chapter_id=chapter["id"])
        return now["title"], now["music_asset_id"]

    tool = "romergo_update_chapter"
    return Case(
        ("chapter", chapter["id"]),
        chapter["revision"],
        Write(tool, {"chapter_id": chapter["id"], "title": "High tide"}),
        Write(tool, {"chapter_id": chapter["id"], "title": "Low tide"}),
        Write("romergo_set_chapter_music", {"chapter_id": chapter["id"], "asset_id": place.tunes[0]}),
        read,
        ("High tide", "Low tide", None, place.tunes[0]),
        'title is now "Low tide"',
    )


async def chapter_music(who: Agent, place: Place) -> Case:
    chapter = await ok(who, "romergo_add_chapter", project_id=place.project_id, title="Tides")
    first, second = place.tunes

    async def read(reader: Agent) -> tuple[Any, Any]:
        now = await ok(reader, "romergo_get_chapter", chapter_id=chapter["id"])
        return now["music_asset_id"], now["title"]

    tool = "romergo_set_chapter_music"
    return Case(
        ("chapter", chapter["id"]),
        chapter["revision"],
        Write(tool, {"chapter_id": chapter["id"], "asset_id": first}),
        Write(tool, {"chapter_id": chapter["id"], "asset_id": second}),
        Write("romergo_update_chapter", {"chapter_id": chapter["id"], "title": "Low tide"}),
        read,
        (first, second, "Tides", "Low tide"),
        f'music_asset_id is now "{second}"',
    )


async def character(who: Agent, place: Place) -> Case:
    suffix = place.chapter_id[-6:]  # names are unique in a project
    made = await ok(
        who, "romergo_add_character", project_id=place.project_id, name=f"Keeper {suffix}", color="#445566"
    )

    async def read(reader: Agent) -> tuple[Any, Any]:
        characters = await every(reader, "romergo_get_project_outline", "characters", place.project_id)
        [now] = [c for c in characters if c["id"] == made["id"]]
        return now["name"], now["color"]

    tool = "romergo_update_character"
    return Case(
        ("character", made["id"]),
        made["revision"],
        Write(tool, {"character_id": made["id"], "name": f"Harbourmaster {suffix}"}),
        Write(tool, {"character_id": made["id"], "name": f"Lighthouse keeper {suffix}"}),
        Write(tool, {"character_id": made["id"], "color": "#123456"}),
        read,
        (f"Harbourmaster {suffix}", f"Lighthouse keeper {suffix}", "#445566", "#123456"),
        f'name is now "Lighthouse keeper {suffix}"',
    )


async def variable(who: Agent, place: Place) -> Case:
    made = await ok(
        who,
        "romergo_add_variable",
        project_id=place.project_id,
        name=f"tide_{place.chapter_id[-6:]}",
        type="number",
        initial=0,
        description="Water level",
    )

    async def read(reader: Agent) -> tuple[Any, Any]:
        variables = await every(reader, "romergo_list_variables", "variables", place.project_id)
        [now] = [v for v in variables if v["id"] == made["id"]]
        return now["description"], now["initial"]

    tool = "romergo_update_variable"
    return Case(
        ("variable", made["id"]),
        made["revision"],
        Write(tool, {"variable_id": made["id"], "description": "How high the water is"}),
        Write(tool, {"variable_id": made["id"], "description": "Feet of water at the quay"}),
        Write(tool, {"variable_id": made["id"], "initial": 3}),
        read,
        ("How high the water is", "Feet of water at the quay", 0, 3),
        'description is now "Feet of water at the quay"',
    )


CASES = {
    "romergo_update_dialogue_line": dialogue_line,
    "romergo_update_scene": scene_header,
    "romergo_set_choices": scene_choices,
    "romergo_set_scene_background": scene_media("background"),
    "romergo_set_scene_music": scene_media("music"),
    "romergo_update_chapter": chapter_title,
    "romergo_set_chapter_music": chapter_music,
    "romergo_update_character": character,
    "romergo_update_variable": variable,
}
