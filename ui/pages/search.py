"""`/projects/{id}/search`: find and replace across the story (`romergo.story.search`).

The form keeps its query while the story changes underneath: every change to the project runs
the search again, so the results always show what the story holds now. Results are grouped by
scene, `TEXTS_AT_ONCE` texts at a time ("Show more"); each has its own "Replace", and "Replace
all" changes every match as one write, which Ctrl+Z (or the "Undo" beside its message) takes back
as a whole. A replace is based on the revisions the results on screen were read at: a text
changed since (the results follow a moment later) is left alone, and the page says which.
`?q=` opens the page with that search run.
"""

from __future__ import annotations

import html
from dataclasses import dataclass, replace

from nicegui import ui

from romergo.common import urls
from romergo.common.errors import RomergoError
from romergo.story.patterns import MAX_QUERY_CHARS, MAX_REPLACEMENT_CHARS, SearchQuery
from romergo.story.records import ProjectRecord
from romergo.story.search import Hit, SceneHits, SearchResults, Target
from ui.actions import act
from ui.components.buttons import show_more_button
from ui.context import PageContext
from ui.frame import SectionPage

TEXTS_AT_ONCE = 100
FIELD_NAMES = {
    "scene_title": "Scene title",
    "line": "Line",
    "choice_label": "Choice",
    "chapter_title": "Chapter title",
    "character_name": "Character",
}


@dataclass(frozen=True)
class Found:
    project: ProjectRecord
    query: SearchQuery | None
    results: SearchResults | None
    error: str | None = None


async def page(ctx: PageContext, project_id: str, q: str | None = None) -> None:
    ctx.place.enter(urls.search(project_id), "search", project_id=project_id)
    query = SearchQuery(q[:MAX_QUERY_CHARS]) if q and q.strip() else None
    await _SearchPage(ctx, project_id, query).open()


