"""Twine stories imported for a test, read back by titles and names, and played through."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from romergo.common.actors import Actor
from romergo.services import Services


@dataclass(frozen=True)
class Imported:
    project_id: str
    scenes: dict[str, dict[str, Any]]
    notes: list[str]

    def noted(self, *parts: str) -> bool:
        """Whether one note holds every part."""
        return any(all(part in note for part in parts) for note in self.notes)


async def imported(services: Services, actor: Actor, filename: str, text: str) -> Imported:
    result = await services.interchange.import_file(actor, filename, text.encode())
    data = await services.reads.project_data(actor, result.project.id)
    titles = {scene.id: scene.title for scene in data.scenes}
    speakers = {character.id: character.name for character in data.characters}
    scenes = {
        scene.title: {
            "start": scene.is_start,
            "lines": [(speakers.get(line.character_id or ""), line.text) for line in data.lines_of(scene.id)],
            "choices": [(c.label, titles.get(c.target_scene_id or "")) for c in data.choices_of(scene.id)],
        }
        for scene in data.scenes_in_order()
    }
    return Imported(result.project.id, scenes, result.notes)


async def played(
    services: Services, actor: Actor, project_id: str, choices: list[str]
) -> tuple[list[str], str]:
    """The scenes a player passes through picking `choices`, and how the play ends."""
    playthrough = await services.reads.simulate(actor, project_id, choices)
    return [step.title for step in playthrough.steps], playthrough.outcome


def line_of(text: str, fragment: str) -> int:
    """The number of the first line of `text` holding `fragment`."""
    return next(number for number, line in enumerate(text.splitlines(), start=1) if fragment in line)
