"""Settings: every default of CONTRACT.md §9, each overridable by its environment variable.

Built once in `app.py` and passed to the services; nothing reads the environment elsewhere.
"""

from __future__ import annotations

import ipaddress
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

MIB = 1024 * 1024
MAX_AGENT_BODY = 5 * MIB
"""Request bodies where agents and OAuth clients post: `/mcp`, `/token`, `/register` (CONTRACT.md §5)."""
"""Bytes in a mebibyte: every size limit is set in MB and checked in bytes."""


MCP_PATH = "/mcp"
"""Where agents reach the MCP endpoint; `{base_url}/mcp` is the audience of every OAuth token."""

LONGEST_HEARTBEAT_SECONDS = 50
"""A parked wait's progress notifications come at least this often: the longest wait without them
(`channels.waiting.MAX_WAIT`) is the silence every client already takes."""


@dataclass(frozen=True)
class Limits:
    max_title_chars: int = 200
    max_line_chars: int = 2000
    max_image_mb: int = 10
    max_audio_mb: int = 20
    # The MCP import tool carries base64 inside a JSON body, so it has a lower bound of its own.
    max_tool_import_mb: int = 3

    @property
    def max_image_bytes(self) -> int:
        return self.max_image_mb * MIB

    @property
    def max_audio_bytes(self) -> int:
        return self.max_audio_mb * MIB


@dataclass(frozen=True)
class Settings:
    data_dir: Path = Path("data")
    database_url: str | None = None
    host: str = "127.0.0.1"
    port: int = 8080
    public_url: str | None = None
    limits: Limits = field(default_factory=Limits)
    channel_ttl_hours: int = 12
    join_code_minutes: int = 15
    command_lease_seconds: int = 600
    confirmation_ttl_seconds: int = 300
    access_token_minutes: int = 60
    refresh_token_days: int = 30
    rate_limit_per_minute: int = 120
    max_waits_per_client: int = 20
    registrations_per_minute: int = 20
    heartbeat_seconds: int = 10
    """How often a parked call sends a progress notification to a client that asked for them."""
    request_head_seconds: int = 10
    """How long a request head may take to arrive; a body must keep pace within the same window."""
    connections_per_address: int = 256
    """Open connections from one client address (trusted proxies are held only to the total cap)."""
    allowed_hosts: tuple[str, ...] = ()
    """Extra `Host` values every route accepts besides the public URL's and loopback ones."""
    trusted_proxies: tuple[str, ...] = ()
    """Peers whose `X-Forwarded-For` / `-Proto` are believed (addresses or networks); none by default,
    so a client cannot pick its own address (and with it a fresh rate limit) by sending a header."""
    cimd_allow_private: bool = False
    """Fetch agents' client metadata documents from private and loopback addresses, and over
    plain http on loopback: for developing an agent on this machine, never in production."""
    signin_link_minutes: int = 15
    session_idle_hours: int = 24 * 7
    session_absolute_days: int = 30
    instances: str | None = None
    """`one` or `many` (`ROMERGO_INSTANCES`); unset: `many` on PostgreSQL, `one` on SQLite."""

    @property
    def resolved_database_url(self) -> str:
        return self.database_url or f"sqlite+aiosqlite:///{(self.data_dir / 'romergo.db').resolve()}"

    @property
    def many_instances(self) -> bool:
        """Several processes share the database: MCP is served stateless (any instance answers any
        call) and rate limits are counted in the database. Single-process SQLite keeps both local."""
        if self.instances is not None:
            return self.instances == "many"
        return not self.resolved_database_url.startswith("sqlite")

    @property
    def base_url(self) -> str:
        """Where browsers and agents reach this server; the OAuth issuer and resource base."""
        if self.public_url:
            return self.public_url.rstrip("/")
        host = "127.0.0.1" if self.host in ("0.0.0.0", "::") else self.host  # noqa: S104 - compared, not bound
        if ":" in host:
            host = f"[{host}]"
        return f"http://{host}:{self.port}"

    @property
    def mcp_url(self) -> str:
        """The MCP endpoint's URL: the resource indicator (audience) of OAuth tokens."""
        return f"{self.base_url}{MCP_PATH}"


