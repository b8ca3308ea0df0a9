"""The demo story as seen from rooms limited to some of its chapters: each chapter's scenes, lines
and choices, the words only the other chapters say, commands sent from a page of a chapter, and
a loop through several chapters for the story check to find.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from tests.support.agents import Agent, OwnerApi, data
from tests.support.fuzzing import IdPools


@dataclass
class Chapter:
    id: str
    title: str
    scenes: list[dict[str, Any]] = field(default_factory=list)
    """Each scene's id, title, lines and choices, as `romergo_get_scene` gives them."""


async def loop_across_chapters(reader: Agent, project_id: str) -> None:
    """A loop with no way out through three new scenes of the first two chapters, so that the
    story check has a problem whose scenes lie in more than one chapter: the first chapter's bell
    tower leads to the second's crypt, the crypt to an attic, the attic back to the tower."""
    outline = (await reader.call("romergo_get_project_outline", project_id=project_id))["untrusted_content"]
    first, second = (chapter["id"] for chapter in outline["data"]["chapters"][:2])

    async def made(chapter_id: str, title: str) -> str:
        return str(data(await reader.call("romergo_add_scene", chapter_id=chapter_id, title=title))["id"])

    tower = await made(first, "The Bell Tower")
    crypt, attic = await made(second, "The Flooded Crypt"), await made(second, "The Dusty Attic")
    for scene_id, label, target in (
        (tower, "Climb down to the crypt", crypt),
        (crypt, "Climb the ladder", attic),
        (attic, "Climb the tower stairs", tower),
    ):
        choices = [{"label": label, "target_scene_id": target}]
        await reader.call("romergo_set_choices", scene_id=scene_id, choices=choices)


async def command_from(
    owner: OwnerApi, channel_id: str, text: str, project_id: str, chapter: Chapter, line: dict[str, Any]
) -> str:
    """A command sent from a page of `chapter` with one of its lines selected."""
    scene = next(scene for scene in chapter.scenes if line in scene["lines"])
    context = {
        "route": f"/projects/{project_id}/scenes/{scene['id']}",
        "project_id": project_id,
        "chapter_id": chapter.id,
        "scene_id": scene["id"],
        "surface": "scene",
        "selection": {
            "text": line["text"],
            "entity_type": "dialogue_line",
            "entity_id": line["id"],
            "start": 0,
            "end": len(line["text"]),
        },
    }
    posted = await owner("POST", f"/channels/{channel_id}/commands", {"text": text, "context": context})
    return str(posted["command_id"])


async def chapters_of(reader: Agent, project_id: str) -> list[Chapter]:
    outline = (await reader.call("romergo_get_project_outline", project_id=project_id))["untrusted_content"][
        "data"
    ]
    chapters = []
    for chapter in outline["chapters"]:
        scenes = []
        for scene in chapter["scenes"]:
            seen = (await reader.call("romergo_get_scene", scene_id=scene["id"]))["untrusted_content"]["data"]
            scenes.append({"id": scene["id"], "title": scene["title"], **seen})
        chapters.append(Chapter(chapter["id"], chapter["title"], scenes))
    return chapters


def said_only_outside(chapters: list[Chapter], inside: Chapter) -> list[str]:
    """Titles, lines and choice labels of the chapters other than `inside` that `inside` does not
    also say."""

    def said(chapter: Chapter) -> list[str]:
        words = [chapter.title]
        for scene in chapter.scenes:
            words += [scene["title"], *(line["text"] for line in scene["lines"])]
            words += [choice["label"] for choice in scene["choices"]]
        return words

    inside_words = " | ".join(said(inside))
    outside = [chapter for chapter in chapters if chapter is not inside]
    return sorted(
        {
            words
            for chapter in outside
            for words in said(chapter)
            if len(words) > 5 and words not in inside_words
        }
    )


def id_pools(
    project_id: str, chapters: list[Chapter], channel_id: str, code: str, commands: list[str]
) -> IdPools:
    scenes = [scene for chapter in chapters for scene in chapter.scenes]
    return IdPools(
        {
            "project": [project_id],
            "chapter": [chapter.id for chapter in chapters],
            "scene": [scene["id"] for scene in scenes],
            "line": [line["id"] for scene in scenes for line in scene["lines"]],
            "character": sorted(
                {line["character_id"] for scene in scenes for line in scene["lines"] if line["character_id"]}
            ),
            "command": commands,
            "channel": [channel_id],
            "code": [code],
        }
    )
