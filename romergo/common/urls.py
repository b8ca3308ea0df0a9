"""Every page path of Romergo, built in one place (CONTRACT.md §8 names them).

Pages, panel links, the tools' links and the check that a summary link stays inside Romergo all use
these functions, so a path changes here or nowhere. They return paths; `absolute` prefixes the
server's base URL for the places that hand a link outside the browser (tool results).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from urllib.parse import parse_qs, quote, unquote, urlencode, urlsplit

PROJECTS = "/projects"
AGENT_SETTINGS = "/settings/agents"
PEOPLE_SETTINGS = "/settings/people"
LOGIN = "/login"
CONSENT = "/oauth/consent"
INVITATIONS = "/invitations"

# Route patterns for the page router and the media routes: the same shapes as the builders below.
PROJECT_ROUTE = "/projects/{project_id}"
CHAPTER_ROUTE = PROJECT_ROUTE + "/chapters/{chapter_id}"
SCENE_ROUTE = PROJECT_ROUTE + "/scenes/{scene_id}"
CHARACTERS_ROUTE = PROJECT_ROUTE + "/characters"
VARIABLES_ROUTE = PROJECT_ROUTE + "/variables"
ASSETS_ROUTE = PROJECT_ROUTE + "/assets"
CHECK_ROUTE = PROJECT_ROUTE + "/check"
SEARCH_ROUTE = PROJECT_ROUTE + "/search"
MAP_ROUTE = PROJECT_ROUTE + "/map"
HISTORY_ROUTE = PROJECT_ROUTE + "/history"
MEMBERS_ROUTE = PROJECT_ROUTE + "/members"
PLAY_ROUTE = "/play/{project_id}"
PUBLISHED_ROUTE = "/published/{share_id}"
PUBLISHED_MEDIA_ROUTE = PUBLISHED_ROUTE + "/media/{asset_id}"
MEDIA_ROUTE = "/media/{asset_id}"
INVITATION_ROUTE = INVITATIONS + "/{secret}"


def project(project_id: str) -> str:
    return f"{PROJECTS}/{_part(project_id)}"


def invitation(secret: str) -> str:
    """An invitation's one-time link: whoever opens it signed in may join its story."""
    return f"{INVITATIONS}/{_part(secret)}"


def chapter(project_id: str, chapter_id: str) -> str:
    return f"{project(project_id)}/chapters/{_part(chapter_id)}"


def scene(project_id: str, scene_id: str) -> str:
    return f"{project(project_id)}/scenes/{_part(scene_id)}"


def characters(project_id: str) -> str:
    return f"{project(project_id)}/characters"


def assets(project_id: str) -> str:
    return f"{project(project_id)}/assets"


def check(project_id: str) -> str:
    return f"{project(project_id)}/check"


def story_map(project_id: str, scene_id: str | None = None) -> str:
    """The story map; with `scene_id`, that scene is highlighted."""
    path = f"{project(project_id)}/map"
    return f"{path}?{urlencode({'scene': scene_id})}" if scene_id else path


def search(project_id: str, query: str | None = None) -> str:
    """Find and replace; with `query`, the page opens with that search run."""
    path = f"{project(project_id)}/search"
    return f"{path}?{urlencode({'q': query})}" if query else path


def history(
    project_id: str, *, scene_id: str | None = None, agent: str | None = None, command_id: str | None = None
) -> str:
    """The project's history, narrowed to one scene, one agent (client id) or one command."""
    query = {"scene": scene_id, "agent": agent, "command": command_id}
    shown = urlencode({key: value for key, value in query.items() if value})
    return f"{project(project_id)}/history" + (f"?{shown}" if shown else "")


def entity(project_id: str, entity_type: str, entity_id: str) -> str | None:
    """The page that shows an entity, or None when it has no page of its own."""
    if entity_type == "project":
        return project(project_id)
    if entity_type == "chapter":
        return chapter(project_id, entity_id)
    if entity_type == "scene":
        return scene(project_id, entity_id)
    if entity_type == "character":
        return characters(project_id)
    if entity_type == "asset":
        return assets(project_id)
    if entity_type == "variable":
        return variables(project_id)
    return None


