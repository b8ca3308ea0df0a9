"""Asset types come from the bytes, never from a file name or a client's claim."""

from __future__ import annotations

from typing import Literal

AssetKind = Literal["background", "music", "sound"]
ASSET_KINDS: tuple[AssetKind, ...] = ("background", "music", "sound")
IMAGE_TYPES = ("image/png", "image/jpeg", "image/webp")
AUDIO_TYPES = ("audio/ogg", "audio/mpeg", "audio/wav")


def sniff(data: bytes) -> str | None:
    """The MIME type of a PNG, JPEG, WebP, OGG, MP3 or WAV file; None for anything else."""
    if data.startswith(b"\x89PNG\r\n\x1a\n"):
        return "image/png"
    if data.startswith(b"\xff\xd8\xff"):
        return "image/jpeg"
    if len(data) >= 12 and data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "image/webp"
    if len(data) >= 12 and data[:4] == b"RIFF" and data[8:12] == b"WAVE":
        return "audio/wav"
    if data.startswith(b"OggS"):
        return "audio/ogg"
    if data.startswith(b"ID3") or (len(data) >= 2 and data[0] == 0xFF and data[1] & 0xE0 == 0xE0):
        return "audio/mpeg"
    return None


def accepted_types(kind: AssetKind) -> tuple[str, ...]:
    return IMAGE_TYPES if kind == "background" else AUDIO_TYPES


def describe(kind: AssetKind) -> str:
    return "an image (PNG, JPEG or WebP)" if kind == "background" else "audio (OGG, MP3 or WAV)"


def guess_kind(data: bytes) -> AssetKind | None:
    """The usual kind for a file: images are backgrounds, audio is music; None for anything else."""
    mime = sniff(data)
    if mime in IMAGE_TYPES:
        return "background"
    if mime in AUDIO_TYPES:
        return "music"
    return None
