"""A real Romergo server in a subprocess: what browser and HTTP tests talk to.

The child gets a clean environment (no PYTEST*/NICEGUI* variables: NiceGUI behaves differently
under pytest) and its own data dir. It binds port 0 (any free port, chosen by the kernel at bind
time, so no other process can take it in between) and the port is read back from the line
where it says what it listens on; a restart binds the same port again. Start-up is awaited by
reading its output, not by sleeping.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pytest

    from tests.support.databases import PostgresDatabases

ROOT = Path(__file__).resolve().parents[2]
SIGN_IN = re.compile(r"^Sign in: (\S+)$")
LISTENING = re.compile(r"^Listening on http://\S+:(\d+)$")


def clean_env(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST", "NICEGUI"))}
    env["PYTHONUNBUFFERED"] = "1"
    env.update(extra or {})
    return env


class RunningServer:
    def __init__(self, data_dir: Path, env: Mapping[str, str] | None = None, port: int | None = None) -> None:
        self.data_dir = data_dir
        self.port = port or 0
        """0 until the first start has read back the port the server bound."""
        self.extra_env = dict(env or {})
        self.process: subprocess.Popen[str] | None = None
        self.output: list[str] = []
        self.signin_url = ""
        self._ready = threading.Event()

    @property
    def database_url(self) -> str:
        """The database this server runs on (its data dir's SQLite file unless told otherwise)."""
        return (
            self.extra_env.get("ROMERGO_DATABASE_URL")
            or f"sqlite+aiosqlite:///{self.data_dir / 'romergo.db'}"
        )

    @property
    def base_url(self) -> str:
        assert self.port, "the server has not started yet"
        return f"http://127.0.0.1:{self.port}"

    def start(self, timeout: float = 60) -> RunningServer:
        self._ready.clear()
        self.signin_url = ""
        self.process = subprocess.Popen(
            [
                sys.executable,
                str(ROOT / "app.py"),
                "serve",
                "--data-dir",
                str(self.data_dir),
                "--port",
                str(self.port),
            ],
            cwd=self.data_dir,
            env=clean_env(self.extra_env),
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        threading.Thread(target=self._pump, args=(self.process,), daemon=True).start()
        if not self._ready.wait(timeout):
            self.stop()
            raise RuntimeError("server did not start:\n" + "".join(self.output[-60:]))
        return self

    def stop(self, timeout: float = 15) -> float:
        """SIGTERM and wait; returns how long the server took to exit."""
        if self.process is None or self.process.poll() is not None:
            return 0.0
        started = time.monotonic()
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        return time.monotonic() - started

    def restart(self) -> RunningServer:
        self.stop()
        return self.start()

    def log(self) -> str:
        return "".join(self.output)

    def tail(self, lines: int) -> str:
        return "".join(self.output[-lines:])

    def _pump(self, process: subprocess.Popen[str]) -> None:
        assert process.stdout is not None
        for line in process.stdout:
            self.output.append(line)
            bound = LISTENING.match(line.strip())
            if bound:
                self.port = int(bound.group(1))
            match = SIGN_IN.match(line.strip())
            if match:
                self.signin_url = match.group(1)
            # The socket listens before start-up, so a request after this line waits in its backlog.
            if "Application startup complete" in line and self.signin_url:
                self._ready.set()


@contextmanager
def two_instances_on_postgres(
    tmp_path_factory: pytest.TempPathFactory,
    postgres: PostgresDatabases,
    env: Mapping[str, str] | None = None,
) -> Iterator[tuple[RunningServer, RunningServer]]:
    """`two_instances` on a fresh PostgreSQL database of their own, dropped afterwards."""
    with postgres.fresh_now() as url:
        dirs = (tmp_path_factory.mktemp("instance-a"), tmp_path_factory.mktemp("instance-b"))
        with two_instances(dirs, {**(env or {}), "ROMERGO_DATABASE_URL": url}) as pair:
            yield pair


@contextmanager
def two_instances(
    data_dirs: tuple[Path, Path], env: Mapping[str, str]
) -> Iterator[tuple[RunningServer, RunningServer]]:
    """Two server processes on one database (`env` names it): A starts first and makes the first
    account, so B finds it; both are stopped at the end, B first."""
    for data_dir in data_dirs:
        data_dir.mkdir(parents=True, exist_ok=True)
    a = RunningServer(data_dirs[0], env=env).start()
    try:
        b = RunningServer(data_dirs[1], env=env).start()
        try:
            yield a, b
        finally:
            b.stop()
    finally:
        a.stop()
