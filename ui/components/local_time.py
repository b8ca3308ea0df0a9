"""Times in the author's own clock: the server knows only UTC, the browser knows where the author is.

`local_time(moment)` puts a `<time>` element with the UTC moment; a small script in the page (added
once per tab by `install_local_times`) writes it in the browser's time zone: "3 minutes ago" for
the last hour, "today 14:05" or "yesterday 09:12", else the date and time. The full local time is
in its tooltip. It keeps up with elements NiceGUI adds later (looking only inside what was added),
and refreshes the relative ones each minute.
"""

from __future__ import annotations

from datetime import datetime
from html import escape

from nicegui import ui

from romergo.common.clock import iso

SCRIPT = """
<script>
(() => {
  const minute = 60 * 1000;
  const relative = new Intl.RelativeTimeFormat(undefined, { numeric: "auto" });
  const clock = new Intl.DateTimeFormat(undefined, { hour: "2-digit", minute: "2-digit" });
  const full = new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "short" });
  const sameDay = (a, b) => a.toDateString() === b.toDateString();
  function shown(moment, now) {
    const ago = now - moment;
    if (ago >= 0 && ago < minute) return "just now";
    if (ago >= 0 && ago < 60 * minute) return relative.format(-Math.round(ago / minute), "minute");
    if (sameDay(moment, now)) return "today " + clock.format(moment);
    const yesterday = new Date(now - 24 * 60 * minute);
    if (sameDay(moment, yesterday)) return "yesterday " + clock.format(moment);
    return full.format(moment);
  }
  function render(root) {
    const now = new Date();
    for (const element of root.querySelectorAll("time[data-local]")) {
      const moment = new Date(element.getAttribute("datetime"));
      if (isNaN(moment)) continue;
      const text = shown(moment, now);
      // Only when it differs: each write is itself a mutation the observer would see again.
      if (element.textContent !== text) element.textContent = text;
      if (element.title !== full.format(moment)) element.title = full.format(moment);
    }
  }
  // Only what was added is searched: the panel and long story lists change all the time, and a
  // whole-document search on each change would cost every tab for the Agents page's few times.
  new MutationObserver((records) => {
    for (const record of records) {
      for (const node of record.addedNodes) {
        if (node.nodeType !== Node.ELEMENT_NODE) continue;
        if (node.matches("time[data-local]")) render(node.parentElement || node);
        else if (node.querySelector("time[data-local]")) render(node);
      }
    }
  }).observe(document.body, { childList: true, subtree: true });
  setInterval(() => render(document), minute);
  render(document);
})();
</script>
"""


def install_local_times() -> None:
    ui.add_body_html(SCRIPT)


def local_time(moment: datetime | None, *, never: str = "never") -> ui.html:
    """The moment as a `<time>` the page writes in the author's clock (UTC until the script runs)."""
    if moment is None:
        return ui.html(escape(never), sanitize=False, tag="span")
    stamp = iso(moment) or ""
    element = f'<time data-local datetime="{escape(stamp)}">{escape(stamp)}</time>'
    return ui.html(element, sanitize=False, tag="span")