class _SearchPage(SectionPage[Found]):
    nav = "search"
    heading = "Search"

    def __init__(self, ctx: PageContext, project_id: str, query: SearchQuery | None) -> None:
        super().__init__(ctx, project_id)
        self.query = query
        self.shown = TEXTS_AT_ONCE

    def build(self, loaded: Found) -> None:
        """The form and the replace's outcome, then the results (the part that follows the story)."""
        self._form()
        self.outcome = ui.row().classes("items-center gap-2").props('role="status" aria-live="polite"')
        super().build(loaded)

    async def load(self) -> Found:
        project = await self.services.projects.get_project(self.ctx.actor, self.project_id)
        if self.query is None:
            return Found(project, None, None)
        try:
            results = await self.services.search.search(self.ctx.actor, self.project_id, self.query)
        except RomergoError as error:
            return Found(project, self.query, None, error.message)
        return Found(project, self.query, results)

    def key(self, loaded: Found) -> object:
        return (loaded, self.shown)

    def draw(self, loaded: Found) -> None:
        if loaded.error:
            ui.label(loaded.error).classes("text-negative").props('role="alert"')
            return
        results = loaded.results
        if results is None:
            return
        if not results.texts:
            ui.label("Nothing found.").props('role="status" data-testid="search-summary"')
            return
        matches, texts = results.matches, results.texts
        summary = f"{_count(matches, 'match', 'matches')} in {_count(texts, 'text', 'texts')}"
        with ui.row().classes("items-center gap-3"):
            ui.label(summary + ".").props('role="status" data-testid="search-summary"')
            ui.button("Replace all", on_click=self._replace_all).props("no-caps outline color=primary")
        rows: list[tuple[SceneHits | None, Hit]] = [(None, hit) for hit in results.elsewhere]
        rows[:0] = [(group, hit) for group in results.scenes for hit in group.hits]
        listed = ui.column().classes("w-full gap-2").props('aria-label="Results"')
        with listed:
            self._rows(rows[: self.shown])
            if len(rows) > self.shown:
                show_more_button(len(rows) - self.shown, TEXTS_AT_ONCE, self._more)

    # ---- the form ------------------------------------------------------------------------------

    def _form(self) -> None:
        query = self.query or SearchQuery(" ")
        with ui.row().classes("w-full items-end gap-3").props('role="search"'):
            self.find = (
                ui.input("Find", value=self.query.text if self.query else "")
                .props(f'dense outlined autofocus maxlength="{MAX_QUERY_CHARS}"')
                .classes("grow")
                .on("keydown.enter", self._search)
            )
            self.replace_with = (
                ui.input("Replace with")
                .props(f'dense outlined maxlength="{MAX_REPLACEMENT_CHARS}"')
                .classes("grow")
                .on("keydown.enter", self._search)
            )
            ui.button("Find", on_click=self._search).props("no-caps color=primary")
        with ui.row().classes("items-center gap-4"):
            self.match_case = ui.checkbox("Match case", value=query.match_case, on_change=self._search)
            self.whole_word = ui.checkbox("Whole word", value=query.whole_word, on_change=self._search)
            self.regex = ui.checkbox("Regular expression", value=query.regex, on_change=self._search)

    def _chosen(self) -> SearchQuery | None:
        text = str(self.find.value or "")
        if not text.strip():
            return None
        return SearchQuery(
            text,
            match_case=bool(self.match_case.value),
            whole_word=bool(self.whole_word.value),
            regex=bool(self.regex.value),
        )

    async def _search(self) -> None:
        self.query = self._chosen()
        self.shown = TEXTS_AT_ONCE
        self.outcome.clear()
        await self.reload()

    # ---- results -------------------------------------------------------------------------------

    def _rows(self, rows: list[tuple[SceneHits | None, Hit]]) -> None:
        heading: str | None = ""
        for group, hit in rows:
            key = group.scene_id if group else None
            if key != heading:
                heading = key
                self._group_heading(group)
            with ui.row().classes("w-full items-center gap-2 pl-4").props('data-testid="search-hit"'):
                who = f" · {hit.speaker}" if hit.speaker else ""
                ui.label(FIELD_NAMES[hit.field] + who).classes("text-caption text-grey-8 w-32")
                ui.html(_highlighted(hit), sanitize=False).classes("grow")
                target = Target(hit.field, hit.entity_id)
                ui.button("Replace", on_click=lambda t=target: self._replace([t])).props(
                    "flat dense no-caps color=primary"
                )

    def _group_heading(self, group: SceneHits | None) -> None:
        if group is None:
            ui.label("Chapters and characters").classes("text-subtitle2 q-mt-sm")
            return
        with ui.row().classes("items-baseline gap-2 q-mt-sm"):
            ui.link(group.title, urls.scene(self.project_id, group.scene_id)).classes("text-subtitle2").props(
                'data-testid="search-scene"'
            )
            ui.label(group.chapter_title).classes("text-caption text-grey-7")

    async def _more(self) -> None:
        self.shown += TEXTS_AT_ONCE
        if self.current is not None:
            self.show(replace(self.current))

    # ---- replacing -----------------------------------------------------------------------------

    async def _replace_all(self) -> None:
        await self._replace(None)

    async def _replace(self, only: list[Target] | None) -> None:
        query = self.query
        if query is None:
            return
        replacement = str(self.replace_with.value or "")
        search = self.services.search
        # Based on the results on screen: a text changed since they were drawn is left alone.
        seen = self.current.results if self.current is not None else None
        outcome = await act(
            self.ctx,
            lambda: search.replace(
                self.ctx.actor,
                self.project_id,
                query,
                replacement,
                only=only,
                seen=seen.revisions if seen is not None else {},
            ),
        )
        done = outcome.value
        self.outcome.clear()
        if done is None or not (done.matches or done.skipped):
            return
        with self.outcome:
            if done.matches:
                matches, texts = _count(done.matches, "match", "matches"), _count(done.texts, "text", "texts")
                ui.label(f"Replaced {matches} in {texts}.")
            if done.skipped:
                ui.label(skipped_words(done.skipped, seen)).classes("text-warning").props(
                    'data-testid="replace-skipped"'
                )
            if done.batch_id:
                key = f"batch:{done.batch_id}"
                ui.button("Undo", on_click=lambda: self._undo(key)).props("flat dense no-caps color=primary")

    async def _undo(self, key: str) -> None:
        outcome = await act(self.ctx, lambda: self.services.undo.undo(self.ctx.actor, key))
        self.outcome.clear()
        undone = outcome.value
        if undone is None:
            return
        with self.outcome:
            if undone.conflicts:
                ui.label("Not undone: some of these texts were changed again since.").classes("text-warning")
            else:
                ui.label("Replacement undone.")


def skipped_words(skipped: list[Target], seen: SearchResults | None) -> str:
    """What a replace left alone, in words: each text named by its kind and scene where the
    search showed it."""
    places: dict[Target, str] = {}
    if seen is not None:
        for group in seen.scenes:
            for hit in group.hits:
                places[Target(hit.field, hit.entity_id)] = f"{FIELD_NAMES[hit.field]} in “{group.title}”"
        for hit in seen.elsewhere:
            places[Target(hit.field, hit.entity_id)] = f"{FIELD_NAMES[hit.field]} “{hit.text}”"
    named = [places[target] for target in skipped if target in places]
    others = len(skipped) - len(named)
    if others:
        named.append(_count(others, "text not among the results", "texts not among the results"))
    return (
        f"Not replaced in {_count(len(skipped), 'text', 'texts')} changed since your search: "
        f"{'; '.join(named)}. The results show them as they are now."
    )


def _highlighted(hit: Hit) -> str:
    """The text with each match in <mark>, everything escaped: the author's words are never markup."""
    parts: list[str] = []
    last = 0
    for start, end in hit.spans:
        parts.append(html.escape(hit.text[last:start]))
        parts.append(f"<mark>{html.escape(hit.text[start:end])}</mark>")
        last = end
    parts.append(html.escape(hit.text[last:]))
    return "".join(parts)


def _count(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"
