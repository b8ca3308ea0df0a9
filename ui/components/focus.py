"""Give the keyboard focus back after a redraw, so Alt+arrow moves can be repeated."""

from __future__ import annotations

import json

from nicegui import ui


def focus_soon(selector: str) -> None:
    """Focus the element matching `selector` once Vue has rendered it (it arrives a moment later)."""
    ui.run_javascript(
        "(() => { let tries = 0; const go = () => {"
        f" const el = document.querySelector({json.dumps(selector)});"
        " if (el) el.focus(); else if (tries++ < 40) setTimeout(go, 25); }; go(); })()"
    )
