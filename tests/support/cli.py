"""Run the `romergo` command line: as a user would, in a subprocess, or in this process for set-up.

Tests of the command line itself use `romergo` (a real process, its exit code and output). Fixtures
that only need what a command makes (an account, a demo, a token) use `romergo_here`: the same
command through the same entry point, without an interpreter start-up and its imports (1.2-2 s a
command alone, 3-4 s under the suite's load, several per browser test).
"""

from __future__ import annotations

import contextlib
import io
import subprocess
import sys
import threading
from collections.abc import Iterator, Mapping
from pathlib import Path

from cli.main import main
from tests.support.server import ROOT, clean_env


def romergo(
    *args: str,
    data_dir: Path,
    stdin: str | None = None,
    timeout: float = 60,
    env: Mapping[str, str] | None = None,
) -> subprocess.CompletedProcess[str]:
    """The CLI on `data_dir`; `env` as a server was given it (its database, say: RunningServer.extra_env)."""
    return subprocess.run(
        [sys.executable, str(ROOT / "app.py"), *args, "--data-dir", str(data_dir)],
        input=stdin if stdin is not None else "",
        capture_output=True,
        text=True,
        env=clean_env(env),
        timeout=timeout,
        check=False,
    )


def romergo_here(
    *args: str,
    data_dir: Path,
    stdin: str | None = None,
    env: Mapping[str, str] | None = None,
) -> subprocess.CompletedProcess[str]:
    """`romergo(...)` run by `cli.main.main` in this process, on a thread of its own: a command runs
    its own event loop (`asyncio.run`), which it cannot do on a thread whose loop is running."""
    argv = [*args, "--data-dir", str(data_dir)]
    out, err = io.StringIO(), io.StringIO()
    result: list[int] = []
    failure: list[BaseException] = []

    def run() -> None:
        try:
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err), _stdin(stdin or ""):
                result.append(main(argv, clean_env(env)))
        except BaseException as error:  # re-raised on the caller's thread
            failure.append(error)

    worker = threading.Thread(target=run, name="romergo-here")
    worker.start()
    worker.join()
    if failure:
        raise failure[0]
    return subprocess.CompletedProcess(["romergo", *argv], result[0], out.getvalue(), err.getvalue())


@contextlib.contextmanager
def _stdin(text: str) -> Iterator[None]:
    saved = sys.stdin
    sys.stdin = io.StringIO(text)
    try:
        yield
    finally:
        sys.stdin = saved
