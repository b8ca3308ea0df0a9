"""The tab's current text selection inside a dialogue line, reported by a small browser script.

Any element with `data-line-id` holds a line's text (a label, or the textarea while the line is
being edited). The script watches `selectionchange` and reports
`{entity_type: "dialogue_line", entity_id, start, end, text}` with offsets in Unicode code points
(JavaScript counts UTF-16 code units, so it converts). What it sends is untrusted: the server keeps
it only for a line on screen, and takes the text from the line itself where it can.

Rules: a new selection inside one line replaces the current one; a selection elsewhere on the page
clears it; a collapsed selection (a click, focus moving into another input, e.g. the agent panel's)
keeps it, so the author can select, then type a command about it.
"""

from __future__ import annotations

from typing import Any, TypeGuard

from nicegui import ui
from nicegui.events import GenericEventArguments

from ui.place import Place, Selection

EVENT = "romergo_selection"
MAX_SELECTION_CHARS = 10_000

SCRIPT = """
<script>
(() => {
  if (window.romergoSelection) return;
  const points = (text) => Array.from(text).length;
  const lineOf = (node) => {
    const element = node && (node.nodeType === 1 ? node : node.parentElement);
    return element ? element.closest("[data-line-id]") : null;
  };
  const inInput = (input) => {
    const line = input.closest("[data-line-id]");
    const from = input.selectionStart, to = input.selectionEnd;
    if (!line || from === null || from === to) return undefined;
    const value = input.value;
    return {
      entity_type: "dialogue_line", entity_id: line.dataset.lineId,
      start: points(value.slice(0, from)), end: points(value.slice(0, to)), text: value.slice(from, to),
    };
  };
  const read = () => {
    const active = document.activeElement;
    const field = active && (active.tagName === "TEXTAREA" || active.tagName === "INPUT");
    if (field && active.closest("[data-line-id]")) return inInput(active);
    const selection = document.getSelection();
    if (!selection || selection.rangeCount === 0 || selection.isCollapsed) return undefined;
    const range = selection.getRangeAt(0);
    const line = lineOf(range.startContainer);
    if (!line || line !== lineOf(range.endContainer)) return null;
    const before = document.createRange();
    before.selectNodeContents(line);
    before.setEnd(range.startContainer, range.startOffset);
    const start = points(before.toString());
    const text = range.toString();
    const end = start + points(text);
    return { entity_type: "dialogue_line", entity_id: line.dataset.lineId, start, end, text };
  };
  // What the current selection means: a report, null (clear it) or undefined (keep it). Exposed so
  // the rule can be checked in a browser without waiting on the debounce.
  window.romergoSelection = { read };
  let timer = null, last = "";
  document.addEventListener("selectionchange", () => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      const found = read();
      if (found === undefined) return;
      const key = JSON.stringify(found);
      if (key === last) return;
      last = key;
      emitEvent("__EVENT__", found);
    }, 120);
  });
})();
</script>
""".replace("__EVENT__", EVENT)


def track_selection(place: Place) -> None:
    """Install the script in this tab and keep `place.selection` up to date."""
    ui.add_body_html(SCRIPT)
    ui.on(EVENT, lambda event: _update(place, event))


def _update(place: Place, event: GenericEventArguments) -> None:
    place.selection = parse(place, event.args)


def parse(place: Place, reported: Any) -> Selection | None:
    """A checked selection, or None (cleared) for anything that is not a line on screen."""
    fields = _fields(reported)
    if fields is None or fields[0] not in place.selectable:
        return None
    line_id, start, end, text = fields
    matches = place.selectable[line_id][start:end] == text
    # The line is being edited: the draft in the textarea is not saved yet, so trust the shape only.
    in_draft = len(text) == end - start and len(text) <= MAX_SELECTION_CHARS
    return Selection("dialogue_line", line_id, start, end, text) if matches or in_draft else None


def _fields(reported: Any) -> tuple[str, int, int, str] | None:
    """The reported line id, offsets and text, when each has its type and the offsets make a range."""
    if not isinstance(reported, dict) or reported.get("entity_type") != "dialogue_line":
        return None
    line_id, start, end, text = (reported.get(k) for k in ("entity_id", "start", "end", "text"))
    if not isinstance(line_id, str) or not isinstance(text, str):
        return None
    if not (_offset(start) and _offset(end) and start < end):
        return None
    return line_id, start, end, text


def _offset(value: object) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0
