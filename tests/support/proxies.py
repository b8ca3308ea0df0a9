"""The reverse-proxy examples of `deploy/`, run for real in front of two instances.

Each example is rendered for the test by exact replacements of its placeholders (the site name, the
instances' addresses, the listening ports, the certificate), each of which must be found: an
example that changes shape fails here instead of being tested in a form nobody ships.
The proxy logs which instance served each request, so a test can tell stickiness from spreading.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from tests.support.server import ROOT
from tests.support.tls import Certificates

NGINX_EXAMPLE = ROOT / "deploy" / "nginx" / "romergo.conf"
CADDY_EXAMPLE = ROOT / "deploy" / "caddy" / "Caddyfile"
SITE = "stories.example.org"
EXAMPLE_INSTANCES = ("127.0.0.1:8081", "127.0.0.1:8082")


@dataclass(frozen=True)
class Served:
    method: str
    path: str
    status: int
    upstream: str


@dataclass
class Proxy:
    url: str
    access_log: Path
    kind: str

    def served(self) -> list[Served]:
        """Every request so far: which instance (`host:port`) answered it."""
        lines = self.access_log.read_text().splitlines() if self.access_log.exists() else []
        if self.kind == "nginx":
            return [
                Served(m, path, int(status), upstream) for m, path, status, upstream in map(str.split, lines)
            ]
        return [_caddy_served(json.loads(line)) for line in lines]


def free_port() -> int:
    """A port free right now (the proxy's address must be known before the instances start, as
    their public URL)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def render(example: str, replacements: dict[str, str]) -> str:
    for placeholder, value in replacements.items():
        assert placeholder in example, f"the example no longer has {placeholder!r}"
        example = example.replace(placeholder, value)
    return example


@contextmanager
def nginx(
    workdir: Path, port: int, instances: tuple[int, int], certificates: Certificates
) -> Iterator[Proxy]:
    """deploy/nginx/romergo.conf with TLS on `port`, in front of the instances on these ports."""
    binary = shutil.which("nginx") or "/usr/sbin/nginx"
    assert os.path.exists(binary), "Debian's nginx is required: scripts/test installs it"
    workdir.mkdir(parents=True, exist_ok=True)
    site = render(
        NGINX_EXAMPLE.read_text(),
        {
            f"/etc/letsencrypt/live/{SITE}/fullchain.pem": str(certificates.certificate),
            f"/etc/letsencrypt/live/{SITE}/privkey.pem": str(certificates.key),
            f"server_name {SITE};": "server_name 127.0.0.1;",
            "listen 443 ssl http2;": f"listen 127.0.0.1:{port} ssl http2;",
            "listen 80;": f"listen 127.0.0.1:{free_port()};",
            f"server {EXAMPLE_INSTANCES[0]};": f"server 127.0.0.1:{instances[0]};",
            f"server {EXAMPLE_INSTANCES[1]};": f"server 127.0.0.1:{instances[1]};",
        },
    )
    (workdir / "romergo.conf").write_text(site)
    access_log = workdir / "access.log"
    # One worker: its round robin then alternates strictly, which the tests rely on.
    (workdir / "nginx.conf").write_text(
        f"""
daemon off;
worker_processes 1;
{"user root;" if os.geteuid() == 0 else ""}
pid {workdir}/nginx.pid;
error_log {workdir}/error.log warn;
events {{ worker_connections 512; }}
http {{
    log_format served '$request_method $uri $status $upstream_addr';
    access_log {access_log} served;
    client_body_temp_path {workdir}/body;
    proxy_temp_path {workdir}/proxy;
    fastcgi_temp_path {workdir}/fastcgi;
    uwsgi_temp_path {workdir}/uwsgi;
    scgi_temp_path {workdir}/scgi;
    include {workdir}/romergo.conf;
}}
"""
    )
    command = [
        binary,
        "-p",
        str(workdir),
        "-c",
        str(workdir / "nginx.conf"),
        "-e",
        str(workdir / "start.log"),
    ]
    checked = subprocess.run([*command, "-t"], capture_output=True, text=True)
    assert checked.returncode == 0, checked.stderr
    with _running(command, workdir, port):
        yield Proxy(f"https://127.0.0.1:{port}", access_log, "nginx")


@contextmanager
def caddy(
    workdir: Path, port: int, instances: tuple[int, int], certificates: Certificates
) -> Iterator[Proxy]:
    """deploy/caddy/Caddyfile with TLS on `port` (the test's certificate instead of one from an
    ACME authority), in front of the instances on these ports."""
    binary = shutil.which("caddy") or "/usr/bin/caddy"
    assert os.path.exists(binary), "Debian's caddy is required: scripts/test installs it"
    workdir.mkdir(parents=True, exist_ok=True)
    access_log = workdir / "access.log"
    example_upstreams = " ".join(EXAMPLE_INSTANCES)
    # Caddy names the instance that answered in a response header, which its access log keeps.
    served_by = "\n\t\t\theader_down X-Served-By {http.reverse_proxy.upstream.hostport}"
    site = render(
        CADDY_EXAMPLE.read_text(),
        {
            f"{SITE} {{": (
                f"https://127.0.0.1:{port} {{\n\ttls {certificates.certificate} {certificates.key}"
                f"\n\tlog {{\n\t\toutput file {access_log}\n\t\tformat json\n\t}}"
            ),
            f"reverse_proxy {example_upstreams} {{": (
                f"reverse_proxy 127.0.0.1:{instances[0]} 127.0.0.1:{instances[1]} {{{served_by}"
            ),
        },
    )
    # No admin endpoint (parallel runs would share its port), no redirect listener on port 80.
    options = "{\n\tadmin off\n\tauto_https disable_redirects\n\tskip_install_trust\n}\n"
    (workdir / "Caddyfile").write_text(options + site)
    env = {**os.environ, "XDG_DATA_HOME": str(workdir / "data"), "XDG_CONFIG_HOME": str(workdir / "config")}
    command = [binary, "run", "--config", str(workdir / "Caddyfile"), "--adapter", "caddyfile"]
    with _running(command, workdir, port, env):
        yield Proxy(f"https://127.0.0.1:{port}", access_log, "caddy")


def _caddy_served(entry: dict[str, object]) -> Served:
    request = entry["request"]
    assert isinstance(request, dict)
    headers = entry.get("resp_headers") or {}
    assert isinstance(headers, dict)
    upstream = (headers.get("X-Served-By") or ["-"])[0]
    path = str(request["uri"]).split("?", 1)[0]
    return Served(str(request["method"]), path, int(str(entry["status"])), upstream)


@contextmanager
def _running(
    command: list[str], workdir: Path, port: int, env: dict[str, str] | None = None
) -> Iterator[None]:
    """The proxy, from when it listens on `port` until the block ends. Its output goes to a file:
    a pipe nobody reads would stall a chatty proxy once it is full."""
    output = workdir / "output.log"
    with output.open("wb") as sink:
        process = subprocess.Popen(command, stdout=sink, stderr=subprocess.STDOUT, env=env)
    try:
        _until_listening(port, process, output)
        yield
    finally:
        process.terminate()
        process.wait(10)


def _until_listening(port: int, process: subprocess.Popen[bytes], output: Path, timeout: float = 10) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"the proxy exited:\n{output.read_text(errors='replace')}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return
        except OSError:
            time.sleep(0.05)  # polling a port that is not open yet: nothing to wait on instead
    raise RuntimeError(f"the proxy did not listen on {port} within {timeout} s")
