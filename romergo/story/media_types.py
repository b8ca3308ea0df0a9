"""Asset types come from the bytes, never from a file name or a client's claim."""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal

AssetKind = Literal["background", "music", "sound"]
ASSET_KINDS: tuple[AssetKind, ...] = ("background", "music", "sound")
IMAGE_TYPES = ("image/png", "image/jpeg", "image/webp")
AUDIO_TYPES = ("audio/ogg", "audio/mpeg", "audio/wav")


def sniff(data: bytes) -> str | None:
    """The MIME type of a PNG, JPEG, WebP, OGG, MP3 or WAV file; None for anything else."""
    return next((mime for looks_like, mime in _SIGNATURES if looks_like(data)), None)


def _riff(form: bytes) -> Callable[[bytes], bool]:
    return lambda data: len(data) >= 12 and data[:4] == b"RIFF" and data[8:12] == form


def _mp3(data: bytes) -> bool:
    """An ID3 tag, or straight into an MPEG audio frame (11 sync bits)."""
    return data.startswith(b"ID3") or (len(data) >= 2 and data[0] == 0xFF and data[1] & 0xE0 == 0xE0)


_SIGNATURES: tuple[tuple[Callable[[bytes], bool], str], ...] = (
    (lambda data: data.startswith(b"\x89PNG\r\n\x1a\n"), "image/png"),
    (lambda data: data.startswith(b"\xff\xd8\xff"), "image/jpeg"),
    (_riff(b"WEBP"), "image/webp"),
    (_riff(b"WAVE"), "audio/wav"),
    (lambda data: data.startswith(b"OggS"), "audio/ogg"),
    (_mp3, "audio/mpeg"),
)


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
