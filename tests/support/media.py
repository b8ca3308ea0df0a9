"""Real media files of a chosen size, made in code: the core decodes every upload completely, so a
test file must be a whole PNG, WAV or MP3, not just its first bytes."""

from __future__ import annotations

import base64
import io
import struct
import wave
import zlib

from PIL import Image

MP3_FRAME = b"\xff\xfb\x90\x00" + bytes(413)  # MPEG-1 Layer III, 128 kbit/s, 44.1 kHz: 417 bytes


def png(size: int | None = None, colour: tuple[int, int, int] = (40, 90, 160)) -> bytes:
    """A 32×18 PNG, padded to exactly `size` bytes with a private ancillary chunk when given."""
    out = io.BytesIO()
    Image.new("RGB", (32, 18), colour).save(out, "PNG")
    image = out.getvalue()
    if size is None:
        return image
    padding = size - len(image) - 12
    assert padding >= 0, f"a PNG cannot be smaller than {len(image) + 12} bytes"
    chunk = b"prVt" + bytes(padding)
    extra = struct.pack(">I", padding) + chunk + struct.pack(">I", zlib.crc32(chunk))
    end = image.rindex(b"IEND") - 4
    return image[:end] + extra + image[end:]


def wav(size: int = 8_044) -> bytes:
    """Silence as 8-bit mono PCM at 8 kHz, `size` bytes in all (one more when `size` is odd)."""
    out = io.BytesIO()
    with wave.open(out, "wb") as audio:
        audio.setnchannels(1)
        audio.setsampwidth(1)
        audio.setframerate(8_000)
        audio.writeframes(b"\x80" * (size - 44))
    return out.getvalue()


def mp3(frames: int = 40) -> bytes:
    """`frames` silent-ish MPEG audio frames (about 26 ms each)."""
    return MP3_FRAME * frames


MP3_BASE64 = base64.b64encode(mp3(2)).decode()
"""A whole (tiny) MP3 as a tool argument."""
