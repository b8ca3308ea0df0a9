"""The demo's generated media: the fast drawing (by rows and spans) paints exactly what
the plain per-pixel rule says, for every backdrop of the demo, and the loops are valid WAV files."""

from __future__ import annotations

import io
import math
import wave
import zlib

import pytest

from romergo.demo import story
from romergo.demo.media import HEIGHT, SAMPLE_RATE, WIDTH, Backdrop, png_backdrop, wav_loop


@pytest.mark.parametrize("name", sorted(story.BACKGROUNDS))
def test_a_backdrop_is_the_per_pixel_picture(name: str):
    backdrop, _ = story.BACKGROUNDS[name]
    assert _pixels(png_backdrop(backdrop)) == _per_pixel(backdrop)


@pytest.mark.parametrize("name", sorted(story.MUSIC))
def test_a_loop_is_a_mono_wav_of_its_beats(name: str):
    tune, _ = story.MUSIC[name]
    with wave.open(io.BytesIO(wav_loop(tune))) as loop:
        assert (loop.getnchannels(), loop.getsampwidth(), loop.getframerate()) == (1, 2, SAMPLE_RATE)
        assert loop.getnframes() == len(tune.notes) * int(SAMPLE_RATE * tune.beat_seconds)
        frames = loop.readframes(loop.getnframes())
    assert any(frames)  # not silence


def _pixels(png: bytes) -> bytes:
    """The raw rows of a PNG written by `png_backdrop` (one IDAT chunk after the 8-byte signature
    and the 25-byte IHDR chunk)."""
    length = int.from_bytes(png[33:37], "big")
    assert png[37:41] == b"IDAT"
    return zlib.decompress(png[41 : 41 + length])


def _per_pixel(backdrop: Backdrop) -> bytes:
    """The picture's rule, pixel by pixel: land below the hills' line, else the orb, else the sky."""
    rows = bytearray()
    orb_x, orb_y = backdrop.orb_at[0] * WIDTH, backdrop.orb_at[1] * HEIGHT
    for y in range(HEIGHT):
        rows.append(0)
        t = y / (HEIGHT - 1)
        sky = [int(a + (b - a) * t) for a, b in zip(backdrop.sky_top, backdrop.sky_bottom, strict=True)]
        for x in range(WIDTH):
            ground = HEIGHT * (
                0.72 - backdrop.hills * (0.5 + 0.5 * math.sin(x / WIDTH * math.pi * (2 + 3 * backdrop.hills)))
            )
            if y >= ground:
                shade = 0.75 + 0.25 * (1 - (y - ground) / max(1.0, HEIGHT - ground))
                rows.extend(int(c * shade) for c in backdrop.land)
            elif (x - orb_x) ** 2 + (y - orb_y) ** 2 <= (HEIGHT * 0.09) ** 2:
                rows.extend(backdrop.orb)
            else:
                rows.extend(sky)
    return bytes(rows)
