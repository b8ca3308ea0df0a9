"""A story of the size long visual novels reach: 2,000 scenes, 50,000 dialogue lines.

Written straight into the tables in a few bulk statements (through the services it would take
minutes per test): the same rows the story services write, with a start scene, two choices per
scene leading on, an ending every fifty scenes, and a few problems for the check to find.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import insert

from romergo.common.actors import Actor
from romergo.common.clock import utcnow
from romergo.services import Services
from storage.tables import Chapter, Character, Choice, DialogueLine, Project, ProjectMember, Scene


@dataclass(frozen=True)
class BigStory:
    project_id: str
    scene_ids: list[str]
    chapter_ids: list[str]


async def big_story(
    services: Services, owner: Actor, scenes: int = 2000, lines_per_scene: int = 25, chapters: int = 40
) -> BigStory:
    now = utcnow()
    tag = f"big{scenes}"
    project_id = f"prj_{tag}"
    stamp = {"created_at": now, "updated_at": now}
    chapter_rows = [
        {
            "id": f"chp_{tag}_{c}",
            "project_id": project_id,
            "title": f"Chapter {c + 1}",
            "position": c,
            **stamp,
        }
        for c in range(chapters)
    ]
    per_chapter = max(1, scenes // chapters)
    scene_rows = [
        {
            "id": f"scn_{tag}_{s}",
            "project_id": project_id,
            "chapter_id": f"chp_{tag}_{min(s // per_chapter, chapters - 1)}",
            "title": f"Scene {s + 1}",
            "position": s % per_chapter,
            "is_start": s == 0,
            "is_ending": s % 50 == 49,
            **stamp,
        }
        for s in range(scenes)
    ]
    characters = [
        {"id": f"chr_{tag}_{n}", "project_id": project_id, "name": f"Person {n}", "color": "#336699", **stamp}
        for n in range(12)
    ]
    line_rows = [
        {
            "id": f"lin_{tag}_{s}_{n}",
            "project_id": project_id,
            "scene_id": f"scn_{tag}_{s}",
            "position": n,
            "character_id": f"chr_{tag}_{(s + n) % 12}" if n % 3 else None,
            "text": f"Line {n} of scene {s}: the harbour lights flicker while the tide turns again.",
            **stamp,
        }
        for s in range(scenes)
        for n in range(lines_per_scene)
    ]
    choice_rows = [
        {
            "id": f"cho_{tag}_{s}_{n}",
            "project_id": project_id,
            "scene_id": f"scn_{tag}_{s}",
            "position": n,
            "label": f"Go on ({n + 1})",
            # The last scenes' choices lead nowhere: dangling targets for the check to report.
            "target_scene_id": f"scn_{tag}_{s + n + 1}" if s + n + 1 < scenes - 5 else None,
        }
        for s in range(scenes)
        if s % 50 != 49
        for n in range(2)
    ]
    async with services.db.write() as session:
        await session.exec(
            insert(Project).values(id=project_id, owner_id=owner.user_id, title="The Long Tide", **stamp)
        )
        await session.exec(  # as a new project starts: its owner its one member
            insert(ProjectMember).values(
                project_id=project_id, user_id=owner.user_id, role="owner", added_at=stamp["created_at"]
            )
        )
        for table, rows in (
            (Chapter, chapter_rows),
            (Character, characters),
            (Scene, scene_rows),
            (DialogueLine, line_rows),
            (Choice, choice_rows),
        ):
            await session.exec(insert(table), params=rows)
    return BigStory(
        project_id, [f"scn_{tag}_{s}" for s in range(scenes)], [f"chp_{tag}_{c}" for c in range(chapters)]
    )