def settings_from_env(
    env: Mapping[str, str] | None = None,
    *,
    data_dir: str | Path | None = None,
    host: str | None = None,
    port: int | None = None,
    public_url: str | None = None,
) -> Settings:
    """Explicit arguments (CLI flags) win over the environment, which wins over the defaults."""
    env = os.environ if env is None else env

    def number(name: str, default: int) -> int:
        raw = env.get(name)
        if raw is None or raw.strip() == "":
            return default
        try:
            value = int(raw)
        except ValueError:
            raise ValueError(f"{name} must be a whole number, got {raw!r}") from None
        if value <= 0:
            raise ValueError(f"{name} must be positive, got {value}")
        return value

    defaults = Settings()
    limits = Limits(
        max_title_chars=number("ROMERGO_MAX_TITLE_CHARS", Limits.max_title_chars),
        max_line_chars=number("ROMERGO_MAX_LINE_CHARS", Limits.max_line_chars),
        max_image_mb=number("ROMERGO_MAX_IMAGE_MB", Limits.max_image_mb),
        max_audio_mb=number("ROMERGO_MAX_AUDIO_MB", Limits.max_audio_mb),
    )
    return Settings(
        data_dir=Path(data_dir or env.get("ROMERGO_DATA_DIR") or defaults.data_dir),
        database_url=env.get("ROMERGO_DATABASE_URL") or None,
        host=host or defaults.host,
        port=_port(defaults.port if port is None else port),
        public_url=_public_url(public_url or env.get("ROMERGO_PUBLIC_URL") or None),
        limits=limits,
        channel_ttl_hours=number("ROMERGO_CHANNEL_TTL_HOURS", defaults.channel_ttl_hours),
        join_code_minutes=number("ROMERGO_JOIN_CODE_MINUTES", defaults.join_code_minutes),
        command_lease_seconds=number("ROMERGO_COMMAND_LEASE_SECONDS", defaults.command_lease_seconds),
        confirmation_ttl_seconds=number(
            "ROMERGO_CONFIRMATION_TTL_SECONDS", defaults.confirmation_ttl_seconds
        ),
        access_token_minutes=number("ROMERGO_ACCESS_TOKEN_MINUTES", defaults.access_token_minutes),
        refresh_token_days=number("ROMERGO_REFRESH_TOKEN_DAYS", defaults.refresh_token_days),
        rate_limit_per_minute=number("ROMERGO_RATE_LIMIT_PER_MINUTE", defaults.rate_limit_per_minute),
        max_waits_per_client=number("ROMERGO_MAX_WAITS_PER_CLIENT", defaults.max_waits_per_client),
        registrations_per_minute=number(
            "ROMERGO_REGISTRATIONS_PER_MINUTE", defaults.registrations_per_minute
        ),
        heartbeat_seconds=_heartbeat(number("ROMERGO_HEARTBEAT_SECONDS", defaults.heartbeat_seconds)),
        request_head_seconds=number("ROMERGO_REQUEST_HEAD_SECONDS", defaults.request_head_seconds),
        connections_per_address=number("ROMERGO_CONNECTIONS_PER_ADDRESS", defaults.connections_per_address),
        allowed_hosts=_hosts(env.get("ROMERGO_ALLOWED_HOSTS", "")),
        trusted_proxies=_networks(env.get("ROMERGO_TRUSTED_PROXIES", "")),
        cimd_allow_private=_flag("ROMERGO_CIMD_ALLOW_PRIVATE", env.get("ROMERGO_CIMD_ALLOW_PRIVATE", "")),
        instances=_instances(env.get("ROMERGO_INSTANCES", ""), env.get("ROMERGO_DATABASE_URL") or ""),
    )


def _heartbeat(seconds: int) -> int:
    """`ROMERGO_HEARTBEAT_SECONDS`: a longer silence than a plain wait's would let clients cut the
    kept-alive waits the notifications exist for."""
    if seconds > LONGEST_HEARTBEAT_SECONDS:
        raise ValueError(
            f"ROMERGO_HEARTBEAT_SECONDS must be at most {LONGEST_HEARTBEAT_SECONDS}, got {seconds}"
        )
    return seconds


def _public_url(raw: str | None) -> str | None:
    """The OAuth issuer and token audience base: `http(s)://host[:port]`, nothing else."""
    if raw is None:
        return None
    parts = urlsplit(raw.strip())
    if (
        parts.scheme not in ("http", "https")
        or not parts.hostname
        or "@" in parts.netloc
        or parts.path not in ("", "/")
        or parts.query
        or parts.fragment
    ):
        raise ValueError(
            "ROMERGO_PUBLIC_URL (--public-url) must look like https://host[:port], without a path; "
            f"got {raw!r}"
        )
    return raw.strip()


def _instances(raw: str, database_url: str) -> str | None:
    """`ROMERGO_INSTANCES`: `one`, `many`, or unset (decided by the database URL)."""
    value = raw.strip().lower()
    if value == "":
        return None
    if value not in ("one", "many"):
        raise ValueError(f"ROMERGO_INSTANCES must be one or many, got {raw!r}")
    if value == "many" and not database_url.startswith("postgresql"):
        raise ValueError(
            "ROMERGO_INSTANCES=many needs PostgreSQL (ROMERGO_DATABASE_URL=postgresql+asyncpg://...): "
            "instances on one SQLite file would not see each other's wake-ups"
        )
    return value


def _flag(name: str, raw: str) -> bool:
    value = raw.strip().lower()
    if value not in ("", "0", "1", "true", "false", "yes", "no"):
        raise ValueError(f"{name} must be 1 or 0 (true or false), got {raw!r}")
    return value in ("1", "true", "yes")


def _hosts(raw: str) -> tuple[str, ...]:
    """`ROMERGO_ALLOWED_HOSTS`: comma-separated `host` or `host:port` values (`host:*` for any port)."""
    hosts = tuple(item.strip().lower() for item in raw.split(",") if item.strip())
    for host in hosts:
        if "/" in host or "@" in host or " " in host:
            raise ValueError(f"ROMERGO_ALLOWED_HOSTS takes host or host:port values, got {host!r}")
    return hosts


def _networks(raw: str) -> tuple[str, ...]:
    """`ROMERGO_TRUSTED_PROXIES`: comma-separated addresses or networks (`10.0.0.5`, `10.0.0.0/24`)."""
    networks = tuple(item.strip() for item in raw.split(",") if item.strip())
    for network in networks:
        try:
            ipaddress.ip_network(network, strict=False)
        except ValueError:
            raise ValueError(
                f"ROMERGO_TRUSTED_PROXIES takes IP addresses or networks, got {network!r}"
            ) from None
    return networks


def _port(port: int) -> int:
    if not 0 <= port <= 65535:
        raise ValueError(f"--port must be from 0 (any free port) to 65535, got {port}")
    return port
