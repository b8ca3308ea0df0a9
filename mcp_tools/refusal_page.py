"""The page a person sees instead of a redirect when a connection request cannot be used.

When the agent names itself by the URL of a metadata document this server could not fetch (often:
the server has no internet access, and Claude Code and Codex name themselves so by default), the
page also says the two ways on: an administrator trusts the document from a file, or the agent
registers itself with this server instead (dynamic client registration), with each harness's words.
"""

from __future__ import annotations

import html

from starlette.responses import HTMLResponse, Response

NO_STORE = {"Cache-Control": "no-store", "Pragma": "no-cache"}


def refusal_page(
    reason: str, *, status: int = 400, retry_after: int | None = None, unreachable_document: str | None = None
) -> Response:
    """`unreachable_document`: the client_id URL whose document could not be fetched, if that is why."""
    help_text = _unreachable_document_help(unreachable_document) if unreachable_document is not None else ""
    page = f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Connection refused · Romergo</title>
<meta name="viewport" content="width=device-width, initial-scale=1"></head>
<body style="font-family: system-ui, sans-serif; max-width: 40rem; margin: 4rem auto; padding: 0 1rem">
<h1 role="alert">This connection request cannot be used</h1>
<p>{html.escape(reason)}</p>
{help_text}<p>Nothing was sent back to the agent. Start connecting again from your agent.</p>
</body></html>"""
    headers = dict(NO_STORE) if retry_after is None else {**NO_STORE, "Retry-After": str(retry_after)}
    return HTMLResponse(page, status_code=status, headers=headers)


def _unreachable_document_help(url: str) -> str:
    shown = html.escape(url)
    return f"""<h2>What to do</h2>
<p>The agent names itself by the URL of its metadata document, <code>{shown}</code>, which this
server could not fetch (a server without internet access cannot). Either:</p>
<ul>
<li><strong>An administrator trusts the document from a file.</strong> Download it where the
internet is reachable, copy it to the server and run
<code>romergo client trust {shown} --document client.json</code>. Romergo then uses that file
for this agent and never fetches the URL.</li>
<li><strong>Or the agent registers itself with this server</strong> (dynamic client registration).
Codex: <code>codex mcp login romergo --oauth-client-registration dcr</code>. Claude Code: register
a client at this server's <code>/register</code> endpoint with the redirect URI
<code>http://localhost:PORT/callback</code>, add the server with
<code>claude mcp add --transport http --client-id ID --callback-port PORT romergo URL</code>,
then run <code>claude mcp login romergo</code>.</li>
</ul>
"""
