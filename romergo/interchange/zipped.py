"""The members of an uploaded zip, read with real byte caps while they inflate.

A zip says how large each member is, and says it in a field anyone can write: a `story.json`
declaring 1,000 bytes inflated to a gigabyte before anything looked. Here a member is read a chunk
at a time and refused as soon as it passes its cap, whatever it declared; and every way a zip can
be broken (a bad checksum, a corrupt stream, encryption, a compression method Romergo does not
read, a truncated file) is a refusal in words, never an exception from the zip module.
"""

from __future__ import annotations

import io
import struct
import zipfile
import zlib

from romergo.common.errors import invalid

CHUNK_BYTES = 64 * 1024
MAX_MEMBERS = 2_000
"""Files in an archive (its story and one per asset: at most `bounds.MAX_ASSETS`)."""
MAX_DIRECTORY_BYTES = 1024 * 1024
"""The archive's directory (about 100 bytes a file)."""
END_RECORD, END_FORMAT = b"PK\x05\x06", "<4s4H2LH"
END_SIZE = struct.calcsize(END_FORMAT)
END_SEARCH_BYTES = END_SIZE + 65_535  # the end record, then a comment of at most 64 KiB
ZIP64_LOCATOR, ZIP64_LOCATOR_SIZE = b"PK\x06\x07", 20
READABLE_METHODS = {zipfile.ZIP_STORED: "stored", zipfile.ZIP_DEFLATED: "deflated"}
BROKEN = (zipfile.BadZipFile, zlib.error, EOFError, OSError, ValueError, NotImplementedError, RuntimeError)
"""What the zip module raises for a damaged, encrypted or truncated member."""


def opened(data: bytes) -> zipfile.ZipFile:
    """The zip in `data`, its directory checked for size before the zip module reads it."""
    _check_directory(data)
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except BROKEN:
        raise invalid("The file is not a Romergo archive (not a zip file, or a damaged one).") from None
    if len(archive.infolist()) > MAX_MEMBERS:
        archive.close()
        raise invalid(f"The archive holds more than {MAX_MEMBERS:,} files.")
    return archive


def member(archive: zipfile.ZipFile, info: zipfile.ZipInfo, cap: int) -> bytes:
    """The bytes of `info`, refused once they pass `cap` (never trusting the declared size)."""
    name = info.filename
    if info.file_size > cap:
        raise too_large(name, cap)
    if info.flag_bits & 0x1:
        raise invalid(f"{name} in the archive is encrypted; Romergo reads archives without passwords.")
    if info.compress_type not in READABLE_METHODS:
        raise invalid(
            f"{name} in the archive uses compression method {info.compress_type}; "
            f"Romergo reads {' and '.join(READABLE_METHODS.values())} files."
        )
    chunks: list[bytes] = []
    size = 0
    try:
        with archive.open(info) as stream:
            while chunk := stream.read(CHUNK_BYTES):
                size += len(chunk)
                if size > cap:
                    raise too_large(name, cap)
                chunks.append(chunk)
    except BROKEN as error:
        raise invalid(f"{name} in the archive is damaged ({_said(error)}).") from None
    return b"".join(chunks)


def _check_directory(data: bytes) -> None:
    """The zip module reads the whole directory the end record points at (every entry an object):
    its size and count are checked first, from that same record. Zip64 (for more than 65,535 files
    or 4 GiB) is never needed by an archive of a story."""
    end = data.rfind(END_RECORD, max(0, len(data) - END_SEARCH_BYTES))
    if end < 0 or len(data) < end + END_SIZE:
        return  # not a zip: the zip module says so
    _, _, _, _, files, size, _, _ = struct.unpack(END_FORMAT, data[end : end + END_SIZE])
    if data[max(0, end - ZIP64_LOCATOR_SIZE) : end].startswith(ZIP64_LOCATOR):
        raise invalid("The archive is a Zip64 file; a Romergo archive never needs to be one.")
    if files > MAX_MEMBERS or size > MAX_DIRECTORY_BYTES:
        raise invalid(f"The archive holds more than {MAX_MEMBERS:,} files.")


def too_large(name: str, cap: int) -> Exception:
    return invalid(f"{name} in the archive unpacks to more than {cap:,} bytes, the most it may hold.")


def _said(error: Exception) -> str:
    """The zip module's own words, without the archive's path or bytes it may quote."""
    text = str(error).split(":", 1)[0].strip() or type(error).__name__
    return text[:120]
