"""Uploading a media file into a project's asset library.

`ui.upload(max_file_size=...)` stops large files in the browser only, to spare a pointless
transfer; the real checks (size, and the type read from the content) are the story service's, and
its message is what the author sees when it refuses a file.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path

from nicegui import ui
from nicegui.events import UploadEventArguments

from romergo.story.media_types import AssetKind, guess_kind
from romergo.story.records import AssetRecord
from ui.actions import act
from ui.context import PageContext

Uploaded = Callable[[AssetRecord], Awaitable[None]]
NOT_MEDIA = "This file is neither an image (PNG, JPEG or WebP) nor audio (OGG, MP3 or WAV)."
ACCEPT = {"background": "image/*", "music": "audio/*", "sound": "audio/*"}


def asset_upload(
    ctx: PageContext,
    project_id: str,
    *,
    label: str,
    kind: AssetKind | Callable[[], AssetKind | None] | None,
    tags: Callable[[], list[str]] = list,
    uploaded: Uploaded | None = None,
) -> ui.upload:
    """An upload box; `kind` is fixed, chosen when a file arrives, or None to go by the content."""
    limits = ctx.services.settings.limits
    fixed = kind if isinstance(kind, str) else None
    if fixed == "background":
        largest = limits.max_image_bytes
    elif fixed is not None:
        largest = limits.max_audio_bytes
    else:
        largest = max(limits.max_image_bytes, limits.max_audio_bytes)

    async def received(event: UploadEventArguments) -> None:
        data = await event.file.read()
        upload.reset()
        chosen = kind() if callable(kind) else kind
        chosen = chosen or guess_kind(data)
        if chosen is None:
            ui.notify(NOT_MEDIA, type="negative", multi_line=True)
            return
        name = (Path(event.file.name).stem.strip() or "Untitled")[: limits.max_title_chars]
        asset_kind: AssetKind = chosen
        done = await act(
            ctx,
            lambda: ctx.services.assets.import_asset(ctx.actor, project_id, asset_kind, name, data, tags()),
        )
        if done.value is not None:
            ui.notify(f"Added “{done.value.name}” to the assets.", type="positive")
            if uploaded is not None:
                await uploaded(done.value)

    def rejected() -> None:
        what = "an image" if fixed == "background" else "audio" if fixed else "an image or audio file"
        ui.notify(
            f"That file was not accepted: it must be {what} of at most {largest / 1024 / 1024:g} MB.",
            type="negative",
            multi_line=True,
        )

    upload = ui.upload(
        label=label, auto_upload=True, max_file_size=largest, on_upload=received, on_rejected=rejected
    ).props("flat bordered")
    upload.props["accept"] = ACCEPT[fixed] if fixed else "image/*,audio/*"
    return upload
