"""A button that copies a text, on any origin.

The async Clipboard API exists only in a secure context (HTTPS or localhost). A team reaching
Romergo over plain HTTP on its own network would otherwise get no copy button at all (ui.code
hides its own) or one that says "Copied" while copying nothing (`ui.clipboard.write` fails
silently). So the browser tries the Clipboard API, falls back to selecting the text in a hidden
field and `document.execCommand("copy")`, and says which happened.
"""

from __future__ import annotations

import json

from nicegui import ui

COPY = """
(async (text) => {
  try {
    if (navigator.clipboard && window.isSecureContext) {
      await navigator.clipboard.writeText(text);
      return true;
    }
  } catch (error) {}
  const field = document.createElement("textarea");
  field.value = text;
  field.setAttribute("readonly", "");
  field.style.position = "fixed";
  field.style.opacity = "0";
  document.body.appendChild(field);
  field.select();
  let copied = false;
  try { copied = document.execCommand("copy"); } catch (error) {}
  field.remove();
  return copied;
})(%s)
"""
REFUSED = "This browser did not let Romergo copy: select the text and press Ctrl+C."


def copy_button(text: str, label: str) -> ui.button:
    async def copy() -> None:
        copied = await ui.run_javascript(COPY % json.dumps(text))
        if copied is True:
            ui.notify("Copied", type="positive", timeout=1000)
        else:
            ui.notify(
                "This browser did not let Romergo copy: select the text and press Ctrl+C.", type="warning"
            )

    return ui.button(icon="content_copy", on_click=copy).props(
        f'flat round dense aria-label="{label}" title="{label}"'
    )
