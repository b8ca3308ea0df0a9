"""Media for the demo project, generated in code: PNG backgrounds and WAV music loops.

No downloads and no binary files in the repository: every image and loop is computed from a
few numbers, so a fresh machine seeds the same demo offline.
"""

from __future__ import annotations

import io
import math
import struct
import wave
import zlib
from array import array
from dataclasses import dataclass

WIDTH, HEIGHT = 480, 270
SAMPLE_RATE = 22_050


@dataclass(frozen=True)
class Backdrop:
    sky_top: tuple[int, int, int]
    sky_bottom: tuple[int, int, int]
    orb: tuple[int, int, int]
    orb_at: tuple[float, float]
    land: tuple[int, int, int]
    hills: float
    """How tall and how many the hills are: 0 for flat water, larger for rugged land."""


@dataclass(frozen=True)
class Tune:
    notes: tuple[float, ...]
    """Semitones above the root; one per beat."""
    root_hz: float
    beat_seconds: float
    wave_shape: str  # "sine" | "square" | "triangle"


def png_backdrop(backdrop: Backdrop) -> bytes:
    rows = bytearray()
    orb_x, orb_y = backdrop.orb_at[0] * WIDTH, backdrop.orb_at[1] * HEIGHT
    orb_r2 = (HEIGHT * 0.09) ** 2
    for y in range(HEIGHT):
        rows.append(0)  # PNG filter type "none" for this row
        t = y / (HEIGHT - 1)
        sky = tuple(int(a + (b - a) * t) for a, b in zip(backdrop.sky_top, backdrop.sky_bottom, strict=True))
        for x in range(WIDTH):
            ground = HEIGHT * (
                0.72 - backdrop.hills * (0.5 + 0.5 * math.sin(x / WIDTH * math.pi * (2 + 3 * backdrop.hills)))
            )
            if y >= ground:
                shade = 0.75 + 0.25 * (1 - (y - ground) / max(1.0, HEIGHT - ground))
                rows.extend(int(c * shade) for c in backdrop.land)
            elif (x - orb_x) ** 2 + (y - orb_y) ** 2 <= orb_r2:
                rows.extend(backdrop.orb)
            else:
                rows.extend(sky)
    return _png(WIDTH, HEIGHT, bytes(rows))


def wav_loop(tune: Tune) -> bytes:
    samples = array("h")
    per_beat = int(SAMPLE_RATE * tune.beat_seconds)
    for semitone in tune.notes:
        frequency = tune.root_hz * 2 ** (semitone / 12)
        for n in range(per_beat):
            phase = (n * frequency / SAMPLE_RATE) % 1.0
            if tune.wave_shape == "square":
                value = 1.0 if phase < 0.5 else -1.0
            elif tune.wave_shape == "triangle":
                value = 4 * abs(phase - 0.5) - 1
            else:
                value = math.sin(2 * math.pi * phase)
            envelope = min(1.0, n / 400) * (1 - n / per_beat) ** 0.6  # soft attack, gentle decay
            samples.append(int(value * envelope * 9_000))
    buffer = io.BytesIO()
    with wave.open(buffer, "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(SAMPLE_RATE)
        out.writeframes(samples.tobytes())
    return buffer.getvalue()


def _png(width: int, height: int, raw_rows: bytes) -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        return (
            struct.pack(">I", len(data))
            + kind
            + data
            + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
        )

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)  # 8-bit RGB
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(raw_rows, 9))
        + chunk(b"IEND", b"")
    )
