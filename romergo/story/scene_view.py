"""One scene as the editor and the tools show it: lines with speakers, choices, effective media.

The scene's rows are the story ledger's (`StoryLedger.scene`: one snapshot, prebuilt statements
on the driver, as this read runs on every `romergo_get_scene` and every editor refresh); the
effective media and the speakers are worked out here.
"""

from __future__ import annotations

from romergo.common.actors import Actor
from romergo.common.errors import not_found
from romergo.story.kinds import LABELS
from romergo.story.ledger import StoryLedger
from romergo.story.media_rules import MediaSlot, effective_media
from romergo.story.read_marks import note_read
from romergo.story.records import AssetRecord, ChapterRecord, CharacterRecord, LineRecord, SceneRecord
from romergo.story.views import AssetSlot, LineView, SceneView


async def read_scene_view(ledger: StoryLedger, actor: Actor, scene_id: str) -> SceneView:
    """The scene `scene_id` if the actor may see it (else `not_found`), in one snapshot."""
    found = await ledger.scene(actor.user_id, scene_id)
    if found is None:
        raise not_found(LABELS["scene"], str(scene_id))
    note_read(found.revisions)  # a tool call's agent saw them
    people = {row.id: row for row in found.characters}
    assets = {asset.id: asset for asset in found.media}
    scene, chapter = found.scene, found.chapter
    return SceneView(
        project=found.project,
        chapter=chapter,
        scene=scene,
        background=_slot(scene, chapter, "background", assets),
        music=_slot(scene, chapter, "music", assets),
        lines=[_line_view(line, people) for line in found.lines],
        choices=found.choices,
        characters=sorted(people.values(), key=lambda c: c.name.casefold()),
        revisions=dict(found.revisions),
    )


def _slot(
    scene: SceneRecord, chapter: ChapterRecord, slot: MediaSlot, media: dict[str, AssetRecord]
) -> AssetSlot:
    chosen = effective_media(scene, chapter, slot, media)
    return AssetSlot(media[chosen.asset_id], chosen.source) if chosen.asset_id else AssetSlot(None, None)


def _line_view(line: LineRecord, characters: dict[str, CharacterRecord]) -> LineView:
    speaker = characters.get(line.character_id) if line.character_id else None
    return LineView(line, speaker.name if speaker else None, speaker.color if speaker else None)
