"""`romergo_search_story`: find text across a story, grouped by scene, for the agent to locate what a
command is about ("every line where Mara mentions the key") before reading or changing it."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated

from mcp.types import CallToolResult
from pydantic import BaseModel, Field

from mcp_tools.declare import Call, Toolbox
from mcp_tools.envelope import Envelope
from mcp_tools.paging import paged_aside
from mcp_tools.tools.common import READ_ONLY, Page, PageSize, ProjectId, RoomListing, room_note
from romergo.story.patterns import MAX_QUERY_CHARS, SearchQuery
from romergo.story.search import FIELDS, Hit, SearchField, SearchResults


class Match(BaseModel):
    field: SearchField
    id: str
    """The scene, dialogue line, choice, chapter or character holding the text."""
    text: str
    spans: list[tuple[int, int]]
    speaker: str | None = None


class SceneMatches(BaseModel):
    scene_id: str
    scene_title: str
    chapter_id: str
    chapter_title: str
    matches: list[Match]


class StorySearchResult(RoomListing):
    scenes: list[SceneMatches]
    elsewhere: list[Match]
    total_matches: int
    total_texts: int


Row = tuple[str | None, Hit]
"""A matching text and its scene (None: a chapter title or a character name)."""


tools = Toolbox()


@tools.tool(
    "read",
    "Search a story",
    "Find text across a project: scene titles, dialogue lines, choice labels, chapter titles and "
    "character names. Returns the matching texts grouped by scene in story order (each with the "
    "id to read or change it, and spans: [start, end) character offsets of every match); chapter "
    "titles and character names come under elsewhere. Case is ignored unless match_case; "
    "whole_word follows Unicode word boundaries; regex takes a regular expression (Python syntax). "
    "fields limits which kinds of text are searched. A long result is cut with truncated: true; "
    "call again with page = next_page. In a room limited to some chapters, only their scenes "
    "are searched (room says so).",
    READ_ONLY,
    target=("project", "project_id"),
)
async def romergo_search_story(
    call: Call,
    project_id: ProjectId,
    query: Annotated[str, Field(description=f"What to find (at most {MAX_QUERY_CHARS} characters).")],
    match_case: Annotated[
        bool, Field(description="Only matches with the same upper and lower case.")
    ] = False,
    whole_word: Annotated[bool, Field(description="Only whole words (Unicode word boundaries).")] = False,
    regex: Annotated[bool, Field(description="query is a regular expression.")] = False,
    fields: Annotated[
        list[SearchField] | None, Field(description="Kinds of text to search; null for all of them.")
    ] = None,
    page: Page = None,
    page_size: PageSize = None,
) -> Annotated[CallToolResult, Envelope[StorySearchResult]]:
    chosen = SearchQuery(query, match_case=match_case, whole_word=whole_word, regex=regex)
    results = await call.services.search.search(call.actor, project_id, chosen, fields or FIELDS)
    # Paged by text: a page holds whole scenes' worth of matches as far as they fit.
    rows = _rows(results)

    def build(part: Sequence[Row]) -> StorySearchResult:
        return _result(results, part, room_note(call.actor))

    keys = [f"{hit.field}:{hit.entity_id}" for _, hit in rows]
    key = f"search_story:{project_id}:{query}:{match_case}:{whole_word}:{regex}:{sorted(fields or FIELDS)}"
    return await paged_aside(key, rows, keys, build, page, page_size)


def _rows(results: SearchResults) -> list[Row]:
    rows: list[Row] = [(group.scene_id, hit) for group in results.scenes for hit in group.hits]
    return rows + [(None, hit) for hit in results.elsewhere]


def _result(results: SearchResults, part: Sequence[Row], room: str | None) -> StorySearchResult:
    groups = {group.scene_id: group for group in results.scenes}
    scenes: dict[str, SceneMatches] = {}
    elsewhere: list[Match] = []
    for scene_id, hit in part:
        match = Match(
            field=hit.field, id=hit.entity_id, text=hit.text, spans=list(hit.spans), speaker=hit.speaker
        )
        if scene_id is None:
            elsewhere.append(match)
            continue
        if scene_id not in scenes:
            group = groups[scene_id]
            scenes[scene_id] = SceneMatches(
                scene_id=group.scene_id,
                scene_title=group.title,
                chapter_id=group.chapter_id,
                chapter_title=group.chapter_title,
                matches=[],
            )
        scenes[scene_id].matches.append(match)
    return StorySearchResult(
        scenes=list(scenes.values()),
        elsewhere=elsewhere,
        total_matches=results.matches,
        total_texts=results.texts,
        room=room,
    )
