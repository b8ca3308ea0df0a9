"""`/projects/{id}/map`: the story as a graph, drawn with NiceGUI's ECharts on a canvas
that pans (drag) and zooms (wheel) smoothly at thousands of scenes.

Each scene is a box in its chapter's colour, in layers from the start (`romergo.story.story_map`);
▶ marks the start, ◼ an ending, a red frame and ⚠ a problem the story check found (the tooltip
names it); a choice is an arrow whose label shows on hover, and a choice that leads nowhere points
at a red "nowhere". A click on a scene opens it in the editor. `?scene=` (the editor's "On the
map") highlights that scene. The map follows every change to the story live; the chapter filter
shows one chapter's scenes and the arrows between them.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from nicegui import ui
from nicegui.events import EChartPointClickEventArguments, Handler

from romergo.common import urls
from romergo.story.records import ProjectRecord
from romergo.story.story_map import MapNode, StoryMap
from ui.context import PageContext
from ui.frame import SectionPage

ALL_CHAPTERS = ""
NOWHERE = "nowhere:"
X_SPACING, Y_SPACING = 150, 90
BOX = [128, 34]
TITLE_CHARS = 18
CHAPTER_COLOURS = ["#3a6ea5", "#5b8c5a", "#a5673f", "#7a5195", "#2a9d8f", "#bc5090", "#8d6e63", "#546e7a"]
PROBLEM_RED = "#c10015"
CURRENT_BLUE = "#ffb300"
# Tooltips are made in the browser from each node's and arrow's data (the chapters' names come
# with the function), every text escaped: titles and labels are the author's words, never markup.
TOOLTIP = """(p) => {
  const chapters = __CHAPTERS__;
  const esc = (s) => String(s ?? "").replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
  const d = p.data || {};
  if (p.dataType === "edge") return d.label ? esc(d.label) : "This choice leads nowhere.";
  if (d.tip) return esc(d.tip);
  const parts = [`<b>${esc(d.title)}</b>`, esc(chapters[d.category])];
  for (const mark of d.marks || []) parts.push(`⚠ ${esc(mark)}`);
  return parts.filter(Boolean).join("<br>");
}"""


@dataclass(frozen=True)
class Mapped:
    project: ProjectRecord
    story_map: StoryMap


async def page(ctx: PageContext, project_id: str, scene: str | None = None) -> None:
    ctx.place.enter(urls.story_map(project_id), "map", project_id=project_id)
    await _MapPage(ctx, project_id, scene if isinstance(scene, str) and len(scene) < 100 else None).open()


class _MapPage(SectionPage[Mapped]):
    nav = "map"
    heading = "Map"

    def __init__(self, ctx: PageContext, project_id: str, highlighted: str | None) -> None:
        super().__init__(ctx, project_id)
        self.highlighted = highlighted
        self.chapter = ALL_CHAPTERS

    async def load(self) -> Mapped:
        actor = self.ctx.actor
        project = await self.services.projects.get_project(actor, self.project_id)
        return Mapped(project, await self.services.reads.story_map(actor, self.project_id))

    def key(self, loaded: Mapped) -> object:
        return (loaded.story_map, self.chapter)

    def build(self, loaded: Mapped) -> None:
        with ui.row().classes("w-full items-center gap-4"):
            ui.label("Story map").classes("text-h5")
            options = {ALL_CHAPTERS: "All chapters", **dict(loaded.story_map.chapters)}
            ui.select(options, value=ALL_CHAPTERS, label="Chapter", on_change=self._filter).props(
                "dense outlined"
            ).classes("w-64")
            ui.label("Drag to pan, scroll to zoom, click a scene to open it.").classes(
                "text-caption text-grey-7"
            )
        super().build(loaded)

    def draw(self, loaded: Mapped) -> None:
        MapChart(
            chart_options(loaded.story_map, self.chapter, self.highlighted), on_point_click=self._open
        ).classes("w-full").style("height: 72vh").props('data-testid="story-map"')
        scenes = [n for n in loaded.story_map.nodes if self.chapter in (ALL_CHAPTERS, n.chapter_id)]
        marked = sum(1 for n in scenes if n.serious)
        summary = f"{len(scenes)} scenes" + (f", {marked} marked with a problem" if marked else "")
        ui.label(summary + ".").classes("text-caption").props('role="status" data-testid="map-summary"')

    async def _filter(self, event: object) -> None:
        self.chapter = str(getattr(event, "value", "") or ALL_CHAPTERS)
        if self.current is not None:
            self.show(self.current)

    def _open(self, event: EChartPointClickEventArguments) -> None:
        data: dict[str, object] = event.data if isinstance(event.data, dict) else {}
        scene_id = str(data.get("id", ""))
        if event.data_type == "node" and scene_id and not scene_id.startswith(NOWHERE):
            ui.navigate.to(urls.scene(self.project_id, scene_id))


class MapChart(ui.echart):
    """The map's chart, drawn once per set of options: a new map (a change, the chapter filter) is a
    new chart, its options are never changed in place.

    A page's sections are made after the browser has connected, so a chart arrives in an update
    message, and for an element with an update method NiceGUI's client calls it after mounting it;
    but the chart's own `mounted()` has already applied the options, so a long story's map was laid
    out and painted twice (0.5-0.6 s of the browser's time at 2,000 scenes, docs/performance.md).
    Without an update method, `mounted()` applies them once."""

    def __init__(
        self, options: dict[str, object], *, on_point_click: Handler[EChartPointClickEventArguments]
    ) -> None:
        super().__init__(options, on_point_click)
        self._update_method = None


def chart_options(story_map: StoryMap, chapter: str, current: str | None) -> dict[str, object]:
    """ECharts options of the map, kept to one chapter unless `chapter` is ALL_CHAPTERS.

    Lean per node (a long story sends thousands): the chapter's colour comes from its category,
    the tooltip is made in the browser (`TOOLTIP`), and only marked nodes carry a style of their own."""
    categories = [
        {"name": title, "itemStyle": {"color": CHAPTER_COLOURS[n % len(CHAPTER_COLOURS)]}}
        for n, (_, title) in enumerate(story_map.chapters)
    ]
    category = {chapter_id: n for n, (chapter_id, _) in enumerate(story_map.chapters)}
    shown = {n.scene_id: n for n in story_map.nodes if chapter in (ALL_CHAPTERS, n.chapter_id)}
    nodes = [_node(node, category.get(node.chapter_id, 0), current) for node in shown.values()]
    links: list[dict[str, object]] = []
    for n, arrow in enumerate(story_map.arrows):
        if arrow.source not in shown or (arrow.target is not None and arrow.target not in shown):
            continue
        target = arrow.target
        if target is None:
            target = f"{NOWHERE}{n}"
            source = shown[arrow.source]
            nodes.append(_nowhere(target, source.x * X_SPACING + 60, source.y * Y_SPACING + 50))
        links.append({"source": arrow.source, "target": target, "label": arrow.label, "value": 0})
    return {
        "animation": False,
        "tooltip": {
            "trigger": "item",
            ":formatter": TOOLTIP.replace(
                "__CHAPTERS__", json.dumps([title for _, title in story_map.chapters])
            ),
        },
        "series": [
            {
                "type": "graph",
                "layout": "none",
                "roam": True,
                "categories": categories,
                "data": nodes,
                "links": links,
                "symbol": "roundRect",
                "symbolSize": BOX,
                "itemStyle": {"borderColor": "#ffffff", "borderWidth": 1},
                "edgeSymbol": ["none", "arrow"],
                "edgeSymbolSize": 7,
                "lineStyle": {"color": "#90a4ae", "width": 1.2, "curveness": 0.12},
                "label": {"show": True, "color": "#ffffff", "fontSize": 11},
                "emphasis": {"focus": "adjacency"},
            }
        ],
    }


def _node(node: MapNode, category: int, current: str | None) -> dict[str, object]:
    label = ("▶ " if node.is_start else "") + ("⚠ " if node.serious else "") + _short(node.title)
    label += " ◼" if node.is_ending else ""
    entry: dict[str, object] = {
        "id": node.scene_id,
        "name": label,
        "title": node.title,
        # NiceGUI's point click reads a value; a graph's nodes and arrows have none of their own.
        "value": node.y,
        "x": round(node.x * X_SPACING),
        "y": round(node.y * Y_SPACING),
        "category": category,
    }
    if node.marks:
        entry["marks"] = list(node.marks)
    if node.scene_id == current or node.serious:
        colour = CURRENT_BLUE if node.scene_id == current else PROBLEM_RED
        entry["itemStyle"] = {"borderColor": colour, "borderWidth": 4}
    return entry


def _nowhere(node_id: str, x: float, y: float) -> dict[str, object]:
    return {
        "id": node_id,
        "name": "nowhere",
        "x": x,
        "y": y,
        "symbol": "circle",
        "symbolSize": 14,
        "value": 0,
        "itemStyle": {"color": PROBLEM_RED},
        "label": {"show": True, "position": "right", "color": PROBLEM_RED},
        "tip": "This choice leads nowhere.",
        "title": "nowhere",
    }


def _short(title: str) -> str:
    """Cut at a word, so a box's label fits; the tooltip has the whole title."""
    if len(title) <= TITLE_CHARS:
        return title
    cut = title[:TITLE_CHARS].rsplit(" ", 1)[0] or title[:TITLE_CHARS]
    return cut + "…"
