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
    """Row by row: the sky's colour fills the row, the orb's span is drawn over it, and the land's
    columns (those whose ground the row has reached) over both, each shaded by its depth. Per-pixel
    Python was a second of every first start (a test server's too)."""
    orb_x, orb_y = backdrop.orb_at[0] * WIDTH, backdrop.orb_at[1] * HEIGHT
    orb_r = HEIGHT * 0.09
    orb_r2 = orb_r**2
    hills = backdrop.hills
    ground = [
        HEIGHT * (0.72 - hills * (0.5 + 0.5 * math.sin(x / WIDTH * math.pi * (2 + 3 * hills))))
        for x in range(WIDTH)
    ]
    depth = [max(1.0, HEIGHT - top) for top in ground]
    reached: dict[int, list[int]] = {}  # row → the columns whose land starts in it
    for x, top in enumerate(ground):
        reached.setdefault(max(0, math.ceil(top)), []).append(x)
    red, green, blue = backdrop.land
    orb = bytes(backdrop.orb)
    land: list[int] = []
    rows = bytearray()
    for y in range(HEIGHT):
        t = y / (HEIGHT - 1)
        sky = bytes(int(a + (b - a) * t) for a, b in zip(backdrop.sky_top, backdrop.sky_bottom, strict=True))
        row = bytearray(sky * WIDTH)
        dy2 = (y - orb_y) ** 2
        if dy2 <= orb_r2:
            for x in range(max(0, int(orb_x - orb_r)), min(WIDTH, int(orb_x + orb_r) + 1)):
                if (x - orb_x) ** 2 + dy2 <= orb_r2:
                    row[3 * x : 3 * x + 3] = orb
        land.extend(reached.get(y, ()))
        for x in land:
            shade = 0.75 + 0.25 * (1 - (y - ground[x]) / depth[x])
            row[3 * x : 3 * x + 3] = bytes((int(red * shade), int(green * shade), int(blue * shade)))
        rows.append(0)  # PNG filter type "none" for this row
        rows += row
    return _png(WIDTH, HEIGHT, bytes(rows))


def wav_loop(tune: Tune) -> bytes:
    samples = array("h")
    per_beat = int(SAMPLE_RATE * tune.beat_seconds)
    # Every beat has the same soft attack and gentle decay: computed once, not per note.
    envelope = [min(1.0, n / 400) * (1 - n / per_beat) ** 0.6 * 9_000 for n in range(per_beat)]
    for semitone in tune.notes:
        step = tune.root_hz * 2 ** (semitone / 12) / SAMPLE_RATE
        phases = [(n * step) % 1.0 for n in range(per_beat)]
        if tune.wave_shape == "square":
            values = [1.0 if phase < 0.5 else -1.0 for phase in phases]
        elif tune.wave_shape == "triangle":
            values = [4 * abs(phase - 0.5) - 1 for phase in phases]
        else:
            values = [math.sin(2 * math.pi * phase) for phase in phases]
        samples.extend(int(value * level) for value, level in zip(values, envelope, strict=True))
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
