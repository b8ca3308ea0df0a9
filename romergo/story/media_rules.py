"""Which background a scene shows and which music it plays: the one rule every reader uses.

The editor's scene view, the story check, the play-through and the published snapshot all ask
`effective_media`, so a scene never looks furnished in one place and bare in another.
"""

from __future__ import annotations

from collections.abc import Container
from dataclasses import dataclass
from typing import Literal, Protocol

MediaSlot = Literal["background", "music"]
MEDIA_SLOTS: tuple[MediaSlot, ...] = ("background", "music")
SlotSource = Literal["scene", "chapter"]


@dataclass(frozen=True)
class EffectiveMedia:
    asset_id: str | None
    source: SlotSource | None
    """Whether the asset is the scene's own or inherited from its chapter; None when there is none."""


NO_MEDIA = EffectiveMedia(None, None)


class Furnished(Protocol):
    """What the rule reads of a scene or a chapter: the assets its own slots name."""

    @property
    def background_asset_id(self) -> str | None: ...
    @property
    def music_asset_id(self) -> str | None: ...


def effective_media(
    scene: Furnished, chapter: Furnished | None, slot: MediaSlot, live_assets: Container[str]
) -> EffectiveMedia:
    """The scene's own asset for `slot`, else its chapter's, else none.

    A deleted asset (one not in `live_assets`) counts as absent: a scene whose own background was
    deleted shows its chapter's background, and a chapter whose asset was deleted gives nothing.
    Deleting an asset clears the slots that use it, but undo can bring such a reference back.
    """
    own = asset_in_slot(scene, slot)
    if own is not None and own in live_assets:
        return EffectiveMedia(own, "scene")
    inherited = asset_in_slot(chapter, slot) if chapter is not None else None
    if inherited is not None and inherited in live_assets:
        return EffectiveMedia(inherited, "chapter")
    return NO_MEDIA


def asset_in_slot(holder: Furnished, slot: MediaSlot) -> str | None:
    """What the scene or chapter itself puts in `slot`, deleted or not (no chapter fallback)."""
    return holder.background_asset_id if slot == "background" else holder.music_asset_id
