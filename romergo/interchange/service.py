"""Export a project to a file, and import a file as a new project.

Formats: `archive` (`.romergo.zip`, exact), `twee` (Twee 3, Twine's text format; an import reads
a Twine 2 HTML file, published or a library archive, as the same format) and `yarn` (Yarn
Spinner). An import reads and checks the whole file first (`check_document`) and creates the
project in one transaction, so a bad file creates nothing and the error names where it is; what
the file had that Romergo keeps no equivalent of comes back as notes, as does what an export
leaves out.
"""

from __future__ import annotations

import asyncio
import re
from dataclasses import dataclass, field
from typing import Literal

from romergo.common.actors import Actor
from romergo.common.config import Limits
from romergo.common.errors import invalid, project_not_found
from romergo.interchange import archive, twee, twine_html, yarn
from romergo.interchange.bounds import check_counts, check_text_lines
from romergo.interchange.document import StoryDocument, check_document
from romergo.interchange.projects import create_project, document_of
from romergo.story.base import StoryStore
from romergo.story.ledger import ProjectRecord, StoryLedger
from romergo.story.projects import as_written
from romergo.story.reads import project_data_of

Format = Literal["archive", "twee", "yarn"]
FORMATS: tuple[Format, ...] = ("archive", "twee", "yarn")
SUFFIXES: dict[Format, str] = {"archive": ".romergo.zip", "twee": ".twee", "yarn": ".yarn"}
MEDIA_TYPES: dict[Format, str] = {
    "archive": "application/zip",
    "twee": "text/plain; charset=utf-8",
    "yarn": "text/plain; charset=utf-8",
}
MAX_TEXT_BYTES = 16 * 1024 * 1024
MAX_ARCHIVE_BYTES = archive.MAX_UNPACKED_BYTES
MAX_FILE_BYTES = max(MAX_TEXT_BYTES, MAX_ARCHIVE_BYTES)
"""The largest file any import reads (the command line checks it before reading the file)."""
MAX_NOTES = 200
"""Notes an import answers with; past them, one more says how many were left out."""


@dataclass(frozen=True)
class Exported:
    filename: str
    media_type: str
    data: bytes
    notes: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class Imported:
    project: ProjectRecord
    format: Format
    scenes: int
    notes: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class InterchangeService:
    store: StoryStore
    ledger: StoryLedger
    limits: Limits

    async def export_project(self, actor: Actor, project_id: str, format: str) -> Exported:
        chosen = _format(format)

        # Off the event loop, the read and the writing both: a long story's export held every other
        # call for 0.13-0.22 s (2,000 scenes).
        found = await self.ledger.project_with_files(actor.user_id, project_id)
        if found is None:
            raise project_not_found(project_id)
        rows, files = found
        return await asyncio.to_thread(lambda: _written(document_of(project_data_of(rows), files), chosen))

    async def import_file(
        self, actor: Actor, filename: str, data: bytes, format: str | None = None
    ) -> Imported:
        chosen = _format(format) if format else detect_format(filename, data)
        # Reading and checking a whole story is pure Python (~0.3 s at 2,000 scenes): off the loop.
        document = await asyncio.to_thread(_checked_document, chosen, data, filename, self.limits)
        async with self.store.write(actor) as tx:
            project = await create_project(tx, document)
        return Imported(as_written(tx, project), chosen, len(document.scenes()), _shown(document.notes))


def _written(document: StoryDocument, chosen: Format) -> Exported:
    """The file of a format for a document, with the notes on what the format could not hold."""
    notes: list[str] = []
    if chosen == "archive":
        data = archive.write_archive(document)
    elif chosen == "twee":
        text, notes = twee.write_twee(document)
        data = text.encode("utf-8")
    else:
        text, notes = yarn.write_yarn(document)
        data = text.encode("utf-8")
    return Exported(_filename(document.title, chosen), MEDIA_TYPES[chosen], data, notes)


def _checked_document(chosen: Format, data: bytes, filename: str, limits: Limits) -> StoryDocument:
    """The file's story, titled after the file if it has no title, held to the editor's rules."""
    document = read_document(chosen, data, limits)
    check_counts(document)
    if not document.title.strip():
        document.title = _title_from(filename)
    check_document(document, limits)
    return document


def read_document(chosen: Format, data: bytes, limits: Limits) -> StoryDocument:
    if chosen == "archive":
        if len(data) > MAX_ARCHIVE_BYTES:
            raise invalid(
                f"The file has {len(data):,} bytes; an archive may have at most {MAX_ARCHIVE_BYTES:,}."
            )
        return archive.read_archive(data, max(limits.max_image_bytes, limits.max_audio_bytes))
    if len(data) > MAX_TEXT_BYTES:
        raise invalid(
            f"The file has {len(data):,} bytes; a {chosen} file may have at most {MAX_TEXT_BYTES:,}."
        )
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise invalid(f"The file is not UTF-8 text (byte {error.start}).") from None
    check_text_lines(text)
    if chosen == "yarn":
        return yarn.read_yarn(text)
    return twine_html.read_twine_html(text) if twine_html.is_twine_html(text) else twee.read_twee(text)


def detect_format(filename: str, data: bytes) -> Format:
    """By the file's name, else by its first bytes."""
    name = filename.lower()
    if name.endswith(".zip"):
        return "archive"
    if name.endswith((".twee", ".tw", ".tw3", ".html", ".htm")):
        return "twee"
    if name.endswith(".yarn"):
        return "yarn"
    if data.startswith(b"PK\x03\x04"):
        return "archive"
    head = data[:4096].decode("utf-8", errors="replace").lstrip("\ufeff \t\r\n")
    if head.startswith("::") or (
        head.startswith("<") and re.search(r"<(html|!doctype|tw-storydata)\b", head, re.I)
    ):
        return "twee"
    if re.search(r"^---\s*$", head, re.M) and re.match(r"\w+:", head):
        return "yarn"
    raise invalid("Cannot tell what kind of file this is: use .romergo.zip, .twee, .html (Twine 2) or .yarn.")


def _shown(notes: list[str]) -> list[str]:
    if len(notes) <= MAX_NOTES:
        return list(notes)
    return [*notes[:MAX_NOTES], f"… and {len(notes) - MAX_NOTES:,} more notes like these."]


def _format(value: str) -> Format:
    for known in FORMATS:
        if value == known:
            return known
    raise invalid(f"Unknown format {value!r}; one of: {', '.join(FORMATS)}.")


def _title_from(filename: str) -> str:
    stem = re.sub(r"(\.romergo)?\.(zip|twee|tw3?|html?|yarn)$", "", filename.rsplit("/", 1)[-1], flags=re.I)
    return stem.replace("_", " ").replace("-", " ").strip()[:200] or "Imported story"


def _filename(title: str, chosen: Format) -> str:
    stem = re.sub(r"[^\w\-]+", "-", title, flags=re.UNICODE).strip("-")[:80] or "story"
    return stem + SUFFIXES[chosen]
