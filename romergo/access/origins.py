"""Which `Host` and `Origin` values this server answers: one list for every route and for `/mcp`.

The public URL's host (or the bound address), every loopback spelling on any port (a browser or an
agent on this machine may say `localhost`, `127.0.0.1` or `[::1]`), and `ROMERGO_ALLOWED_HOSTS`.
Anything else is a DNS-rebinding attempt: 421 for the Host, 403 for the Origin.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from romergo.common.config import Settings

LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "[::1]")


def allowed_hosts(settings: Settings) -> list[str]:
    """Patterns: `host` (no port), `host:port`, or `host:*` (any port)."""
    hosts = [urlsplit(settings.base_url).netloc]
    for name in LOOPBACK_HOSTS:
        hosts += [name, f"{name}:*"]
    hosts += settings.allowed_hosts
    return list(dict.fromkeys(hosts))


def allowed_origins(settings: Settings) -> list[str]:
    """Patterns: `scheme://host[:port]` or `scheme://host:*`."""
    public = urlsplit(settings.base_url)
    origins = [f"{public.scheme}://{public.netloc}"]
    for name in LOOPBACK_HOSTS:
        origins += [f"http://{name}", f"http://{name}:*"]
    for extra in settings.allowed_hosts:
        origins += [f"http://{extra}", f"https://{extra}"]
    return list(dict.fromkeys(origins))