def members(project_id: str) -> str:
    return f"{project(project_id)}/members"


def variables(project_id: str) -> str:
    return f"{project(project_id)}/variables"


def play(project_id: str, scene_id: str | None = None) -> str:
    path = f"/play/{_part(project_id)}"
    return f"{path}?{urlencode({'scene': scene_id})}" if scene_id else path


def published(share_id: str) -> str:
    return f"/published/{_part(share_id)}"


def published_media(share_id: str, asset_id: str) -> str:
    return f"{published(share_id)}/media/{_part(asset_id)}"


def media(asset_id: str) -> str:
    return f"/media/{_part(asset_id)}"


def login(next_path: str | None = None) -> str:
    """The sign-in page; after signing in the browser goes on to `next_path`."""
    return f"{LOGIN}?next={quote(next_path, safe='/')}" if next_path else LOGIN


def consent(request_id: str) -> str:
    """The consent page for one pending agent authorization request."""
    return f"{CONSENT}?request={quote(request_id, safe='')}"


def absolute(base_url: str, path: str) -> str:
    return base_url.rstrip("/") + path


def is_internal(url: object) -> bool:
    """A path on this server (where sign-in may send the browser on to). Anything else is refused."""
    return same_origin_path(url) is not None


def same_origin_path(url: object) -> str | None:
    """`url` if a browser resolves it to a path on this server, else None.

    Browsers drop tabs and newlines inside a URL and read `\\` as `/`, so `/\t/evil.example`
    and `/\\evil.example` open another host: any control character, whitespace or backslash
    refuses the URL, as does a scheme, a host or a leading `//`.
    """
    if not isinstance(url, str) or not url.startswith("/") or url.startswith("//"):
        return None
    if _UNSAFE.search(url):
        return None
    parts = urlsplit(url)
    return url if not parts.scheme and not parts.netloc else None


def page_link(url: object) -> str | None:
    """The Romergo page `url` opens, rebuilt by the builders above; None for anything else.

    What a summary link may be (CONTRACT.md §2.4): the panel renders only the rebuilt path, so
    nothing of the agent's string but the ids reaches the page, and those quoted.
    """
    path = same_origin_path(url)
    if path is None:
        return None
    parts = urlsplit(path)
    for pattern, build in _PAGES:
        found = pattern.fullmatch(parts.path)
        if found is not None:
            ids = [unquote(value) for value in found.groups()]
            if build is play:
                scene_ids = parse_qs(parts.query).get("scene", [])
                return play(ids[0], scene_ids[0] if len(scene_ids) == 1 else None)
            return build(*ids)
    return None


def _part(value: str) -> str:
    # Ids are generated (no slashes); quoting keeps a hand-typed or hostile id from changing the path.
    return quote(value, safe="")


_UNSAFE = re.compile(r"[\x00-\x20\x7f\\]")


def _pattern(route: str) -> re.Pattern[str]:
    return re.compile(re.sub(r"\\\{[a-z_]+\\\}", "([^/]+)", re.escape(route)))


_PAGES: list[tuple[re.Pattern[str], Callable[..., str]]] = [
    (_pattern(PROJECTS), lambda: PROJECTS),
    (_pattern(AGENT_SETTINGS), lambda: AGENT_SETTINGS),
    (_pattern(PEOPLE_SETTINGS), lambda: PEOPLE_SETTINGS),
    (_pattern(PROJECT_ROUTE), project),
    (_pattern(CHAPTER_ROUTE), chapter),
    (_pattern(SCENE_ROUTE), scene),
    (_pattern(CHARACTERS_ROUTE), characters),
    (_pattern(VARIABLES_ROUTE), variables),
    (_pattern(ASSETS_ROUTE), assets),
    (_pattern(CHECK_ROUTE), check),
    (_pattern(SEARCH_ROUTE), search),
    (_pattern(MAP_ROUTE), story_map),
    (_pattern(HISTORY_ROUTE), history),
    (_pattern(MEMBERS_ROUTE), members),
    (_pattern(PLAY_ROUTE), play),
    (_pattern(PUBLISHED_ROUTE), published),
]
"""Every page a link may open, with the builder that makes its path."""
