"""Asset types come from the bytes, never from a file name or a client's claim.

`sniff` names the type from the file's signature; `decodes` then proves the whole file is what it
claims (a 16-byte PNG header alone passed once): images are decoded by Pillow, audio headers and
frames are read by mutagen. Both run on untrusted bytes, so every failure of theirs means "refuse".
"""

from __future__ import annotations

import io
import warnings
from collections.abc import Callable
from typing import Literal

import mutagen
from mutagen.mp3 import MP3
from mutagen.ogg import OggFileType
from mutagen.wave import WAVE
from PIL import Image

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


MAX_IMAGE_PIXELS = 40_000_000
"""Larger images are refused before decoding: a small file can unpack into gigabytes of pixels."""


def decodes(mime: str, data: bytes) -> bool:
    """True when the whole file parses as `mime` (one of IMAGE_TYPES or AUDIO_TYPES)."""
    check = _image if mime in IMAGE_TYPES else _audio
    try:
        return check(mime, data)
    except Exception:  # parsers of hostile bytes fail in many ways; each one means "not media"
        return False


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


_PIL_FORMATS = {"image/png": "PNG", "image/jpeg": "JPEG", "image/webp": "WEBP"}
_AUDIO_CLASSES: dict[str, type[mutagen.FileType]] = {
    "audio/mpeg": MP3,
    "audio/ogg": OggFileType,
    "audio/wav": WAVE,
}


def _image(mime: str, data: bytes) -> bool:
    with warnings.catch_warnings():
        warnings.simplefilter("error", Image.DecompressionBombWarning)
        with Image.open(io.BytesIO(data)) as image:
            width, height = image.size
            if image.format != _PIL_FORMATS[mime] or width * height > MAX_IMAGE_PIXELS:
                return False
            image.verify()  # checksums and structure; the image is unusable afterwards
        with Image.open(io.BytesIO(data)) as image:
            image.load()  # every pixel: a truncated file fails here
    return True


def _audio(mime: str, data: bytes) -> bool:
    parsed = mutagen.File(io.BytesIO(data))
    info = getattr(parsed, "info", None)
    if not isinstance(parsed, _AUDIO_CLASSES[mime]) or info is None or info.length <= 0:
        return False
    if isinstance(parsed, WAVE):
        # mutagen trusts the header's sizes: the samples it announces must really be there.
        announced = info.length * info.sample_rate * info.channels * info.bits_per_sample / 8
        return bool(len(data) >= announced * 0.99)
    return True
