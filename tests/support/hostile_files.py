"""Files an attacker uploads: random bytes, cut-short and bit-flipped archives, zips whose headers
lie (sizes, checksums, compression method, encryption), an inflation bomb, JSON nested far too
deep, Twee with very many passages, and small valid files beside them.

Zips are written by hand here (`zip_of`) so that every field can say what a real zip would not.
"""

from __future__ import annotations

import functools
import io
import struct
import zipfile
import zlib
from dataclasses import dataclass, replace

from hypothesis import strategies as st

from tests.support.story import TINY_PNG, TINY_WAV

STORY_FILE = "story.json"
BOMB_BYTES = 256 * 1024 * 1024
"""What the bomb inflates to: past the memory budget, so a reader that inflates it whole fails it."""
MANY_PASSAGES = 50_000
"""Far past any sensible scene limit (quadratic parsing took 16.7 s for 16,000), yet parsed whole
in well under the memory budget by a linear parser that refuses only afterwards."""
DEEP = 200_000


@dataclass(frozen=True)
class Member:
    name: str
    packed: bytes
    """The member's data as stored (deflated when `method` is 8)."""
    method: int
    crc: int
    size: int
    """The uncompressed size the headers declare."""
    flags: int = 0


def member(name: str, data: bytes, *, deflate: bool = True) -> Member:
    packed = _deflate(data) if deflate else data
    return Member(name, packed, 8 if deflate else 0, zlib.crc32(data), len(data))


def zip_of(members: list[Member]) -> bytes:
    """A zip of exactly these members, headers saying what the members say."""
    out = io.BytesIO()
    central = []
    for item in members:
        offset = out.tell()
        name = item.name.encode()
        fields = (20, item.flags, item.method, 0, 0x21, item.crc, len(item.packed), item.size, len(name), 0)
        out.write(b"PK\x03\x04" + struct.pack("<HHHHHIIIHH", *fields) + name + item.packed)
        central.append(
            b"PK\x01\x02" + struct.pack("<HHHHHHIIIHHHHHII", 20, *fields[:9], 0, 0, 0, 0, 0, offset) + name
        )
    start = out.tell()
    directory = b"".join(central)
    out.write(directory)
    out.write(
        b"PK\x05\x06" + struct.pack("<HHHHIIH", 0, 0, len(members), len(members), len(directory), start, 0)
    )
    return out.getvalue()


def members_of(archive: bytes) -> list[Member]:
    """A real archive's members, as `zip_of` writes them (for rewriting one of them)."""
    with zipfile.ZipFile(io.BytesIO(archive)) as opened:
        return [member(info.filename, opened.read(info.filename)) for info in opened.infolist()]


@functools.cache
def _bomb() -> bytes:
    packer = zlib.compressobj(9, zlib.DEFLATED, -15)
    chunk = b" " * (1024 * 1024)
    packed = [packer.compress(chunk) for _ in range(BOMB_BYTES // len(chunk))]
    return b"".join(packed) + packer.flush()


def _deflate(data: bytes) -> bytes:
    packer = zlib.compressobj(6, zlib.DEFLATED, -15)
    return packer.compress(data) + packer.flush()


def _rewritten(valid: bytes, name: str, change: str) -> bytes:
    items = members_of(valid)
    index = next((i for i, item in enumerate(items) if item.name == name), 0)
    target = items[index]
    if change == "bomb":  # declares its real size and checksum, inflates to 256 MB first
        target = replace(target, packed=_bomb())
    elif change == "crc":
        target = replace(target, crc=target.crc ^ 0xDEADBEEF)
    elif change == "method":
        target = replace(target, method=99)
    elif change == "encrypted":
        target = replace(target, flags=1)
    elif change == "size":
        target = replace(target, size=max(1, target.size // 3))
    elif change == "deflate":
        target = replace(target, packed=b"\xff" * 64 + target.packed[64:])
    items[index] = target
    return zip_of(items)


def _deep_archive(depth: int) -> bytes:
    return zip_of([member(STORY_FILE, b"[" * depth + b"]" * depth)])


def _many_passages(count: int) -> bytes:
    passages = [f":: Passage {i}\nOn we go. [[Passage {i + 1}]]\n" for i in range(count)]
    return ("".join(passages) + f":: Passage {count}\nThe end.\n").encode()


def _flipped(valid: bytes, spots: list[tuple[int, int]]) -> bytes:
    changed = bytearray(valid)
    for spot, value in spots:
        changed[spot % len(changed)] ^= value or 1
    return bytes(changed)


@dataclass(frozen=True)
class Upload:
    name: str
    data: bytes
    how: str
    """How it was made, for the report of a failing example (the bytes are too many to print)."""

    def __repr__(self) -> str:
        return f"{self.name} ({len(self.data):,} bytes: {self.how})"


def story_files(valid: bytes) -> st.SearchStrategy[Upload]:
    """Files to import as a story: `valid` is a real exported archive."""
    names = sorted({item.name for item in members_of(valid)})
    zipped = st.sampled_from(["story.romergo.zip", "story.zip", "story.bin"])
    changes = st.sampled_from(["bomb", "crc", "method", "encrypted", "size", "deflate"])
    spots = st.lists(st.tuples(st.integers(0, 2**32), st.integers(0, 255)), min_size=1, max_size=8)
    return st.one_of(
        zipped.map(lambda name: Upload(name, valid, "a valid archive")),
        st.builds(Upload, zipped, st.binary(max_size=2048), st.just("random bytes")),
        st.builds(
            lambda name, cut: Upload(name, valid[:cut], f"a valid archive cut at {cut}"),
            zipped,
            st.integers(0, len(valid)),
        ),
        st.builds(
            lambda name, at: Upload(name, _flipped(valid, at), f"bytes flipped at {at}"), zipped, spots
        ),
        st.builds(
            lambda name, inner, change: Upload(name, _rewritten(valid, inner, change), f"{inner}: {change}"),
            zipped,
            st.sampled_from(names),
            changes,
        ),
        st.builds(
            lambda name, depth: Upload(name, _deep_archive(depth), f"story.json nested {depth:,} deep"),
            zipped,
            st.sampled_from([1_000, DEEP]),
        ),
        # The two that cost most, each a branch of its own so that every run tries them.
        zipped.map(lambda name: Upload(name, _rewritten(valid, STORY_FILE, "bomb"), "an inflation bomb")),
        st.sampled_from(["story.twee", "story.tw"]).map(
            lambda name: Upload(name, _many_passages(MANY_PASSAGES), f"{MANY_PASSAGES:,} passages")
        ),
        st.builds(
            lambda name, count: Upload(name, _many_passages(count), f"{count:,} passages"),
            st.sampled_from(["story.twee", "story.tw"]),
            st.integers(1, 30),
        ),
        st.builds(
            Upload,
            st.sampled_from(["story.twee", "story.yarn", "story.txt"]),
            st.binary(max_size=1024) | st.text(max_size=400).map(str.encode),
            st.just("random text"),
        ),
    )


def broken_archives(valid: bytes) -> st.SearchStrategy[Upload]:
    """Archives that are wrong in one way each (never one that takes long to refuse when read
    properly): for the command line, where every example costs an interpreter's start."""
    names = sorted({item.name for item in members_of(valid)})
    changes = st.sampled_from(["crc", "method", "encrypted", "size", "deflate"])
    return st.one_of(
        st.builds(
            lambda inner, change: Upload(
                "story.romergo.zip", _rewritten(valid, inner, change), f"{inner}: {change}"
            ),
            st.sampled_from(names),
            changes,
        ),
        st.sampled_from([1_000, DEEP]).map(
            lambda depth: Upload(
                "story.romergo.zip", _deep_archive(depth), f"story.json nested {depth:,} deep"
            )
        ),
        st.integers(1, len(valid) - 1).map(
            lambda cut: Upload("story.romergo.zip", valid[:cut], f"cut at {cut}")
        ),
    )


def media_files() -> st.SearchStrategy[Upload]:
    """Files to upload as an image or a sound: real ones, cut short, flipped, lying, or random."""
    real = st.sampled_from([("a.png", TINY_PNG), ("a.wav", TINY_WAV)])
    huge_png = TINY_PNG[:16] + struct.pack(">II", 100_000, 100_000) + TINY_PNG[24:]
    lying_wav = TINY_WAV[:40] + struct.pack("<I", 2**31) + TINY_WAV[44:]
    spots = st.lists(st.tuples(st.integers(0, 2**32), st.integers(0, 255)), min_size=1, max_size=6)
    return st.one_of(
        real.map(lambda file: Upload(*file, "a valid file")),
        st.builds(Upload, st.just("random"), st.binary(max_size=4096), st.just("random bytes")),
        st.builds(
            lambda file, cut: Upload(file[0], file[1][:cut], f"cut at {cut}"), real, st.integers(0, 400)
        ),
        st.sampled_from(
            [
                Upload("huge.png", huge_png, "a PNG declaring 100,000 x 100,000 pixels"),
                Upload("lying.wav", lying_wav, "a WAV declaring 2 GiB of samples"),
                Upload("deep.zip", _deep_archive(1_000), "a zip"),
            ]
        ),
        st.builds(lambda file, at: Upload(file[0], _flipped(file[1], at), f"flipped at {at}"), real, spots),
    )
